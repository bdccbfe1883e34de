import { expect } from 'chai';
import pino from 'pino';
import { System } from '../../../src/system.js';
import { TOKENS } from '../../../src/tokens.js';
import { ZoneSync } from '../../../adapters/dns/zone-sync.js';
import { catalogMemberId } from '../../../adapters/dns/catalog.js';
import { EmbeddedNameserver } from '../../../adapters/dns/embedded/index.js';
import { udpQuestion } from '../server/tools.js';
import { eachStore } from '../../support/stores.js';
import { startApi, testConfig, type TestApi } from '../../support/system.js';

const query = (port: number, name: string, type: 'A' | 'SOA' | 'PTR') => udpQuestion(port, name, type);

/** Zones changed by another process (the worker, another API process) reach this server's DNS. */
eachStore('ZoneSync', (kind) => {
  let api: TestApi;
  before(async () => {
    api = await startApi(kind);
  });
  after(async () => api.close());

  it('an unverified hosted zone is served by no server (all zones, or one environment alone as production does), nor listed in the catalog, until it is verified', async () => {
    const zs = api.system.get(TOKENS.ZoneService);
    const name = 'unverified-sync.example';
    const zone = await api.system.store.uow.transaction(() => zs.createHosted(api.demo.accountId, 'test', name));
    const catalogName = 'catalog.sync.invalid';
    const member = `${catalogMemberId(name)}.zones.${catalogName}`;
    const servers = await Promise.all(
      [{}, { only: 'test' as const }].map(async (options) => {
        const dns = new EmbeddedNameserver({ host: '127.0.0.1', port: 0, axfrAllow: [], secondaries: [] });
        await dns.start();
        const catalog = { name: catalogName, version: api.system.store.zones };
        return { dns, sync: new ZoneSync(api.system.store.zones, dns, pino({ level: 'silent' }), { ...options, catalog }) };
      }),
    );
    try {
      for (const { dns, sync } of servers) {
        await sync.load();
        expect(((await query(dns.address().port, name, 'SOA')) as { rcode?: string }).rcode).to.equal('REFUSED');
        expect((await query(dns.address().port, 'domivka-demo.dev', 'SOA')).answers!.length).to.equal(1);
        expect((await query(dns.address().port, member, 'PTR')).answers ?? []).to.have.length(0);
      }
      await api.system.store.uow.transaction(() => zs.serve(api.demo.accountId, 'test', name, true));
      for (const { dns, sync } of servers) {
        await sync.load();
        expect(((await query(dns.address().port, name, 'SOA')) as { rcode?: string }).rcode).to.equal('NOERROR');
        expect((await query(dns.address().port, member, 'PTR')).answers).to.have.length(1);
      }
    } finally {
      for (const { dns, sync } of servers) {
        sync.stop();
        await dns.stop();
      }
      await api.system.store.uow.transaction(() => zs.remove(api.demo.accountId, 'test', zone.domain));
    }
  });

  it('a zone that cannot be published is an error, but a warning in a read before the start (early), and is tried again', async () => {
    const lines: Array<{ level: number; msg: string; zone?: string }> = [];
    const log = pino({ level: 'debug' }, { write: (l: string) => void lines.push(JSON.parse(l)) });
    const dns = new EmbeddedNameserver({ host: '127.0.0.1', port: 0, axfrAllow: [], secondaries: [] });
    let refuse = true;
    const failing = Object.create(dns) as EmbeddedNameserver;
    failing.publish = async (zone) => {
      if (refuse && zone.domain === 'domivka-demo.dev') throw new Error('its key cannot be opened');
      return dns.publish(zone);
    };
    let early = true;
    const sync = new ZoneSync(api.system.store.zones, failing, log, { early: () => early });
    await dns.start();
    try {
      await sync.load();
      const of = () => lines.filter((l) => l.zone === 'domivka-demo.dev').map((l) => [l.level, l.msg]);
      expect(of()).to.deep.equal([[40, 'zone not published in the read before the start']]);
      early = false;
      lines.length = 0;
      await sync.load();
      expect(of()).to.deep.equal([[50, 'zone not published']]);
      refuse = false;
      await sync.load();
      expect((await query(dns.address().port, 'domivka-demo.dev', 'SOA')).answers!.length).to.equal(1);
    } finally {
      sync.stop();
      await dns.stop();
    }
  });

  it('publishes what another process committed, and withdraws what it removed', async () => {
    const dns = new EmbeddedNameserver({ host: '127.0.0.1', port: 0, axfrAllow: [], secondaries: [] });
    await dns.start();
    const sync = new ZoneSync(api.system.store.zones, dns, pino({ level: 'silent' }));
    try {
      await sync.load();
      const port = dns.address().port;
      expect((await query(port, 'www.domivka-demo.dev', 'A')).answers!.map((a) => (a as { data: unknown }).data)).to.deep.equal([
        '192.0.2.10',
      ]);
      // "Another process": a second system on the same store, with no nameserver of its own.
      const other = new System(testConfig(api.store), { logger: pino({ level: 'silent' }) });
      const zs = other.get(TOKENS.ZoneService);
      const zone = (await other.store.zones.find(api.demo.accountId, 'test', 'domivka-demo.dev'))!;
      await other.store.uow.transaction(() =>
        zs.commit(zone, [{ name: 'www.domivka-demo.dev', type: 'A', ttl: 300, values: ['192.0.2.99'] }], []),
      );
      await other.store.uow.transaction(() => zs.remove(api.demo.accountId, 'test', 'domivka-blog.kyiv.ua'));
      await other.close();
      await sync.load();
      expect((await query(port, 'www.domivka-demo.dev', 'A')).answers!.map((a) => (a as { data: unknown }).data)).to.deep.equal([
        '192.0.2.99',
      ]);
      expect(((await query(port, 'domivka-blog.kyiv.ua', 'SOA')) as { rcode?: string }).rcode).to.equal('REFUSED');
    } finally {
      sync.stop();
      await dns.stop();
    }
  });

  it('after the first read, asks the store only for the zones written since (one read, not every zone), and loads only those', async () => {
    const zones = api.system.store.zones;
    const calls = { versions: 0, since: [] as Array<{ complete: boolean; n: number }>, loaded: [] as string[][] };
    // The repository as the sync sees it, counting what it is asked.
    const counted = Object.create(zones) as typeof zones;
    counted.versions = async () => {
      calls.versions++;
      return zones.versions();
    };
    counted.versionsSince = async (mark) => {
      const r = await zones.versionsSince(mark);
      calls.since.push({ complete: r.complete, n: r.versions.length });
      return r;
    };
    counted.findByIds = async (ids) => {
      calls.loaded.push([...ids]);
      return zones.findByIds(ids);
    };
    counted.findById = async () => {
      throw new Error('the sync loads zones in batches');
    };
    const dns = new EmbeddedNameserver({ host: '127.0.0.1', port: 0, axfrAllow: [], secondaries: [] });
    await dns.start();
    const sync = new ZoneSync(counted, dns, pino({ level: 'silent' }));
    try {
      const served = await sync.load();
      expect(calls.since).to.deep.equal([{ complete: true, n: (await zones.versions()).length }]);
      expect(calls.loaded).to.have.length(1); // every zone in one batch
      expect(calls.loaded[0]).to.have.length(served);
      await sync.load();
      expect(calls.since[1]!.complete).to.equal(false);
      // Nothing written since. Postgres's mark is the oldest transaction then running anywhere in the cluster
      // (versionsSince; CI saw one): zones written after it began are listed again, at the version already
      // held, and so not read.
      if (kind.engine === 'sqlite') expect(calls.since[1]!.n).to.equal(0);
      expect(calls.loaded).to.have.length(1); // nothing changed, nothing read

      const zs = api.system.get(TOKENS.ZoneService);
      const zone = (await zones.find(api.demo.accountId, 'test', 'domivka-demo.dev'))!;
      await api.system.store.uow.transaction(() =>
        zs.commit(zone, [{ name: 'www.domivka-demo.dev', type: 'A', ttl: 300, values: ['192.0.2.77'] }], []),
      );
      await sync.load();
      expect(calls.since[2]!.complete).to.equal(false);
      expect(calls.since[2]!.n).to.be.within(1, 2); // the zone written (Postgres may list a zone again)
      expect(calls.loaded.slice(1)).to.deep.equal([[zone.id]]);
      expect(calls.versions).to.equal(0);
      expect(
        (await query(dns.address().port, 'www.domivka-demo.dev', 'A')).answers!.map((a) => (a as { data: unknown }).data),
      ).to.deep.equal(['192.0.2.77']);
    } finally {
      sync.stop();
      await dns.stop();
    }
  });

  it('a write that did not advance change_seq (an older version of the service, a fix made in SQL) is served after the next complete read', async () => {
    const zones = api.system.store.zones;
    const knex = api.system.store.knex;
    const dns = new EmbeddedNameserver({ host: '127.0.0.1', port: 0, axfrAllow: [], secondaries: [] });
    await dns.start();
    const www = async () =>
      (await query(dns.address().port, 'www.domivka-demo.dev', 'A')).answers!.map((a) => (a as { data: unknown }).data);
    // Complete reads only when due: never (a day), then at every load.
    const options = { completeReadMs: 86_400_000 };
    const sync = new ZoneSync(zones, dns, pino({ level: 'silent' }), options);
    try {
      await sync.load();
      const zone = (await zones.find(api.demo.accountId, 'test', 'domivka-demo.dev'))!;
      const before = await www();
      // What an older writer does: the records and the serial move, change_seq does not.
      const row = await knex('dns_record_sets').where({ zone_id: zone.id, name: 'www.domivka-demo.dev', type: 'A' }).first();
      await knex('dns_record_sets')
        .where({ zone_id: zone.id, name: 'www.domivka-demo.dev', type: 'A' })
        .update({ record_values: String(row.record_values).replace(/192\.0\.2\.\d+/, '192.0.2.55') });
      await knex('dns_zones')
        .where({ id: zone.id })
        .update({ serial: zone.serial + 5 });
      await sync.load();
      expect(await www()).to.deep.equal(before); // the incremental read cannot see it
      (options as { completeReadMs: number }).completeReadMs = 0;
      await sync.load();
      expect(await www()).to.deep.equal(['192.0.2.55']);
    } finally {
      sync.stop();
      await dns.stop();
    }
  });

  it('a zone removed between the membership read and the rows read: the read starts again complete (no counter value reused unseen)', async () => {
    const zones = api.system.store.zones;
    const first = await zones.versionsSince(null);
    // The catalog serial moves between the two reads of one call, as a removal by another process would.
    const moving = Object.create(zones) as typeof zones;
    let n = 0;
    moving.catalogSerial = async () => (n++ === 0 ? first.mark.membership : first.mark.membership + 1);
    const again = await moving.versionsSince.call(moving, first.mark);
    expect(again.complete).to.equal(true);
    expect(again.versions.length).to.equal(first.versions.length);
  });

  if (kind.engine === 'postgres')
    it('a zone written by a transaction that commits after a read is found by the next read (Postgres: the mark is the oldest running transaction)', async () => {
      const zones = api.system.store.zones;
      const other = new System(testConfig(api.store), { logger: pino({ level: 'silent' }) });
      let release = (): void => undefined;
      try {
        const first = await zones.versionsSince(null);
        const zone = (await other.store.zones.find(api.demo.accountId, 'test', 'domivka-demo.dev'))!;
        const held = new Promise<void>((r) => (release = r));
        let written!: () => void;
        const wrote = new Promise<void>((r) => (written = r));
        // A writer that commits its new serial only after a reader has read past it.
        const writer = other.store.uow.transaction(async () => {
          await other.store.zones.commit(zone.id, zone.serial, zone.serial + 1, [], [], new Date());
          written();
          await held;
        });
        await wrote;
        const during = await zones.versionsSince(first.mark);
        expect(during.versions.map((v) => v.id)).not.to.include(zone.id);
        // A later writer that commits first: its change_seq is above the first writer's.
        const shop = (await zones.find(api.demo.accountId, 'test', 'domivka-demo.com.ua'))!;
        await zones.commit(shop.id, shop.serial, shop.serial + 1, [], [], new Date());
        const between = await zones.versionsSince(during.mark);
        expect(between.versions.map((v) => v.id)).to.include(shop.id);
        release();
        await writer;
        const after = await zones.versionsSince(between.mark);
        expect(after.complete).to.equal(false);
        expect(after.versions.find((v) => v.id === zone.id)?.serial).to.equal(zone.serial + 1);
      } finally {
        release();
        await other.close();
      }
    });
});
