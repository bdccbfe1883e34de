import { expect } from 'chai';
import { SqlStore } from '../../adapters/sql/index.js';
import type { Domain } from '../../core/domains/domain.js';
import { eachStore, type FreshStore } from '../support/stores.js';

eachStore('Domain repository reads', (kind) => {
  let fresh: FreshStore;
  let store: SqlStore;
  const domain = (id: string, name: string, labels: string[]): Domain => ({
    id,
    accountId: 'a1',
    environment: 'test',
    name,
    labels,
    status: ['ok'],
    expiresOn: '2027-01-01',
    autoRenew: true,
    transferLock: false,
    nameservers: ['ns1.domivka.net'],
    createdAt: new Date('2026-11-21T00:00:00Z'),
  });
  before(async () => {
    fresh = await kind.fresh();
    store = new SqlStore(fresh.connection);
    await store.migrate();
    await store.accounts.insertAccount({ id: 'a1', name: 'A', createdAt: new Date() });
  });
  after(async () => {
    await store.close();
    await fresh.drop();
  });

  it('find returns the domain with its labels sorted, in one round trip', async () => {
    await store.domains.insert(domain('d1', 'one.com', ['zeta', 'alpha', 'mid']));
    const d = await store.domains.find('a1', 'test', 'one.com');
    expect(d!.labels).to.deep.equal(['alpha', 'mid', 'zeta']);
    expect(d!.autoRenew).to.equal(true);
    await store.domains.insert(domain('d0', 'nolabels.com', []));
    expect((await store.domains.find('a1', 'test', 'nolabels.com'))!.labels).to.deep.equal([]);
    expect(await store.domains.find('a1', 'live', 'one.com')).to.equal(null);
    expect(await store.domains.find('other', 'test', 'one.com')).to.equal(null);
  });

  it('reads outside a transaction see only committed writes; inside, the transaction sees its own', async () => {
    let seenInside: Domain | null = null;
    let seenOutsideDuring: Domain | null | 'not-run' = 'not-run';
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const tx = store.uow.transaction(async () => {
      await store.domains.insert(domain('d2', 'two.com', ['x']));
      seenInside = await store.domains.find('a1', 'test', 'two.com');
      await gate;
    });
    await new Promise((r) => setTimeout(r, 50));
    if (kind.engine === 'sqlite') {
      // SQLite: hot reads use their own read-only connection (WAL snapshot), so they do not wait.
      seenOutsideDuring = await store.domains.find('a1', 'test', 'two.com');
      expect(seenOutsideDuring).to.equal(null);
    }
    release();
    await tx;
    expect(seenInside!.name).to.equal('two.com');
    expect((await store.domains.find('a1', 'test', 'two.com'))!.labels).to.deep.equal(['x']);
  });
});
