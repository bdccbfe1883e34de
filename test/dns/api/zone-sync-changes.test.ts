import { expect } from 'chai';
import pino from 'pino';
import { ZoneSync } from '../../../adapters/dns/zone-sync.js';
import { EmbeddedNameserver } from '../../../adapters/dns/embedded/index.js';
import type { ZoneRepository } from '../../../core/dns/ports/zone-repository.port.js';
import type { RecordSet } from '../../../core/dns/zone/record-set.js';
import { afterChanges, indexSets } from '../../../core/dns/zone/zone-sets.js';
import type { StoredZone } from '../../../core/dns/zone/zone.js';
import { TOKENS } from '../../../src/tokens.js';
import { udpQuestion } from '../server/tools.js';
import { eachStore } from '../../support/stores.js';
import { startApi, type TestApi } from '../../support/system.js';

const a = (name: string, ip: string): RecordSet => ({ name, type: 'A', ttl: 300, values: [ip] });

describe('afterChanges: a zone list after committed changes', () => {
  const x = a('x.example', '192.0.2.1');
  const y = a('y.example', '192.0.2.2');
  const z = a('z.example', '192.0.2.3');

  it('keeps every untouched set (the same object) in its place, a replaced set in its predecessor’s, and puts a new one last', () => {
    const y2 = a('y.example', '192.0.2.20');
    const w = a('w.example', '192.0.2.4');
    const out = afterChanges([x, y, z], [{ upserts: [y2, w], deletes: [] }])!;
    expect(out).to.deep.equal([x, y2, z, w]);
    expect(out[0]).to.equal(x);
    expect(out[2]).to.equal(z);
  });

  it('applies commits in order: a set written then removed is gone, removed then written again is back', () => {
    const x2 = a('x.example', '192.0.2.10');
    const out = afterChanges(
      [x, y, z],
      [
        { upserts: [a('w.example', '192.0.2.4')], deletes: [{ name: 'x.example', type: 'A' }] },
        {
          upserts: [x2],
          deletes: [
            { name: 'w.example', type: 'A' },
            { name: 'z.example', type: 'A' },
          ],
        },
      ],
    );
    expect(out).to.deep.equal([x2, y]);
  });

  it('many sets at once (found by one pass, with or without the caller’s index): the same list as set by set', () => {
    const list = Array.from({ length: 200 }, (_, i) => a(`n${i}.example`, '192.0.2.1'));
    const upserts = Array.from({ length: 40 }, (_, i) => a(`n${i * 5}.example`, '198.51.100.1'));
    const deletes = Array.from({ length: 30 }, (_, i) => ({ name: `n${i * 5 + 1}.example`, type: 'A' as const }));
    const fresh = [a('fresh.example', '203.0.113.1')];
    const expected = [
      ...list.filter((_, i) => !(i % 5 === 1 && i < 150)).map((s) => upserts.find((u) => u.name === s.name) ?? s),
      ...fresh,
    ];
    const index = indexSets(list);
    for (const find of [undefined, (name: string, type: RecordSet['type']) => index.get(name)?.get(type)])
      expect(afterChanges(list, [{ upserts: [...upserts, ...fresh], deletes }], find)).to.deep.equal(expected);
  });

  it('null when the index given names a set the list does not hold (an index of another version): the zone is read whole', () => {
    const other = a('y.example', '192.0.2.99');
    const find = (name: string) => (name === 'y.example' ? other : undefined);
    expect(afterChanges([x, y, z], [{ upserts: [a('y.example', '192.0.2.20')], deletes: [] }], find)).to.equal(null);
    const many = Array.from({ length: 40 }, (_, i) => a(`m${i}.example`, '192.0.2.1'));
    const strangers = new Map(many.map((s) => [s.name, { ...s }]));
    const upserts = many.map((s) => a(s.name, '192.0.2.2'));
    expect(afterChanges(many, [{ upserts, deletes: [] }], (name) => strangers.get(name))).to.equal(null);
  });

  it('removes only the type named: another type of the same name stays', () => {
    const txt: RecordSet = { name: 'x.example', type: 'TXT', ttl: 300, values: ['"v"'] };
    expect(afterChanges([x, txt], [{ upserts: [], deletes: [{ name: 'x.example', type: 'A' }] }])).to.deep.equal([txt]);
  });
});

