import { expect } from 'chai';
import { SqlStore } from '../../../adapters/sql/index.js';
import type { RecordSet } from '../../../core/dns/zone/record-set.js';
import type { StoredZone } from '../../../core/dns/zone/zone.js';
import { eachStore, type FreshStore } from '../../support/stores.js';

/**
 * The zone store (adapters/sql/repositories/dns.repository.ts) moves a zone's sets as one JSON document:
 * what it writes must come back exactly — odd values (quotes, backslashes, control characters, non-ASCII),
 * large and float TTLs as stored — ordered by name then type, and commits must upsert and delete exactly.
 */
eachStore('zone store round trip', (kind) => {
  let fresh: FreshStore;
  let store: SqlStore;
  before(async () => {
    fresh = await kind.fresh();
    store = new SqlStore(fresh.connection);
    await store.migrate();
    await store.knex('accounts').insert({ id: 'acc', name: 'x', created_at: new Date().toISOString() });
  });
  after(async () => {
    await store.close();
    await fresh.drop();
  });

  const byKey = (a: RecordSet, b: RecordSet) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : a.type < b.type ? -1 : a.type > b.type ? 1 : 0;
  const sorted = (sets: readonly RecordSet[]) => [...sets].sort(byKey);
  /** SQLite orders by code units, as JS does; Postgres by its collation: compare its order-free. */
  const expectSets = (got: readonly RecordSet[], want: readonly RecordSet[]) =>
    kind.engine === 'sqlite' ? expect(got).to.deep.equal(sorted(want)) : expect(sorted(got)).to.deep.equal(sorted(want));

  it('writes and reads back 3000 sets exactly, ordered by name and type', async () => {
    const sets: RecordSet[] = [];
    const odd = ['say "hi"', 'back\\slash', 'tab\there', 'ünïcödé ✓', 'ctl\u0001x', '{"json":[1,2]}', "it's"];
    for (let i = 2999; i >= 0; i--) {
      const name = `${['h', '_srv._tcp.h', '*.w', 'x-y'][i % 4]}${i}.store.test`;
      sets.push({
        name,
        type: (['A', 'TXT', 'MX', 'AAAA'] as const)[i % 4]!,
        ttl: [300, 0, 2147483647, 60][i % 4]!,
        values: i % 4 === 1 ? [odd[i % odd.length]!, `v${i}`] : [`value ${i}`],
      });
    }
    const zone: StoredZone = { id: 'zone-a', accountId: 'acc', environment: 'live', domain: 'store.test', serial: 1, recordSets: sets };
    await store.uow.transaction(() => store.zones.create(zone));
    const got = (await store.zones.find('acc', 'live', 'store.test'))!;
    expect(got.serial).to.equal(1);
    expectSets(got.recordSets, sets);
    expect((await store.zones.findById('zone-a'))!.recordSets).to.deep.equal(got.recordSets);
  });

  it('commit upserts and deletes exactly the given sets, only at the expected serial', async () => {
    const before = (await store.zones.find('acc', 'live', 'store.test'))!;
    const upserts: RecordSet[] = [
      { name: 'h0.store.test', type: 'A', ttl: 1, values: ['changed "quoted"'] },
      { name: 'new.store.test', type: 'TXT', ttl: 5, values: ['a', 'b'] },
    ];
    const deletes = before.recordSets.filter((_, i) => i % 7 === 0).map((s) => ({ name: s.name, type: s.type }));
    expect(await store.zones.commit('zone-a', 99, 2, upserts, deletes, new Date())).to.equal(false);
    expect(await store.zones.commit('zone-a', 1, 2, upserts, deletes, new Date())).to.equal(true);
    const gone = new Set([...deletes, ...upserts].map((d) => `${d.name} ${d.type}`));
    const want = [...before.recordSets.filter((s) => !gone.has(`${s.name} ${s.type}`)), ...upserts];
    const after = (await store.zones.find('acc', 'live', 'store.test'))!;
    expect(after.serial).to.equal(2);
    expectSets(after.recordSets, want);
    // Every zone at once (all()), and an empty zone.
    await store.uow.transaction(() =>
      store.zones.create({ id: 'zone-b', accountId: 'acc', environment: 'live', domain: 'empty.test', serial: 7, recordSets: [] }),
    );
    const all = await store.zones.all();
    expect(all.map((z) => [z.domain, z.recordSets.length])).to.deep.equal([
      ['empty.test', 0],
      ['store.test', want.length],
    ]);
  });

  if (kind.engine === 'sqlite') {
    it('SQLite: names whose binary order differs from JavaScript order still come back in JavaScript order', async () => {
      // U+E000 sorts after U+10000 in UTF-16 code units but before it in UTF-8 bytes.
      const sets: RecordSet[] = [
        { name: 'a\u{10000}.odd.test', type: 'A', ttl: 1, values: ['1'] },
        { name: 'a\uE000.odd.test', type: 'A', ttl: 1, values: ['2'] },
        { name: 'b.odd.test', type: 'A', ttl: 1, values: ['3'] },
      ];
      await store.uow.transaction(() =>
        store.zones.create({ id: 'zone-c', accountId: 'acc', environment: 'live', domain: 'odd.test', serial: 1, recordSets: sets }),
      );
      expect((await store.zones.find('acc', 'live', 'odd.test'))!.recordSets).to.deep.equal(sorted(sets));
    });
  }
});
