import { expect } from 'chai';
import dnsPacket from 'dns-packet';
import pino from 'pino';
import { catalogZone } from '../../../adapters/dns/catalog.js';
import { checkZone, CompactNodes, compaction, compileZone, type CompiledZone } from '../../../adapters/dns/embedded/compiled-zone.js';
import { EmbeddedNameserver } from '../../../adapters/dns/embedded/index.js';
import type { Zone } from '../../../core/dns/zone/zone.js';
import { prng } from '../../support/prng.js';

/**
 * A large zone of one-record names (a catalog zone, RFC 9432: one PTR a member) is held compactly
 * (compiled-zone.ts CompactNodes): every answer, AXFR and IXFR must be octet for octet the one a server
 * holding it as plain ZoneNodes sends, version after version as members come and go (the incremental
 * build lays its overlay over the compact names, and compacts them again once the overlay has grown).
 */
const CATALOG = 'catalog.domivka.invalid';
const MEMBERS = 700; // above compaction.minNames

const server = (): EmbeddedNameserver =>
  new EmbeddedNameserver({
    host: '127.0.0.1',
    port: 0,
    axfrAllow: ['127.0.0.1'],
    secondaries: [],
    logger: pino({ level: 'silent' }),
    ixfrJournal: 20,
  });

/** Publishes with the names held plain (compaction off) or as the server holds them by default. */
const publish = async (ns: EmbeddedNameserver, zone: Zone, plain: boolean): Promise<void> => {
  const was = { ...compaction };
  if (plain) compaction.minNames = Number.MAX_SAFE_INTEGER;
  try {
    await ns.publish(zone);
  } finally {
    Object.assign(compaction, was);
  }
};

const query = (name: string, type: string, serial?: number): Buffer =>
  dnsPacket.encode({
    type: 'query',
    id: 4242,
    flags: 0,
    questions: [{ name, type: type as dnsPacket.RecordType, class: 'IN' }],
    ...(serial === undefined
      ? {}
      : {
          authorities: [
            {
              name,
              type: 'SOA',
              class: 'IN',
              ttl: 0,
              data: { mname: 'invalid.', rname: 'invalid.', serial, refresh: 0, retry: 0, expire: 0, minimum: 0 },
            },
          ],
        }),
  });

const held = (ns: EmbeddedNameserver): CompiledZone['nodes'] =>
  ((ns as unknown as { zones: Map<string, CompiledZone> }).zones.get(CATALOG) as CompiledZone).nodes;

