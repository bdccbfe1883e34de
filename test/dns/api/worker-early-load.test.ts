import { expect } from 'chai';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { SqlDnsStore } from '../../../adapters/sql/dns-store.js';
import type { ZoneRepository } from '../../../core/dns/ports/zone-repository.port.js';
import type { RecordSet } from '../../../core/dns/zone/record-set.js';
import { serveDns, type DnsServing } from '../../../src/dns-server.js';
import { System } from '../../../src/system.js';
import { TOKENS } from '../../../src/tokens.js';
import { eachStore, type FreshStore } from '../../support/stores.js';
import { testConfig } from '../../support/system.js';
import { udpQuestion } from '../server/tools.js';

const a = (name: string, ip: string): RecordSet => ({ name, type: 'A', ttl: 300, values: [ip] });
const NAMES = ['early-0.example', 'early-1.example', 'early-2.example'];

/**
 * A DNS worker of `npm start` reads the zones of a store that exists while the API process loads its code and
 * migrates (src/main/dns-worker.ts: `hold`), and serves once told to start. What it read is kept when no
 * migration came in between — brought up to date by one more load, which reads only what changed — and
 * thrown away for a load from nothing otherwise, or when the early read failed (a store not migrated yet).
 * The proof that a kept read was kept: a change made behind the store's change log (plain SQL) is not seen
 * after a kept read, and is seen after a dropped one.
 */
