import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { EmbeddedNameserver } from '../../../adapters/dns/embedded/index.js';
import { ZoneSnapshot } from '../../../adapters/dns/zone-snapshot.js';
import { ZoneSync } from '../../../adapters/dns/zone-sync.js';
import type { ZoneRepository } from '../../../core/dns/ports/zone-repository.port.js';
import type { RecordSet } from '../../../core/dns/zone/record-set.js';
import { TOKENS } from '../../../src/tokens.js';
import { eachStore } from '../../support/stores.js';
import { startApi, type TestApi } from '../../support/system.js';
import { udpQuestion } from '../server/tools.js';

const a = (name: string, ip: string): RecordSet => ({ name, type: 'A', ttl: 300, values: [ip] });

describe('ZoneSnapshot: the file a DNS server keeps its small zones in for its next start', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'domivka-snapshot-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const held = [
    { id: 'z1', domain: 'one.example', serial: 5, stamp: '5/2026-11-27T10:00:00.000Z', text: '[[0,"A",300,["192.0.2.1"]]]', records: 1 },
    { id: 'z2', domain: 'two.example', serial: 7, stamp: '7/2026-11-27T10:00:01.000Z', text: '[[0,"A",300,["192.0.2.1"]]]', records: 1 },
    { id: 'z3', domain: 'three.example', serial: 1, stamp: '1/2026-11-27T10:00:02.000Z', text: '[[0,"TXT",60,["x"]]]', records: 1 },
  ];

  it('gives back a version only for the same zone id, domain, serial and stamp, once; equal texts are written once; only its owner reads it', () => {
    const path = join(dir, 'zones.snapshot');
    expect(new ZoneSnapshot(path).write(held)).to.equal(3);
    expect(readFileSync(path, 'utf8').split('[[0,\\"A\\"').length - 1).to.equal(1);
    expect(statSync(path).mode & 0o777).to.equal(0o600);
    const s = new ZoneSnapshot(path);
    expect(s.read()).to.deep.equal({ zones: 3, problem: null });
    expect(s.take('z1', 'one.example', 6, '6/2026-11-27T10:00:00.000Z')).to.equal(null); // another serial: not that version
    expect(s.take('z1', 'one.example', 5, held[0]!.stamp)).to.equal(null); // taken (and refused) once
    expect(s.take('z2', 'other.example', 7, held[1]!.stamp)).to.equal(null); // another name
    // The same serial made again at another moment (a store restored from a backup): not that version.
    const again = new ZoneSnapshot(path);
    again.read();
    expect(again.take('z2', 'two.example', 7, '7/2026-11-28T09:00:00.000Z')).to.equal(null);
    expect(s.take('z3', 'three.example', 1, held[2]!.stamp)).to.deep.equal({ text: held[2]!.text, records: 1 });
    expect(s.take('z4', 'four.example', 1, undefined)).to.equal(null);
  });

  it('a file that is missing, of another format, altered, cut short or not a snapshot is not used at all', () => {
    const path = join(dir, 'zones.snapshot');
    expect(new ZoneSnapshot(path).read()).to.deep.equal({ zones: 0, problem: null });
    new ZoneSnapshot(path).write(held);
    const good = readFileSync(path, 'utf8');
    const cases: Array<[string, string]> = [
      [good.replace('"format":2', '"format":1'), 'format 1, not 2'],
      [good.replace('192.0.2.1', '192.0.2.9'), 'checksum mismatch'],
      [good.slice(0, good.length - 10), 'checksum mismatch'],
      ['not json\n{}', 'not a snapshot'],
      [`${JSON.stringify({ format: 2, sha256: 'x' })}`, 'not a snapshot'],
    ];
    for (const [text, problem] of cases) {
      writeFileSync(path, text);
      const s = new ZoneSnapshot(path);
      expect(s.read(), problem).to.deep.equal({ zones: 0, problem });
      expect(s.take('z3', 'three.example', 1, held[2]!.stamp)).to.equal(null);
    }
  });
});

/**
 * A DNS worker's start on a large account: the zones the store still names at the serial the snapshot holds
 * are taken from it, not read; the store decides which zones exist, are served and at what serial.
 */
