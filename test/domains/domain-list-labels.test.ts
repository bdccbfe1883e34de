import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { Domain } from '../../core/domains/domain.js';
import type { DomainListQuery } from '../../core/domains/ports/domain-repository.port.js';
import { EVERY_DOMAIN } from '../../core/kernel/visibility.port.js';
import { SqlDomainRepository } from '../../adapters/sql/repositories/domains.repository.js';
import { eachStore } from '../support/stores.js';
import { startApi, type TestApi } from '../support/system.js';

/**
 * The domain list by label, read both ways the store may take: from the label index (few domains carry
 * the labels) and by walking the account's domains in name order (many do) — the same domains, in name
 * order, across cursor pages, for label filters and for keys' labelled and named scopes.
 */
eachStore('Domain list by label: the same pages from the label index and from a walk in name order', (kind) => {
  let api: TestApi;
  let fromIndex: SqlDomainRepository;
  let walking: SqlDomainRepository;
  before(async () => {
    api = await startApi(kind);
    const s = api.system.store;
    fromIndex = new SqlDomainRepository(s.uow, null, s.engine, null, null, 1000);
    // Never more than 0 domains "few": always the walk.
    walking = new SqlDomainRepository(s.uow, null, s.engine, null, null, 0);
    const domain = (environment: 'test' | 'live', name: string, labels: string[]): Domain => ({
      id: randomUUID(),
      accountId: api.demo.accountId,
      environment,
      name,
      status: ['ok'],
      expiresOn: '2030-01-01',
      autoRenew: false,
      transferLock: true,
      nameservers: ['ns1.domivka.net', 'ns2.domivka.net'],
      labels,
      createdAt: api.clock.now(),
    });
    await s.uow.transaction(async () => {
      for (let i = 0; i < 30; i++) {
        const labels = [i % 3 === 0 ? 'red' : 'green', ...(i % 5 === 0 ? ['rare'] : []), ...(i === 7 ? ['blue'] : [])];
        await s.domains.insert(domain('test', `list-${String(i).padStart(2, '0')}.dev`, labels));
      }
      // The other environment's domains with the same labels are never listed.
      for (let i = 0; i < 5; i++) await s.domains.insert(domain('live', `other-${i}.dev`, ['red', 'rare']));
    });
  });
  after(async () => api?.close());

  const pages = async (repo: SqlDomainRepository, q: Omit<DomainListQuery, 'accountId' | 'environment' | 'limit'>, limit: number) => {
    const out: string[] = [];
    let after: string | undefined;
    for (let i = 0; i < 100; i++) {
      const rows = await repo.list({
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
    const whole = await pages(fromIndex, q, 200);
    expected(whole);
    expect(whole, 'in name order').to.deep.equal([...whole].sort());
    for (const limit of [1, 4, 200]) {
      expect(await pages(fromIndex, q, limit), `from the index, limit ${limit}`).to.deep.equal(whole);
      expect(await pages(walking, q, limit), `walking, limit ${limit}`).to.deep.equal(whole);
    }
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

  it('whether the labels are few is counted in this account and environment only: another environment’s labels do not send the list walking', async () => {
    const s = api.system.store;
    // Six test domains carry 'rare' (and five live ones, which must not count): at most six is "few".
    const six = new SqlDomainRepository(s.uow, null, s.engine, null, null, 6);
    const sql: string[] = [];
    const seen = (q: { sql: string }) => sql.push(q.sql);
    s.knex.on('query', seen);
    try {
      const rows = await six.list({ accountId: api.demo.accountId, environment: 'test', scope: EVERY_DOMAIN, label: 'rare', limit: 50 });
      expect(rows.map((d) => d.name)).to.deep.equal([
        'list-00.dev',
        'list-05.dev',
        'list-10.dev',
        'list-15.dev',
        'list-20.dev',
        'list-25.dev',
      ]);
    } finally {
      s.knex.off('query', seen);
    }
    expect(
      sql.some((q) => q.includes('select 1 from domain_labels l where')),
      `walked:\n${sql.join('\n')}`,
    ).to.equal(false);
  });
});