eachStore('DNS worker: the zones read before the start, kept or read again', (kind) => {
  let store: FreshStore;
  let system: System;
  let dir: string;
  let serving: DnsServing | null = null;
  const reads: number[] = [];

  /** The store's zones, counting the zones read whole (findByIds) by each call. */
  const counting = (zones: ZoneRepository): ZoneRepository => {
    const counted = Object.create(zones) as ZoneRepository;
    counted.findByIds = async (ids) => {
      reads.push(ids.length);
      return zones.findByIds(ids);
    };
    return counted;
  };

  const openSystem = async (): Promise<void> => {
    system = await System.create(testConfig(store, { VAR_DIR: dir }), { logger: pino({ level: 'silent' }) });
    await system.migrate();
    const zs = system.get(TOKENS.ZoneService);
    const demo = (await system.get(TOKENS.SeedDemo).execute())!;
    for (const [i, name] of NAMES.entries()) {
      await system.store.uow.transaction(() => zs.createHosted(demo.accountId, 'test', name));
      await system.store.uow.transaction(() => zs.serve(demo.accountId, 'test', name, true));
      const zone = (await system.store.zones.find(demo.accountId, 'test', name))!;
      await system.store.uow.transaction(() => zs.commit(zone, [a(`www.${name}`, `192.0.2.${i + 1}`)], []));
    }
    accountId = demo.accountId;
  };
  let accountId = '';

  /** Starts a worker's DNS server whose hold is answered by the test: `called` resolves when it waits. */
  const startWorker = (dns: SqlDnsStore, workerIndex = 1) => {
    let called!: () => void;
    const waiting = new Promise<void>((r) => (called = r));
    let answer!: (stands: boolean) => void;
    const gate = new Promise<boolean>((r) => (answer = r));
    const served = serveDns({
      config: testConfig(store, { VAR_DIR: dir }),
      zones: Object.assign(counting(dns.zones), { catalogSerial: () => dns.zones.catalogSerial() }),
      signatures: dns.signatures,
      changes: dns.changes,
      log: pino({ level: 'silent' }),
      workerIndex,
      overrides: { host: '127.0.0.1', port: 0 },
      hold: async () => {
        called();
        return gate;
      },
    }).then((s) => (serving = s));
    return { waiting, answer, served };
  };

  const www = async (name: string): Promise<string> => {
    const port = (serving!.publisher as unknown as { address(): { port: number } }).address().port;
    const r = await udpQuestion(port, `www.${name}`, 'A');
    return (r.answers ?? []).map((x) => String((x as { data: unknown }).data)).join(',') || r.rcode!;
  };

  /** A change the store's change log does not name (as a hand-made fix in SQL would be). */
  const behindTheLog = async (name: string, ip: string): Promise<void> => {
    const zone = (await system.store.zones.find(accountId, 'test', name))!;
    await system.store
      .knex('dns_record_sets')
      .where({ zone_id: zone.id, name: `www.${name}`, type: 'A' })
      .update({ record_values: JSON.stringify([ip]) });
  };

  /** Runs `body` with the DNS part of the store open (the system migrated and seeded first when `migrated`); the worker it starts stops after. */
  const withDnsStore = async (migrated: boolean, body: (dns: SqlDnsStore) => Promise<void>): Promise<void> => {
    if (migrated) await openSystem();
    const dns = new SqlDnsStore(store.connection);
    try {
      await body(dns);
    } finally {
      await serving?.stop();
      serving = null;
      await dns.close();
    }
  };
  const zonesRead = (): number => reads.reduce((s, n) => s + n, 0);

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'domivka-early-'));
    store = await kind.fresh();
    reads.length = 0;
  });
  afterEach(async () => {
    await serving?.stop();
    serving = null;
    await system?.close();
    await store.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a store that does not exist yet has no mark (and is not made); migrated, its mark is stable until a migration', async () => {
    const dns = new SqlDnsStore(store.connection);
    try {
      expect(await dns.schemaMark()).to.equal(null);
      if (store.engine === 'sqlite') expect(existsSync(store.url)).to.equal(false);
      await openSystem();
      const mark = await dns.schemaMark();
      expect(mark).to.match(/^\d+\/\d+$/);
      expect(await dns.schemaMark()).to.equal(mark);
      // A migration applied (as knex records one) changes it.
      await system.store.knex('knex_migrations').insert({ name: '29991231000000_next.js', batch: 99, migration_time: new Date() });
      expect(await dns.schemaMark()).to.not.equal(mark);
    } finally {
      await dns.close();
    }
  });

  it('no migration since: the early read is kept and brought up to date, reading only the zone that changed', async () => {
    await withDnsStore(true, async (dns) => {
      const w = startWorker(dns);
      await w.waiting;
      const early = zonesRead();
      expect(early).to.be.greaterThanOrEqual(NAMES.length);
      // Meanwhile: a change through the service (the change log names it), and one behind the log.
      const zs = system.get(TOKENS.ZoneService);
      const zone = (await system.store.zones.find(accountId, 'test', NAMES[0]!))!;
      await system.store.uow.transaction(() => zs.commit(zone, [a(`www.${NAMES[0]}`, '198.51.100.10')], []));
      await behindTheLog(NAMES[1]!, '198.51.100.11');
      w.answer(true);
      await w.served;
      expect(reads.slice(-1)).to.deep.equal([1]);
      expect(zonesRead()).to.equal(early + 1);
      expect(await www(NAMES[0]!)).to.equal('198.51.100.10');
      expect(await www(NAMES[1]!), 'the kept read serves what it read').to.equal('192.0.2.2');
      expect(await www(NAMES[2]!)).to.equal('192.0.2.3');
    });
  });

  it('worker 0 writes the zone snapshot only once it serves, never while it holds', async () => {
    const file = join(dir, 'dns-zones-all.snapshot');
    await withDnsStore(true, async (dns) => {
      const w = startWorker(dns, 0);
      await w.waiting;
      // Longer than the snapshot's first-write delay (1 s): what was read may yet be thrown away.
      await new Promise((r) => setTimeout(r, 1500));
      expect(existsSync(file), 'written while holding').to.equal(false);
      w.answer(true);
      await w.served;
      for (let i = 0; i < 50 && !existsSync(file); i++) await new Promise((r) => setTimeout(r, 20));
      expect(existsSync(file)).to.equal(true);
    });
  });

  it('a migration since: everything is read again, from nothing', async () => {
    await withDnsStore(true, async (dns) => {
      const w = startWorker(dns);
      await w.waiting;
      const early = zonesRead();
      await behindTheLog(NAMES[1]!, '198.51.100.11');
      w.answer(false);
      await w.served;
      expect(zonesRead()).to.equal(2 * early);
      expect(await www(NAMES[1]!)).to.equal('198.51.100.11');
      expect(await www(NAMES[0]!)).to.equal('192.0.2.1');
    });
  });

  it('an early read that failed (the store not migrated yet) is followed by a load once the store is', async () => {
    await withDnsStore(false, async (dns) => {
      // A store whose tables are not there yet (the mark aside, which the worker checks first: here it
      // starts regardless, as a worker would that raced a first migration).
      const w = startWorker(dns);
      await w.waiting;
      await openSystem();
      w.answer(true);
      await w.served;
      expect(await www(NAMES[2]!)).to.equal('192.0.2.3');
    });
  });
});
