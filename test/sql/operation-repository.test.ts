import { expect } from 'chai';
import { SqlStore } from '../../adapters/sql/index.js';
import type { Operation } from '../../core/operations/operation.js';
import { eachStore, type FreshStore } from '../support/stores.js';

/** the operations store's guarantees — one pending operation per domain, leases that exclude. */
eachStore('Operation repository', (kind) => {
  let fresh: FreshStore;
  let store: SqlStore;
  // Postgres: a second connection pool, as a second worker process would have. SQLite: the same store —
  // better-sqlite3 is synchronous, so a second connection in one process would busy-wait on the event
  // loop the first needs to finish (separate processes do not have that problem); writers serialise on
  // BEGIN IMMEDIATE either way.
  let other: SqlStore;
  const t0 = new Date('2026-11-24T10:00:00Z');
  const op = (id: string, domainId: string, activatesAt = t0): Operation => ({
    id,
    accountId: 'a1',
    environment: 'test',
    domainId,
    domain: `${domainId}.com.ua`,
    kind: 'labels',
    status: 'pending',
    params: { labels: ['x'], previous: [] },
    warnings: [],
    requestedBy: { type: 'key', keyId: 'k1', personId: 'p1' },
    confirmations: [],
    createdAt: new Date(activatesAt.getTime() - 86_400_000),
    activatesAt,
    resolvedAt: null,
    cancelledBy: null,
    failureReason: null,
  });
  before(async () => {
    fresh = await kind.fresh();
    const cfg = fresh.connection;
    store = new SqlStore(cfg);
    await store.migrate();
    other = kind.engine === 'postgres' ? new SqlStore(cfg) : store;
    await store.accounts.insertAccount({ id: 'a1', name: 'A', createdAt: t0 });
  });
  after(async () => {
    if (other !== store) await other.close();
    await store.close();
    await fresh.drop();
  });

  it('one pending operation per domain, even when two inserts race; resolving frees the domain', async () => {
    const [a, b] = await Promise.all([
      store.uow.transaction(() => store.operations.insert(op('o1', 'd1'))),
      other.uow.transaction(() => other.operations.insert(op('o2', 'd1'))),
    ]);
    expect([a, b].filter(Boolean)).to.have.length(1);
    const pending = (await store.operations.pendingOn('d1'))!;
    expect(await store.operations.update({ ...pending, status: 'cancelled', resolvedAt: t0 }, {})).to.equal(true);
    expect(await store.operations.pendingOn('d1')).to.equal(null);
    expect(await store.operations.insert(op('o3', 'd1'))).to.equal(true);
    // A resolved operation is never changed again.
    expect(await store.operations.update({ ...pending, status: 'active', resolvedAt: t0 }, {})).to.equal(false);
  });

  it('two claimers racing get disjoint sets; a lease excludes others until it runs out', async () => {
    for (let i = 0; i < 10; i++) await store.operations.insert(op(`c${i}`, `dc${i}`));
    const now = new Date();
    const until = new Date(now.getTime() + 60_000);
    const due = new Date(now.getTime() + 365 * 86_400_000);
    const [x, y] = await Promise.all([
      store.operations.claimDue({ environment: 'test', due, now, leaseUntil: until, token: 'tx', limit: 20 }),
      other.operations.claimDue({ environment: 'test', due, now, leaseUntil: until, token: 'ty', limit: 20 }),
    ]);
    const ids = [...x, ...y].map((o) => o.id);
    expect(new Set(ids).size).to.equal(ids.length);
    expect(ids.filter((i) => i.startsWith('c')).sort()).to.deep.equal(Array.from({ length: 10 }, (_, i) => `c${i}`));
    const held = x[0] ?? y[0]!;
    const holder = x.length > 0 ? 'tx' : 'ty';
    expect(await store.operations.lease(held.id, 'tz', now, until)).to.equal(false);
    expect(await store.operations.update({ ...held, status: 'active', resolvedAt: now }, { token: 'not-mine' })).to.equal(false);
    expect(await store.operations.update({ ...held, status: 'cancelled', resolvedAt: now }, { unleasedAt: now })).to.equal(false);
    // Once the lease has run out another worker may take it over; the old holder's finish is then refused.
    const later = new Date(until.getTime() + 1);
    expect(await store.operations.lease(held.id, 'tz', later, new Date(later.getTime() + 60_000))).to.equal(true);
    expect(await store.operations.update({ ...held, status: 'active', resolvedAt: later }, { token: holder })).to.equal(false);
    expect(await store.operations.update({ ...held, status: 'active', resolvedAt: later }, { token: 'tz' })).to.equal(true);
    // Not due yet: not claimed.
    await store.operations.insert(op('future', 'dfuture', new Date(due.getTime() + 86_400_000)));
    const none = await store.operations.claimDue({ environment: 'test', due, now: later, leaseUntil: until, token: 'tw', limit: 50 });
    expect(none.map((o) => o.id)).not.to.include('future');
  });
});
