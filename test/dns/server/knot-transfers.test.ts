import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { EmbeddedNameserver } from '../../../adapters/dns/embedded/index.js';
import { soaValue, type RecordSet } from '../../../core/dns/zone/record-set.js';
import type { Zone } from '../../../core/dns/zone/zone.js';
import { freePort, kdig, knotSecondaryConf, rdata, requireTools, startServer, waitFor, runKnotd, type Knotd } from './tools.js';

/**
 * Zone transfers held against Knot as a secondary of our server: what Knot ends up serving must be
 * what we serve (every record, compared by AXFR from both), and our AXFR must be about as compact as
 * the one Knot sends for the same zone.
 */

/** ~1,500 records the way a busy zone looks: hosts with A and AAAA, MX, CNAMEs, TXT, SRV and a delegation. */
const bigZone = (serial: number): Zone => {
  const apex = 'big.test';
  const sets: RecordSet[] = [
    { name: apex, type: 'SOA', ttl: 3600, values: [soaValue(serial)] },
    { name: apex, type: 'NS', ttl: 3600, values: ['ns1.big.test.', 'ns2.big.test.'] },
    { name: apex, type: 'MX', ttl: 3600, values: ['10 mx1.big.test.', '20 mx2.big.test.'] },
    { name: apex, type: 'TXT', ttl: 3600, values: ['v=spf1 mx -all'] },
    { name: 'ns1.big.test', type: 'A', ttl: 3600, values: ['192.0.2.53'] },
    { name: 'ns2.big.test', type: 'A', ttl: 3600, values: ['198.51.100.53'] },
    { name: 'mx1.big.test', type: 'A', ttl: 3600, values: ['192.0.2.25'] },
    { name: 'mx2.big.test', type: 'A', ttl: 3600, values: ['198.51.100.25'] },
    { name: 'sub.big.test', type: 'NS', ttl: 3600, values: ['ns.sub.big.test.', 'ns.elsewhere.example.'] },
    { name: 'ns.sub.big.test', type: 'A', ttl: 3600, values: ['192.0.2.54'] },
  ];
  for (let i = 0; i < 300; i++) {
    const host = `host${i}.${i % 3 === 0 ? 'office.' : ''}big.test`;
    sets.push({ name: host, type: 'A', ttl: 300, values: [`10.${i >> 8}.${i & 255}.1`, `10.${i >> 8}.${i & 255}.2`] });
    sets.push({ name: host, type: 'AAAA', ttl: 300, values: [`2001:db8:${i.toString(16)}::1`] });
    sets.push({ name: `www${i}.big.test`, type: 'CNAME', ttl: 300, values: [`${host}.`] });
    sets.push({ name: host, type: 'MX', ttl: 300, values: [`10 mx1.big.test.`] });
  }
  for (let i = 0; i < 40; i++)
    sets.push({ name: `_sip._tcp.s${i}.big.test`, type: 'SRV', ttl: 300, values: [`10 5 5060 host${i}.big.test.`] });
  return { domain: apex, serial, recordSets: sets };
};

const rollZone = (serial: number, www: string): Zone => ({
  domain: 'roll.test',
  serial,
  recordSets: [
    { name: 'roll.test', type: 'SOA', ttl: 3600, values: [soaValue(serial)] },
    { name: 'roll.test', type: 'NS', ttl: 3600, values: ['ns1.domivka.net.'] },
    { name: 'www.roll.test', type: 'A', ttl: 300, values: [www] },
    { name: 'mail.roll.test', type: 'A', ttl: 300, values: [`${www.replace(/\d+$/, '')}25`] },
    { name: 'roll.test', type: 'TXT', ttl: 300, values: [`version ${www}`] },
  ],
});

interface Transfer {
  readonly octets: number;
  readonly messages: number;
  /** Every record, "name ttl class type data", sorted (the SOA once). */
  readonly records: string[];
}