eachStore('ZoneSync with a snapshot', (kind) => {
  let api: TestApi;
  let zones: ZoneRepository;
  let dir: string;
  const names = Array.from({ length: 6 }, (_, i) => `snap-${i}.example`);
  const whole: string[][] = [];

  const counting = (): ZoneRepository => {
    const counted = Object.create(zones) as ZoneRepository;
    counted.findByIds = async (ids) => {
      whole.push([...ids]);
      return zones.findByIds(ids);
    };
    return counted;
  };
  const commit = async (name: string, upserts: RecordSet[], deletes: Array<{ name: string; type: RecordSet['type'] }> = []) => {
    const zs = api.system.get(TOKENS.ZoneService);
    const current = (await zones.find(api.demo.accountId, 'test', name))!;
    await api.system.store.uow.transaction(() => zs.commit(current, upserts, deletes));
  };
  /** A server and its sync on the store, with the snapshot of `dir` (written by it when `write`). */
  const serve = async (write: boolean, snapshot = true) => {
    const dns = new EmbeddedNameserver({ host: '127.0.0.1', port: 0, axfrAllow: [], secondaries: [], answerCache: false });
    const file = new ZoneSnapshot(join(dir, 'dns-zones-all.snapshot'));
    const sync = new ZoneSync(counting(), dns, pino({ level: 'silent' }), {
      bases: dns,
      ...(snapshot ? { snapshot: { file, texts: dns, write } } : {}),
    });
    await sync.load();
    await dns.start();
    return { dns, sync };
  };
  const answer = async (dns: EmbeddedNameserver, host: string, type: 'A' | 'SOA' = 'A'): Promise<string> => {
    const r = await udpQuestion(dns.address().port, host, type);
    return JSON.stringify([r.rcode, (r.answers ?? []).map((x) => [x.name, x.type, (x as { data: unknown }).data])]);
  };

  before(async () => {
    api = await startApi(kind);
    zones = api.system.store.zones;
    dir = mkdtempSync(join(tmpdir(), 'domivka-snapshot-'));
    const zs = api.system.get(TOKENS.ZoneService);
    for (const [i, name] of names.entries()) {
      await api.system.store.uow.transaction(() => zs.createHosted(api.demo.accountId, 'test', name));
      await api.system.store.uow.transaction(() => zs.serve(api.demo.accountId, 'test', name, true));
      await commit(name, [a(`www.${name}`, `192.0.2.${i + 1}`)]);
    }
  });
  after(async () => {
    await api.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes the zones held as texts; the next start takes them from it, reads only what changed since, and answers as a start without it', async () => {
    const first = await serve(true);
    await first.sync.writeSnapshot();
    first.sync.stop();
    await first.dns.stop();
    const ids = new Map<string, string>();
    for (const name of names) ids.set(name, (await zones.head(api.demo.accountId, 'test', name))!.id);

    // Meanwhile: one zone changed (its serial moved), one removed, one no longer served, and one changed under
    // the same serial at another moment — what a store restored from a backup, then changed, holds.
    await commit(names[1]!, [a(`www.${names[1]}`, '198.51.100.1')]);
    const db = api.system.store.uow.db();
    await db('dns_record_sets')
      .where({ zone_id: ids.get(names[4]!), name: `www.${names[4]}`, type: 'A' })
      .update({ record_values: JSON.stringify(['198.51.100.44']) });
    await db('dns_zones')
      .where({ id: ids.get(names[4]!) })
      .update({ updated_at: '2030-01-01T00:00:00.000Z' });
    const zs = api.system.get(TOKENS.ZoneService);
    await api.system.store.uow.transaction(() => zs.remove(api.demo.accountId, 'test', names[2]!));
    await api.system.store.uow.transaction(() => zs.serve(api.demo.accountId, 'test', names[3]!, false));

    whole.length = 0;
    const second = await serve(false);
    const read = whole.flat();
    expect(read).to.include(ids.get(names[1]!));
    expect(read).to.include(ids.get(names[4]!));
    for (const n of [names[0]!, names[5]!]) expect(read).to.not.include(ids.get(n));
    const fresh = await serve(false, false);
    try {
      for (const name of names) {
        for (const host of [name, `www.${name}`])
          for (const type of ['A', 'SOA'] as const)
            expect(await answer(second.dns, host, type), host).to.equal(await answer(fresh.dns, host, type));
      }
      expect(await answer(second.dns, `www.${names[1]}`)).to.include('198.51.100.1');
      expect(await answer(second.dns, `www.${names[4]}`)).to.include('198.51.100.44');
      expect(await answer(second.dns, `www.${names[2]}`)).to.include('"REFUSED"');
      expect(await answer(second.dns, `www.${names[3]}`)).to.include('"REFUSED"');

      // After the start, changes are followed as ever.
      await commit(names[0]!, [a(`www.${names[0]}`, '203.0.113.5')]);
      await second.sync.load();
      expect(await answer(second.dns, `www.${names[0]}`)).to.include('203.0.113.5');
    } finally {
      for (const s of [second, fresh]) {
        s.sync.stop();
        await s.dns.stop();
      }
    }
  });
});
