import { expect } from 'chai';
import { SqlStore } from '../../adapters/sql/index.js';
import { SystemClock } from '../../adapters/clock/system/index.js';
import { NodeRandom } from '../../adapters/crypto/node/index.js';
import type { RecordSet, RecordType } from '../../core/dns/zone/record-set.js';
import { ZoneCache } from '../../core/dns/zone/zone-cache.js';
import { OverlayMap } from '../../core/dns/zone/names-overlay.js';
import { ZoneSets } from '../../core/dns/zone/zone-sets.js';
import { ZoneChanged, ZoneService, type ZonePublisher } from '../../core/dns/zone/zone-service.js';
import type { Zone } from '../../core/dns/zone/zone.js';
import { eachStore, type FreshStore } from '../support/stores.js';
import { prng } from '../support/prng.js';

/**
 * The API keeps a zone's sets indexed between plans (core/dns/zone/zone-cache.ts), keyed by (zone, serial):
 * a one-change plan on a zone of 100k sets then reads the zone's row, not its sets. It must never answer
 * with sets the store does not hold at that serial.
 */

const TYPES: RecordType[] = ['A', 'AAAA', 'TXT', 'MX'];
const byKey = (a: RecordSet, b: RecordSet) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.type < b.type ? -1 : a.type > b.type ? 1 : 0);
const listed = (sets: ZoneSets | readonly RecordSet[]): RecordSet[] => [...(sets instanceof ZoneSets ? sets.toArray() : sets)].sort(byKey);

describe('ZoneSets: the next version of an indexed zone costs as much as the change', () => {
  it('600 random commits: each version answers, counts and iterates exactly as the zone rebuilt from scratch', () => {
    const r = prng(7);
    const name = () => `h${Math.floor(r() * 400)}.z.test`;
    const start: RecordSet[] = [];
    for (let i = 0; i < 300; i++) start.push({ name: `h${i}.z.test`, type: 'A', ttl: 300, values: [`192.0.2.${i % 250}`] });
    start.sort(byKey);
    let sets = ZoneSets.of(start);
    // The model: a plain Map changed by the same calls (what buildPlan's view of the zone after a plan is).
    const model = new Map<string, Map<RecordType, RecordSet>>();
    for (const s of start) model.set(s.name, new Map([[s.type, s]]));
    let flattened = 0;
    for (let v = 0; v < 600; v++) {
      const deletes: Array<{ name: string; type: RecordType }> = [];
      const upserts: RecordSet[] = [];
      for (let k = Math.floor(r() * 4); k > 0; k--) deletes.push({ name: name(), type: TYPES[Math.floor(r() * TYPES.length)]! });
      for (let k = Math.floor(r() * 4); k > 0; k--)
        upserts.push({ name: name(), type: TYPES[Math.floor(r() * TYPES.length)]!, ttl: v, values: [`v${v}`] });
      const before = sets;
      const beforeList = listed(before);
      sets = sets.with(upserts, deletes);
      for (const d of deletes) {
        const t = model.get(d.name);
        if (!t?.has(d.type)) continue;
        const copy = new Map(t);
        copy.delete(d.type);
        if (copy.size === 0) model.delete(d.name);
        else model.set(d.name, copy);
      }
      for (const s of upserts) model.set(s.name, new Map(model.get(s.name) ?? []).set(s.type, s));
      // The version before is untouched (a plan may still hold it).
      expect(JSON.stringify(listed(before))).to.equal(JSON.stringify(beforeList));
      const want = [...model.values()].flatMap((t) => [...t.values()]);
      expect(JSON.stringify([...sets.names.keys()])).to.equal(JSON.stringify([...model.keys()]));
      expect(JSON.stringify(sets.toArray())).to.equal(JSON.stringify(want));
      if (!(sets.names instanceof OverlayMap)) flattened++;
      expect(sets.size).to.equal(want.length);
      expect(want.filter((s) => sets.get(s.name, s.type) !== s)).to.deep.equal([]);
      expect(sets.get('h999.z.test', 'A')).to.equal(undefined);
    }
    expect(flattened, 'versions whose overlay was flattened').to.be.greaterThan(0);
  });
});

describe('ZoneCache: least recently used zones go first, within a budget of record sets', () => {
  it('keeps one serial per zone and drops the oldest zones past the budget', () => {
    const of = (n: number) =>
      ZoneSets.of(Array.from({ length: n }, (_, i) => ({ name: `h${i}.z.test`, type: 'A' as const, ttl: 1, values: ['192.0.2.1'] })));
    const cache = new ZoneCache(100);
    const a = of(40);
    const b = of(40);
    cache.put('a', 1, a);
    cache.put('b', 1, b);
    expect(cache.get('a', 1)).to.equal(a);
    expect(cache.get('a', 2)).to.equal(null);
    cache.put('c', 1, of(40)); // over 100: b, the least recently used, goes
    expect(cache.get('b', 1)).to.equal(null);
    expect(cache.get('a', 1)).to.equal(a);
    expect(cache.size).to.equal(80);
    cache.put('a', 2, a.with([{ name: 'x.z.test', type: 'A', ttl: 1, values: ['192.0.2.2'] }], []));
    expect(cache.get('a', 1)).to.equal(null);
    expect(cache.get('a', 2)!.size).to.equal(41);
    cache.put('huge', 1, of(101)); // larger than the whole budget: not kept
    expect(cache.get('huge', 1)).to.equal(null);
  });
});

