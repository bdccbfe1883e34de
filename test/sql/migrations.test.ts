import { expect } from 'chai';
import { migrationSource, SqlStore } from '../../adapters/sql/index.js';
import { eachStore, type FreshStore } from '../support/stores.js';

eachStore('Migrations (both engines, up and down)', (kind) => {
  let fresh: FreshStore;
  let store: SqlStore;
  before(async () => {
    fresh = await kind.fresh();
    store = new SqlStore(fresh.connection);
  });
  after(async () => {
    await store.close();
    await fresh.drop();
  });

  const TABLES = [
    'accounts',
    'people',
    'sessions',
    'api_keys',
    'domains',
    'domain_labels',
    'ledger_entries',
    'notices',
    'events',
    'idempotency_keys',
    'sandbox_registry',
    'sandbox_registry_transactions',
  ];

  it('latest creates every table; running it again is a no-op', async () => {
    await store.migrate();
    for (const t of TABLES) expect(await store.knex.schema.hasTable(t), t).to.equal(true);
    await store.migrate();
    const [, pending] = await store.knex.migrate.list({ migrationSource });
    expect(pending).to.deep.equal([]);
  });

  it('rollback drops them all, and latest brings them back', async () => {
    await store.knex.migrate.rollback({ migrationSource }, true);
    for (const t of TABLES) expect(await store.knex.schema.hasTable(t), t).to.equal(false);
    await store.migrate();
    for (const t of TABLES) expect(await store.knex.schema.hasTable(t), t).to.equal(true);
  });

  it('one name per environment: the same domain cannot be held twice in one environment', async () => {
    await store.accounts.insertAccount({ id: 'a1', name: 'A', createdAt: new Date() });
    const d = {
      id: 'd1',
      accountId: 'a1',
      environment: 'test' as const,
      name: 'x.com',
      labels: [],
      status: ['ok'],
      expiresOn: '2027-01-01',
      autoRenew: false,
      transferLock: false,
      nameservers: [],
      createdAt: new Date(),
    };
    await store.domains.insert(d);
    let failed = false;
    try {
      await store.domains.insert({ ...d, id: 'd2' });
    } catch {
      failed = true;
    }
    expect(failed).to.equal(true);
    await store.domains.insert({ ...d, id: 'd3', environment: 'live' });
    expect((await store.domains.find('a1', 'live', 'x.com'))!.id).to.equal('d3');
    expect((await store.domains.find('a1', 'test', 'x.com'))!.id).to.equal('d1');
  });
});