describe('DNS: a large zone of one-record names held compactly answers, transfers and journals as a plain one', function () {
  this.timeout(120_000);

  it(`a catalog of ${MEMBERS} members, 40 versions: every answer, AXFR and IXFR the same octets`, async () => {
    const r = prng(7);
    const compact = server();
    const plain = server();
    const members = new Set<string>();
    for (let i = 0; i < MEMBERS; i++) members.add(`member-${i}.example.com`);
    let next = MEMBERS;
    const serials: number[] = [];
    for (let serial = 1; serial <= 40; serial++) {
      if (serial > 1) {
        // A few come and go; every tenth version many (compiled whole); from 11 to 19 fifty a version, each
        // built incrementally, so that the overlay grows past its limit (256 names) and is compacted again.
        const changes = serial % 10 === 0 ? 300 : serial > 10 && serial < 20 ? 50 : 1 + Math.floor(r() * 4);
        for (let i = 0; i < changes; i++) {
          if (r() < 0.5) members.add(`member-${next++}.example.com`);
          else {
            const list = [...members];
            members.delete(list[Math.floor(r() * list.length)]!);
          }
        }
      }
      const zone = catalogZone(CATALOG, serial, members);
      await publish(compact, zone, false);
      await publish(plain, zone, true);
      serials.push(serial);
      // Compiled whole at first (later versions: an overlay over the names it was built from).
      if (serial === 1) {
        expect(held(compact)).to.be.instanceOf(CompactNodes);
        expect(held(plain)).to.be.instanceOf(Map);
      }

      const list = [...members];
      const questions: Array<[string, string, number?]> = [
        [CATALOG, 'AXFR'],
        [CATALOG, 'SOA'],
        [CATALOG, 'NS'],
        [CATALOG, 'ANY'],
        [`version.${CATALOG}`, 'TXT'],
        [`version.${CATALOG}`, 'A'],
        [`zones.${CATALOG}`, 'PTR'],
        [`nothere.zones.${CATALOG}`, 'PTR'],
        ...serials.slice(-6).map((s): [string, string, number] => [CATALOG, 'IXFR', s]),
      ];
      const names = new Map((zone.recordSets as Zone['recordSets']).map((rs) => [rs.name, rs]));
      for (let i = 0; i < 30; i++) {
        const m = list[Math.floor(r() * list.length)]!;
        const owner = [...names.values()].find((rs) => rs.type === 'PTR' && rs.values[0] === `${m}.`)!.name;
        questions.push([owner, 'PTR'], [owner, 'ANY'], [owner, 'TXT'], [`x.${owner}`, 'PTR']);
      }
      for (const [name, type, from] of questions) {
        for (const transport of ['udp', 'tcp'] as const) {
          if (transport === 'udp' && (type === 'AXFR' || type === 'IXFR')) continue;
          const q = query(name, type, from);
          const a = compact.answer(q, transport, '127.0.0.1');
          const b = plain.answer(q, transport, '127.0.0.1');
          expect(a.length, `${name} ${type} ${from ?? ''} ${transport}`).to.be.above(0);
          expect(Buffer.concat(a).equals(Buffer.concat(b)), `${name} ${type} ${from ?? ''} ${transport}, version ${serial}`).to.equal(true);
        }
      }
    }
    // Built from the last version but where a version changed too much (every tenth: 300 members).
    expect(compact.signatures.built).to.deep.equal({ incremental: 35, full: 5 });
    expect(plain.signatures.built).to.deep.equal({ incremental: 35, full: 5 });
    // The journal answered IXFRs with the changes, not the whole zone: the same span on both.
    expect(compact.journalSpan(CATALOG)).to.deep.equal(plain.journalSpan(CATALOG));
    expect(compact.journalSpan(CATALOG)!.diffs).to.be.above(0);
    expect(compact.stats().internalErrors).to.equal(0);
  });

  it('a zone published to sleep is checked as a compile would: the same sets skipped, serial, record count and refusal', () => {
    const sets: Zone['recordSets'] = [
      { name: 'chk.test', type: 'SOA', ttl: 3600, values: ['ns1.x.net. h.x.net. 77 3600 600 1209600 300'] },
      { name: 'chk.test', type: 'NS', ttl: 3600, values: ['ns1.x.net.', 'ns1.x.net.'] },
      { name: 'www.chk.test', type: 'A', ttl: 300, values: ['192.0.2.1', '192.0.2.2'] },
      { name: 'www.chk.test', type: 'A', ttl: 300, values: ['192.0.2.3'] },
      { name: 'bad.chk.test', type: 'A', ttl: 300, values: ['not an address'] },
      { name: 'out.other.test', type: 'TXT', ttl: 300, values: ['outside'] },
      { name: 'sub.chk.test', type: 'SOA', ttl: 300, values: ['ns1.x.net. h.x.net. 1 3600 600 1209600 300'] },
      { name: 'ttl.chk.test', type: 'TXT', ttl: -1, values: ['negative'] },
      { name: 'MiXeD.chk.test.', type: 'TXT', ttl: 60, values: ['kept'] },
    ];
    const zone: Zone = { domain: 'Chk.test.', serial: 5, recordSets: sets };
    const skipped = { check: [] as string[], compile: [] as string[] };
    const checked = checkZone(zone, (reason, set) => skipped.check.push(`${set.name} ${set.type}: ${reason}`));
    const compiled = compileZone(zone, (reason, set) => skipped.compile.push(`${set.name} ${set.type}: ${reason}`));
    expect(skipped.check).to.deep.equal(skipped.compile);
    expect(skipped.check).to.have.length(5);
    expect(checked).to.deep.equal({ apex: compiled.apex, serial: compiled.serial, recordCount: compiled.recordCount });
    // Checked again (its values remembered, refusals included), and as another zone holding the same values
    // (a value written in other case is the same record): the same outcome.
    const again: string[] = [];
    expect(checkZone(zone, (reason, set) => again.push(`${set.name} ${set.type}: ${reason}`))).to.deep.equal(checked);
    expect(again).to.deep.equal(skipped.check);
    const upper: Zone = {
      ...zone,
      recordSets: [...sets, { name: 'ns.chk.test', type: 'NS', ttl: 60, values: ['NS1.X.NET.', 'ns1.x.net'] }],
    };
    const upperSkipped: string[] = [];
    expect(checkZone(upper, (reason, set) => upperSkipped.push(`${set.name} ${set.type}: ${reason}`)).recordCount).to.equal(
      compileZone(upper, () => undefined).recordCount,
    );
    expect(upperSkipped).to.deep.equal(skipped.check);
    const bare: Zone = { domain: 'chk.test', serial: 1, recordSets: sets.slice(1) };
    expect(() => checkZone(bare, () => undefined)).to.throw(TypeError, /has no SOA/);
    expect(() => compileZone(bare, () => undefined)).to.throw(TypeError, /has no SOA/);
  });
});