eachStore('ZoneService.indexed: a zone kept between plans is always the store’s zone at that serial', (kind) => {
  let fresh: FreshStore;
  let store: SqlStore;
  const published: Zone[] = [];
  const publisher: ZonePublisher = {
    publish: async (z) => void published.push(z),
    withdraw: async () => undefined,
  };
  const service = () =>
    new ZoneService({
      zones: store.zones,
      publisher,
      uow: store.uow,
      random: new NodeRandom(),
      clock: new SystemClock(),
      diagnostics: {
        report: (err) => {
          throw err;
        },
      },
    });
  const domain = 'cache.test';
  const fromStore = async () => (await store.zones.find('acc', 'live', domain))!;
  const sets = (n: number, tag: string): RecordSet[] =>
    Array.from({ length: n }, (_, i) => ({ name: `h${i}.${domain}`, type: 'TXT' as const, ttl: 60, values: [`${tag} ${i}`] }));

  before(async () => {
    fresh = await kind.fresh();
    store = new SqlStore(fresh.connection);
    await store.migrate();
    await store.knex('accounts').insert({ id: 'acc', name: 'x', created_at: new Date().toISOString() });
    await store.uow.transaction(() => service().create('acc', 'live', domain, sets(500, 'start')));
  });
  after(async () => {
    await store.close();
    await fresh.drop();
  });

  it('reads the sets once per serial, and a commit through it keeps the next version, equal to the store’s', async () => {
    const zones = service();
    const first = (await zones.indexed('acc', 'live', domain))!;
    expect(listed(first.sets)).to.deep.equal(listed((await fromStore()).recordSets));
    expect((await zones.indexed('acc', 'live', domain))!.sets).to.equal(first.sets); // not read again
    const next = await store.uow.transaction(() =>
      zones.commit(first, [{ name: `new.${domain}`, type: 'A', ttl: 300, values: ['192.0.2.7'] }], [{ name: `h3.${domain}`, type: 'TXT' }]),
    );
    const again = (await zones.indexed('acc', 'live', domain))!;
    expect(again.serial)
      .to.equal(next.serial)
      .and.to.equal((await fromStore()).serial);
    expect(again.sets).to.equal((next as typeof again).sets); // kept from the commit, not read
    expect(listed(again.sets)).to.deep.equal(listed((await fromStore()).recordSets));
    expect(again.sets.get(domain, 'SOA')!.values[0]).to.contain(` ${next.serial} `);
  });

  it('a change committed elsewhere (another process) is seen, and a commit from the old version loses: ZoneChanged', async () => {
    const mine = service();
    const other = service();
    const old = (await mine.indexed('acc', 'live', domain))!;
    const theirs = (await other.indexed('acc', 'live', domain))!;
    await store.uow.transaction(() => other.commit(theirs, [{ name: `h1.${domain}`, type: 'TXT', ttl: 60, values: ['theirs'] }], []));
    let lost: unknown = null;
    await store.uow
      .transaction(() => mine.commit(old, [{ name: `h1.${domain}`, type: 'TXT', ttl: 60, values: ['mine'] }], []))
      .catch((e: unknown) => {
        lost = e;
      });
    expect(lost).to.be.instanceOf(ZoneChanged);
    const now = (await mine.indexed('acc', 'live', domain))!;
    expect(now.serial).to.not.equal(old.serial);
    expect(now.sets.get(`h1.${domain}`, 'TXT')!.values).to.deep.equal(['theirs']);
    expect(listed(now.sets)).to.deep.equal(listed((await fromStore()).recordSets));
  });

  it('a commit rolled back keeps nothing: the serial it would have had may hold other sets', async () => {
    const zones = service();
    const base = (await zones.indexed('acc', 'live', domain))!;
    await store.uow
      .transaction(async () => {
        await zones.commit(base, [{ name: `h2.${domain}`, type: 'TXT', ttl: 60, values: ['rolled back'] }], []);
        // Read inside the transaction: its own uncommitted serial and sets.
        expect((await zones.indexed('acc', 'live', domain))!.sets.get(`h2.${domain}`, 'TXT')!.values).to.deep.equal(['rolled back']);
        throw new Error('roll back');
      })
      .catch((e: Error) => expect(e.message).to.equal('roll back'));
    // The same next serial, other sets, committed by another process.
    const other = service();
    const theirs = (await other.indexed('acc', 'live', domain))!;
    expect(theirs.serial).to.equal(base.serial);
    await store.uow.transaction(() => other.commit(theirs, [{ name: `h2.${domain}`, type: 'TXT', ttl: 60, values: ['committed'] }], []));
    const now = (await zones.indexed('acc', 'live', domain))!;
    expect(now.sets.get(`h2.${domain}`, 'TXT')!.values).to.deep.equal(['committed']);
    expect(listed(now.sets)).to.deep.equal(listed((await fromStore()).recordSets));
  });

  it('a removed zone is forgotten', async () => {
    const zones = service();
    expect(await zones.indexed('acc', 'live', domain)).to.not.equal(null);
    await store.uow.transaction(() => zones.remove('acc', 'live', domain));
    expect(await zones.indexed('acc', 'live', domain)).to.equal(null);
  });
});