/** `kdig axfr` (over TCP) of `zone` from 127.0.0.1@port: its size, messages and records. */
const axfr = (port: number, zone: string): Promise<Transfer> =>
  new Promise((resolve) => {
    execFile(
      'kdig',
      ['@127.0.0.1', '-p', String(port), '+time=5', '+retry=0', '+noidn', 'AXFR', zone],
      { timeout: 20_000, maxBuffer: 64 * 1024 * 1024 },
      (_err, stdout) => {
        const lines = stdout.split('\n').filter((l) => l.trim() && !l.startsWith(';'));
        const records = [...new Set(lines.map((l) => l.trim().split(/\s+/).join(' ')))].sort();
        const m = /Received (\d+) B \((\d+) messages?, (\d+) records?\)/.exec(stdout);
        resolve({ octets: Number(m?.[1] ?? NaN), messages: Number(m?.[2] ?? NaN), records });
      },
    );
  });

describe('Knot as a secondary: transfers carry the same data, as compactly', function () {
  this.timeout(120_000);
  let ns: EmbeddedNameserver;
  let port: number;
  let knotPort: number;
  let dir: string;
  let knotd: Knotd | undefined;

  const knotSerial = async (zone: string): Promise<number | null> => {
    const soa = rdata((await kdig(knotPort, zone, 'SOA')).answer, 'SOA')[0];
    return soa ? Number(soa.split(/\s+/)[2]) : null;
  };

  before(async function () {
    requireTools(this, 'knotd', 'knotc', 'kdig');
    dir = await mkdtemp(join(tmpdir(), 'domivka-knot-xfr-'));
    knotPort = await freePort();
    ({ ns, port } = await startServer([bigZone(1), rollZone(1000, '192.0.2.10')], {
      secondaries: [{ host: '127.0.0.1', port: knotPort }],
    }));
    const conf = join(dir, 'knot.conf');
    await writeFile(conf, knotSecondaryConf({ dir, knotPort, primaryPort: port, zones: ['big.test', 'roll.test'], transferToLocal: true }));
    knotd = runKnotd(conf);
    const took = await waitFor(async () => (await knotSerial('big.test')) === 1 && (await knotSerial('roll.test')) === 1000, 30_000, 100);
    expect(took, `knotd never served the zones; its log:\n${knotd!.log()}`).to.not.equal(null);
  });

  after(async () => {
    await knotd?.stop();
    await ns?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('AXFR of ~1,500 records: names compressed, within 10% of the octets Knot sends for the same zone, the same records', async () => {
    const ours = await axfr(port, 'big.test');
    const knots = await axfr(knotPort, 'big.test');
    expect(ours.records.length).to.be.greaterThan(1400);
    expect(ours.records).to.deep.equal(knots.records);
    // eslint-disable-next-line no-console
    console.log(`      AXFR big.test: ours ${ours.octets} B in ${ours.messages} messages, Knot ${knots.octets} B in ${knots.messages}`);
    expect(ours.octets, `ours ${ours.octets} B, Knot ${knots.octets} B`).to.be.at.most(knots.octets * 1.1);
    expect(ours.messages).to.be.at.most(knots.messages);
  });

  it('regression: after the serial comes round again (RFC 1982), Knot serves exactly our data under our serial', async () => {
    const A = 1000;
    const B = (A + 2 ** 31 - 1) >>> 0;
    const C = (B + 2 ** 31 - 1) >>> 0; // 998: round the circle, just before A
    const steps: Array<[number, string]> = [
      [B, '192.0.2.11'],
      [C, '192.0.2.12'],
      [A, '192.0.2.10'], // A again, with the data it had the first time
      [B, '192.0.2.14'], // B again: the history from the first A passes B midway, and applies cleanly
      [B + 1, '192.0.2.15'],
    ];
    for (const [serial, www] of steps) {
      await ns.publish(rollZone(serial, www));
      const took = await waitFor(async () => (await knotSerial('roll.test')) === serial, 10_000, 50);
      expect(took, `Knot never reached ${serial}; its log:\n${knotd!.log()}`).to.not.equal(null);
      // The same serial must mean the same data: every record, and the names asked one by one.
      const [ours, knots] = [await axfr(port, 'roll.test'), await axfr(knotPort, 'roll.test')];
      expect(knots.records, `at serial ${serial}`).to.deep.equal(ours.records);
      expect(rdata((await kdig(knotPort, 'www.roll.test', 'A')).answer), `www at ${serial}`).to.deep.equal([www]);
      expect(rdata((await kdig(knotPort, 'roll.test', 'TXT')).answer), `TXT at ${serial}`).to.deep.equal([`"version ${www}"`]);
    }
  });
});
