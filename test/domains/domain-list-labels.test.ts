import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { Domain } from '../../core/domains/domain.js';
import type { DomainListQuery } from '../../core/domains/ports/domain-repository.port.js';
import { EVERY_DOMAIN } from '../../core/kernel/visibility.port.js';
import { migrationSourceFor, SqlStore } from '../../adapters/sql/index.js';
import { SqlDomainRepository } from '../../adapters/sql/repositories/domains.repository.js';
import { eachStore } from '../support/stores.js';
import { startApi, type TestApi } from '../support/system.js';

/**
 * The domain list: one statement that merges name-ordered streams read from indexes (the account's
 * domains, each label's domains, the key's named domains) and cuts them to the page. Pinned here: the
 * same domains in name order whatever the page size, across cursor pages, for label filters and for keys'
 * labelled and named scopes, with the registrar and hosting filters; the label rows' copy of the domain's
 * account, environment and name, written by every path that writes labels.
 */
eachStore('Domain list by label: name-ordered pages from the label index, for label filters and labelled keys', (kind) => {
  let api: TestApi;
  let repo: SqlDomainRepository;
  let other: string;
  before(async () => {
    api = await startApi(kind);
    const s = api.system.store;
    repo = s.domains;
    other = randomUUID();
    await s.accounts.insertAccount({ id: other, name: 'Other', createdAt: api.clock.now() });
    const domain = (accountId: string, environment: 'test' | 'live', name: string, labels: string[], external = false): Domain => ({
      id: randomUUID(),
      accountId,
      environment,
      name,
      status: ['ok'],
      expiresOn: '2030-01-01',
      autoRenew: false,
      transferLock: true,
      nameservers: ['ns1.domivka.net', 'ns2.domivka.net'],
      labels,
      createdAt: api.clock.now(),
      ...(external
        ? {
            registrar: 'external' as const,
            hosting: { status: 'pending_delegation' as const, token: 't', checkedAt: null, problem: null, proof: null },
          }
        : {}),
    });
    await s.uow.transaction(async () => {
      for (let i = 0; i < 30; i++) {
        const labels = [i % 3 === 0 ? 'red' : 'green', ...(i % 5 === 0 ? ['rare'] : []), ...(i === 7 ? ['blue'] : [])];
        await s.domains.insert(domain(api.demo.accountId, 'test', `list-${String(i).padStart(2, '0')}.dev`, labels, i % 4 === 1));
      }
      // The other environment's and another account's domains with the same labels are never listed.
      for (let i = 0; i < 5; i++) await s.domains.insert(domain(api.demo.accountId, 'live', `other-${i}.dev`, ['red', 'rare']));
      // Another account's holds names like these (hosted, not served): the list joins label rows by domain, not by name.
      for (let i = 0; i < 5; i++) await s.domains.insert(domain(other, 'test', `list-${i}0.dev`, ['red', 'rare', 'blue', 'green'], true));
    });
  });
  after(async () => api?.close());

  const pages = async (r: SqlDomainRepository, q: Omit<DomainListQuery, 'accountId' | 'environment' | 'limit'>, limit: number) => {
    const out: string[] = [];
    let after: string | undefined;
    for (let i = 0; i < 100; i++) {
      const rows = await r.list({
        accountId: api.demo.accountId,
        environment: 'test',
        ...q,
        ...(after ? { after } : {}),
        limit: limit + 1,
      });
      out.push(...rows.slice(0, limit).map((d) => d.name));
      if (rows.length <= limit) return out;
      after = rows[limit - 1]!.name;
    }
    throw new Error('the pages never ended');
  };
  const same = async (q: Omit<DomainListQuery, 'accountId' | 'environment' | 'limit'>, expected: (names: string[]) => void) => {
    const whole = await pages(repo, q, 200);
    expected(whole);
    expect(whole, 'in name order').to.deep.equal([...whole].sort());
    for (const limit of [1, 2, 4, 7]) expect(await pages(repo, q, limit), `limit ${limit}`).to.deep.equal(whole);
    return whole;
  };

  it('a label filter lists exactly the account’s domains carrying it', async () => {
    const rare = await same({ scope: EVERY_DOMAIN, label: 'rare' }, (n) => expect(n).to.include('list-00.dev').and.include('list-25.dev'));
    expect(rare.filter((n) => n.startsWith('list-'))).to.deep.equal([
      'list-00.dev',
      'list-05.dev',
      'list-10.dev',
      'list-15.dev',
      'list-20.dev',
      'list-25.dev',
    ]);
    expect(rare.some((n) => n.startsWith('other-'))).to.equal(false);
    await same({ scope: EVERY_DOMAIN, label: 'blue' }, (n) => expect(n).to.deep.equal(['list-07.dev']));
    await same({ scope: EVERY_DOMAIN, label: 'nowhere' }, (n) => expect(n).to.deep.equal([]));
  });

  it('a key’s labelled and named scope, alone and with a label filter', async () => {
    const scope = { all: false, names: ['list-01.dev', 'domivka-demo.dev', 'other-0.dev'], labels: ['rare', 'blue'] };
    await same({ scope }, (n) =>
      expect(n).to.deep.equal([
        'domivka-demo.dev',
        'list-00.dev',
        'list-01.dev',
        'list-05.dev',
        'list-07.dev',
        'list-10.dev',
        'list-15.dev',
        'list-20.dev',
        'list-25.dev',
      ]),
    );
    await same({ scope, label: 'red' }, (n) => expect(n).to.deep.equal(['list-00.dev', 'list-15.dev']));
    await same({ scope: { all: false, names: ['list-03.dev'], labels: [] }, label: 'red' }, (n) =>
      expect(n).to.deep.equal(['list-03.dev']),
    );
    await same({ scope: { all: false, names: [], labels: ['nowhere'] } }, (n) => expect(n).to.deep.equal([]));
  });

  it('a label filter inside the key’s labels lists that label’s domains; outside them, only those the key sees', async () => {
    const scope = { all: false, names: ['list-01.dev'], labels: ['rare', 'blue'] };
    await same({ scope, label: 'rare' }, (n) =>
      expect(n).to.deep.equal(['list-00.dev', 'list-05.dev', 'list-10.dev', 'list-15.dev', 'list-20.dev', 'list-25.dev']),
    );
    // green is not the key's: green domains that are rare or blue, or named (list-01.dev is green).
    await same({ scope, label: 'green' }, (n) =>
      expect(n).to.deep.equal(['list-01.dev', 'list-05.dev', 'list-07.dev', 'list-10.dev', 'list-20.dev', 'list-25.dev']),
    );
    await same({ scope: { all: false, names: [], labels: ['blue'] }, label: 'rare' }, (n) => expect(n).to.deep.equal([]));
  });

  it('the registrar and hosting filters with a label filter and with a labelled key, as the model of the rows says', async () => {
    // The rows inserted above: i % 3 == 0 red else green, i % 5 == 0 rare, 7 blue, i % 4 == 1 hosted (pending).
    const model = Array.from({ length: 30 }, (_, i) => ({
      name: `list-${String(i).padStart(2, '0')}.dev`,
      labels: [i % 3 === 0 ? 'red' : 'green', ...(i % 5 === 0 ? ['rare'] : []), ...(i === 7 ? ['blue'] : [])],
      external: i % 4 === 1,
    }));
    const demo = ['domivka-blog.kyiv.ua', 'domivka-demo.com.ua', 'domivka-demo.dev'];
    const pick = (f: (d: (typeof model)[number]) => boolean) => model.filter(f).map((d) => d.name);
    await same({ scope: EVERY_DOMAIN, label: 'rare', registrar: 'external' }, (n) =>
      expect(n).to.deep.equal(['list-05.dev', 'list-25.dev']),
    );
    await same({ scope: EVERY_DOMAIN, label: 'rare', registrar: 'domivka' }, (n) =>
      expect(n).to.deep.equal(pick((d) => d.labels.includes('rare') && !d.external)),
    );
    await same({ scope: EVERY_DOMAIN, registrar: 'external', hostingStatus: 'pending_delegation' }, (n) =>
      expect(n).to.deep.equal(pick((d) => d.external)),
    );
    await same({ scope: EVERY_DOMAIN, hostingStatus: 'active' }, (n) => expect(n).to.deep.equal([]));
    await same({ scope: EVERY_DOMAIN, registrar: 'domivka' }, (n) =>
      expect(n).to.deep.equal([...demo, ...pick((d) => !d.external)].sort()),
    );
    const scope = { all: false, names: ['list-00.dev', 'list-09.dev'], labels: ['green', 'rare'] };
    const sees = (d: (typeof model)[number]) => scope.names.includes(d.name) || d.labels.some((l) => scope.labels.includes(l));
    await same({ scope, registrar: 'external' }, (n) => expect(n).to.deep.equal(pick((d) => sees(d) && d.external)));
    await same({ scope, registrar: 'domivka', label: 'red' }, (n) =>
      expect(n).to.deep.equal(pick((d) => sees(d) && !d.external && d.labels.includes('red'))),
    );
    await same({ scope, hostingStatus: 'pending_delegation', label: 'green' }, (n) =>
      expect(n).to.deep.equal(pick((d) => sees(d) && d.external && d.labels.includes('green'))),
    );
  });

  it('a label row carries its domain’s account, environment and name, written on insert and on a label change', async () => {
    const s = api.system.store;
    const stale = await s
      .knex('domain_labels as l')
      .join('domains as d', 'd.id', 'l.domain_id')
      .where((w) => w.whereRaw('l.account_id <> d.account_id').orWhereRaw('l.environment <> d.environment').orWhereRaw('l.name <> d.name'));
    expect(stale).to.deep.equal([]);
    const target = (await s.domains.find(api.demo.accountId, 'test', 'list-03.dev'))!;
    await s.uow.transaction(() => s.operations.setLabels(target.id, ['red', 'teal']));
    expect(
      await s.knex('domain_labels').where({ domain_id: target.id }).orderBy('label').select('account_id', 'environment', 'name', 'label'),
    ).to.deep.equal(['red', 'teal'].map((label) => ({ account_id: api.demo.accountId, environment: 'test', name: 'list-03.dev', label })));
    await same({ scope: EVERY_DOMAIN, label: 'teal' }, (n) => expect(n).to.deep.equal(['list-03.dev']));
    await same({ scope: { all: false, names: [], labels: ['teal'] } }, (n) => expect(n).to.deep.equal(['list-03.dev']));
    await s.uow.transaction(() => s.operations.setLabels(target.id, ['red']));
    await same({ scope: EVERY_DOMAIN, label: 'teal' }, (n) => expect(n).to.deep.equal([]));
  });
});