/**
 * Issue 22: a DNS worker that serves a large zone builds the next version from its own and the commit's
 * change (the store's change log), so a one-change apply does not read the zone's 100,000 sets again.
 */
eachStore('ZoneSync: changes from the change log', (kind) => {
  let api: TestApi;
  let zones: ZoneRepository;
  const name = 'change-log-sync.example';
  let zone: StoredZone;
  const calls = { whole: [] as string[][], since: 0 };
  let dns: EmbeddedNameserver;
  let sync: ZoneSync;

  /** The repository as the sync sees it, counting whole reads and change-log reads. */
  const counting = (): ZoneRepository => {
    const counted = Object.create(zones) as ZoneRepository;
    counted.findByIds = async (ids) => {
      calls.whole.push([...ids]);
      return zones.findByIds(ids);
    };
    counted.changesSince = async (id, from) => {
      calls.since++;
      return zones.changesSince(id, from);
    };
    return counted;
  };
  const answer = async (host: string): Promise<unknown[]> =>
    ((await udpQuestion(dns.address().port, host, 'A')).answers ?? []).map((r) => (r as { data: unknown }).data);
  const commit = async (upserts: RecordSet[], deletes: Array<{ name: string; type: RecordSet['type'] }> = []): Promise<void> => {
    const zs = api.system.get(TOKENS.ZoneService);
    const current = (await zones.find(api.demo.accountId, 'test', name))!;
    zone = await api.system.store.uow.transaction(() => zs.commit(current, upserts, deletes));
  };

  before(async () => {
    api = await startApi(kind);
    zones = api.system.store.zones;
    const zs = api.system.get(TOKENS.ZoneService);
    zone = await api.system.store.uow.transaction(() => zs.createHosted(api.demo.accountId, 'test', name));
    await api.system.store.uow.transaction(() => zs.serve(api.demo.accountId, 'test', name, true));
    // 1,200 sets in one commit: compiled (not dormant), with a base kept; too large a change to log.
    await commit(Array.from({ length: 1200 }, (_, i) => a(`h${i}.${name}`, `10.0.${i >> 8}.${i & 255}`)));
    dns = new EmbeddedNameserver({ host: '127.0.0.1', port: 0, axfrAllow: [], secondaries: [] });
    await dns.start();
    sync = new ZoneSync(counting(), dns, pino({ level: 'silent' }), { bases: dns });
    await sync.load();
  });
  after(async () => {
    sync.stop();
    await dns.stop();
    await api.close();
  });

  it('one set changed and one removed: the zone is built from the served version and the logged change, never read whole', async () => {
    calls.whole.length = 0;
    const built = { ...dns.signatures.built };
    await commit([a(`h1.${name}`, '192.0.2.77'), a(`new.${name}`, '192.0.2.78')], [{ name: `h2.${name}`, type: 'A' }]);
    await sync.load();
    expect(calls.whole).to.deep.equal([]);
    expect(dns.signatures.built.incremental).to.equal(built.incremental + 1);
    expect(await answer(`h1.${name}`)).to.deep.equal(['192.0.2.77']);
    expect(await answer(`new.${name}`)).to.deep.equal(['192.0.2.78']);
    expect(await answer(`h2.${name}`)).to.deep.equal([]);
    expect(await answer(`h3.${name}`)).to.deep.equal(['10.0.0.3']);
    const soa = (await udpQuestion(dns.address().port, name, 'SOA')).answers![0] as { data: { serial: number } };
    expect(soa.data.serial).to.equal(zone.serial);
  });

  it('several commits since the last sync: each is followed in order', async () => {
    calls.whole.length = 0;
    await commit([a(`h4.${name}`, '192.0.2.1')]);
    await commit([a(`h4.${name}`, '192.0.2.2'), a(`h5.${name}`, '192.0.2.5')]);
    await commit([], [{ name: `h5.${name}`, type: 'A' }]);
    await sync.load();
    expect(calls.whole).to.deep.equal([]);
    expect(await answer(`h4.${name}`)).to.deep.equal(['192.0.2.2']);
    expect(await answer(`h5.${name}`)).to.deep.equal([]);
  });

  it('a change too large to log (more than 1,000 sets) is read whole, and served the same', async () => {
    calls.whole.length = 0;
    await commit(Array.from({ length: 1001 }, (_, i) => a(`big${i}.${name}`, '192.0.2.9')));
    await sync.load();
    expect(calls.whole).to.deep.equal([[zone.id]]);
    expect(await answer(`big1000.${name}`)).to.deep.equal(['192.0.2.9']);
    // The next small change follows the log again, from the version that whole read built.
    calls.whole.length = 0;
    await commit([a(`big0.${name}`, '192.0.2.10')]);
    await sync.load();
    expect(calls.whole).to.deep.equal([]);
    expect(await answer(`big0.${name}`)).to.deep.equal(['192.0.2.10']);
  });

  it('a chain the log no longer holds (a row gone) is read whole, and served the same', async () => {
    calls.whole.length = 0;
    const from = zone.serial;
    await commit([a(`h6.${name}`, '192.0.2.6')]);
    await api.system.store.knex('dns_zone_changes').where({ zone_id: zone.id, base_serial: from }).delete();
    expect(await zones.changesSince(zone.id, from)).to.equal(null);
    await sync.load();
    expect(calls.whole).to.deep.equal([[zone.id]]);
    expect(await answer(`h6.${name}`)).to.deep.equal(['192.0.2.6']);
  });

  it('changesSince: none when the zone is still at the serial, the chain in order, null for a zone gone', async () => {
    const head = (await zones.head(api.demo.accountId, 'test', name))!;
    expect(await zones.changesSince(zone.id, head.serial)).to.deep.equal({ head, changes: [] });
    await commit([a(`h7.${name}`, '192.0.2.7')]);
    const first = zone.serial;
    await commit([], [{ name: `h7.${name}`, type: 'A' }]);
    const read = (await zones.changesSince(zone.id, head.serial))!;
    expect(read.head.serial).to.equal(zone.serial);
    expect(read.changes.map((c) => c.serial)).to.deep.equal([first, zone.serial]);
    expect(read.changes[0]!.upserts.filter((s) => s.type === 'A')).to.deep.equal([a(`h7.${name}`, '192.0.2.7')]);
    expect(read.changes[0]!.upserts.map((s) => s.type)).to.include('SOA'); // the new serial's SOA is part of the change
    expect(read.changes[1]!.deletes).to.deep.equal([{ name: `h7.${name}`, type: 'A' }]);
    expect(await zones.changesSince('no-such-zone', 1)).to.equal(null);
  });

  it('a commit removes the zone’s logged changes older than five minutes', async () => {
    const head = (await zones.head(api.demo.accountId, 'test', name))!;
    const knex = api.system.store.knex;
    await knex('dns_zone_changes')
      .where({ zone_id: zone.id })
      .update({ created_at: new Date(Date.now() - 6 * 60_000).toISOString() });
    const old = Number((await knex('dns_zone_changes').where({ zone_id: zone.id }).count({ n: '*' }))[0]!.n);
    expect(old).to.be.greaterThan(0);
    expect(await zones.commit(zone.id, head.serial, head.serial + 1, [a(`h8.${name}`, '192.0.2.8')], [], new Date())).to.equal(true);
    const left = await knex('dns_zone_changes').where({ zone_id: zone.id }).select('base_serial');
    expect(left.map((r: { base_serial: string | number }) => Number(r.base_serial))).to.deep.equal([head.serial]);
  });

  it('a zone keeps its last 16 commits at most: a reader further behind reads the whole zone', async () => {
    const knex = api.system.store.knex;
    const from = zone.serial;
    for (let i = 0; i < 20; i++) await commit([a(`k${i}.${name}`, '192.0.2.11')]);
    const rows = await knex('dns_zone_changes').where({ zone_id: zone.id }).select('base_serial');
    expect(rows).to.have.length(16);
    expect(await zones.changesSince(zone.id, from)).to.equal(null); // 20 behind
    const read = (await zones.changesSince(zone.id, zone.serial - 10))!;
    expect(read.changes.map((c) => c.serial)).to.deep.equal(Array.from({ length: 10 }, (_, i) => zone.serial - 9 + i));
  });

  it('a name with a zone in each environment: one environment’s sync never builds on the other’s version (the signer holds both by name)', async () => {
    const zs = api.system.get(TOKENS.ZoneService);
    const shared = 'both-envs.example';
    const made: Record<'live' | 'test', StoredZone> = {} as never;
    for (const env of ['live', 'test'] as const) {
      await api.system.store.uow.transaction(() => zs.createHosted(api.demo.accountId, env, shared));
      await api.system.store.uow.transaction(() => zs.serve(api.demo.accountId, env, shared, true));
      const z = (await zones.find(api.demo.accountId, env, shared))!;
      made[env] = await api.system.store.uow.transaction(() =>
        zs.commit(z, [a(`${env}-only.${shared}`, env === 'live' ? '192.0.2.1' : '198.51.100.1')], []),
      );
    }
    expect(made.live.serial).to.equal(made.test.serial); // the same day's serials: in step
    // One ZoneSignatures for both syncs, as the signer of a cluster with sandbox DNS had it.
    const signatures = dns.signatures;
    const published: StoredZone[] = [];
    const target = {
      publish: async (z: StoredZone) => {
        published.push(z);
        await signatures.compile(z, () => undefined);
      },
      withdraw: async (d: string) => signatures.forget(d),
    };
    const syncs = (['live', 'test'] as const).map(
      (only) => new ZoneSync(zones, target as never, pino({ level: 'silent' }), { only, bases: { baseOf: (d) => signatures.baseOf(d) } }),
    );
    await syncs[1]!.load();
    await syncs[0]!.load(); // live's version compiled last: the one held by name
    published.length = 0;
    const test = (await zones.find(api.demo.accountId, 'test', shared))!;
    await api.system.store.uow.transaction(() => zs.commit(test, [a(`new.${shared}`, '198.51.100.9')], []));
    await syncs[1]!.load();
    const mine = published.filter((z) => z.domain === shared);
    expect(mine).to.have.length(1);
    expect(mine[0]!.id).to.equal(test.id);
    const names = mine[0]!.recordSets.map((r) => r.name);
    expect(names).to.include.members([`test-only.${shared}`, `new.${shared}`]);
    expect(names).to.not.include(`live-only.${shared}`);
    for (const env of ['live', 'test'] as const) await api.system.store.uow.transaction(() => zs.remove(api.demo.accountId, env, shared));
  });

  it('a signer (signedOnly) never reads an unsigned zone’s sets: it withdraws it', async () => {
    calls.whole.length = 0;
    const seen = { published: [] as string[], withdrawn: [] as string[] };
    const signer = new ZoneSync(
      counting(),
      {
        publish: async (z) => void seen.published.push(z.domain),
        withdraw: async (d) => void seen.withdrawn.push(d),
      },
      pino({ level: 'silent' }),
      { signedOnly: true },
    );
    await signer.load();
    // Only signed zones are read whole (none of this store, but for any the demo signs).
    const read = calls.whole.flat();
    expect(read).to.not.include(zone.id);
    for (const h of await zones.headsByIds(read)) expect(h.signing, h.domain).to.not.equal(undefined);
    expect(seen.published).to.deep.equal([]);
    // At start the signer holds nothing: there is nothing to withdraw.
    expect(seen.withdrawn).to.deep.equal([]);
    // A change to an unsigned zone: withdrawn (the signer keeps nothing of it), still not read.
    seen.withdrawn.length = 0;
    await commit([a(`h9.${name}`, '192.0.2.9')]);
    await signer.load();
    expect(calls.whole).to.deep.equal([]);
    expect(seen.withdrawn).to.deep.equal([name]);
  });
});