eachStore(
  'Migration 20261127120000_domain_label_names: label rows already stored get their domain’s account, environment and name',
  (kind) => {
    it('fills them on the way up and the list reads them; down takes the columns away', async () => {
      const fresh = await kind.fresh();
      const store = new SqlStore(fresh.connection);
      try {
        await store.migrate();
        const name = '20261127120000_domain_label_names';
        await store.knex.migrate.down({ migrationSource: migrationSourceFor(store.engine), name });
        expect(await store.knex.schema.hasColumn('domain_labels', 'name')).to.equal(false);
        await store.accounts.insertAccount({ id: 'a1', name: 'A', createdAt: new Date() });
        await store.knex('domains').insert(
          ['b.dev', 'a.dev'].map((n) => ({
            id: `d-${n}`,
            account_id: 'a1',
            environment: 'test',
            name: n,
            status: '["ok"]',
            expires_on: '2030-01-01',
            auto_renew: false,
            transfer_lock: true,
            nameservers: '[]',
            created_at: new Date().toISOString(),
          })),
        );
        await store.knex('domain_labels').insert([
          { domain_id: 'd-b.dev', label: 'x' },
          { domain_id: 'd-a.dev', label: 'x' },
          { domain_id: 'd-a.dev', label: 'y' },
        ]);
        await store.knex.migrate.up({ migrationSource: migrationSourceFor(store.engine), name });
        expect(
          await store
            .knex('domain_labels')
            .orderBy(['domain_id', 'label'])
            .select('domain_id', 'label', 'account_id', 'environment', 'name'),
        ).to.deep.equal([
          { domain_id: 'd-a.dev', label: 'x', account_id: 'a1', environment: 'test', name: 'a.dev' },
          { domain_id: 'd-a.dev', label: 'y', account_id: 'a1', environment: 'test', name: 'a.dev' },
          { domain_id: 'd-b.dev', label: 'x', account_id: 'a1', environment: 'test', name: 'b.dev' },
        ]);
        const listed = await store.domains.list({ accountId: 'a1', environment: 'test', scope: EVERY_DOMAIN, label: 'x', limit: 10 });
        expect(listed.map((d) => [d.name, d.labels])).to.deep.equal([
          ['a.dev', ['x', 'y']],
          ['b.dev', ['x']],
        ]);
      } finally {
        await store.close();
        await fresh.drop();
      }
    });
  },
);
