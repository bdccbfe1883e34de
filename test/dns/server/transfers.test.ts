import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'chai';
import dnsPacket from 'dns-packet';
import type { EmbeddedNameserver } from '../../../adapters/dns/embedded/index.js';
import { soaValue } from '../../../core/dns/zone/record-set.js';
import type { Zone } from '../../../core/dns/zone/zone.js';
import { exampleZone, LONG_TXT } from './fixtures.js';
import { digAxfr, rawUdp, requireTools, startServer } from './tools.js';

const sh = async (cmd: string, args: string[]): Promise<string> => {
  try {
    const { stdout, stderr } = await promisify(execFile)(cmd, args, { timeout: 15_000, maxBuffer: 64 * 1024 * 1024 });
    return stdout + stderr;
  } catch (e) {
    const x = e as { stdout?: string; stderr?: string };
    return `${x.stdout ?? ''}${x.stderr ?? ''}`;
  }
};

/** 4000 A records: more than one 64 KiB transfer message holds, names compressed. */
const bulkZone = (): Zone => ({
  domain: 'bulk.test',
  serial: 7,
  recordSets: [
    { name: 'bulk.test', type: 'SOA', ttl: 3600, values: [soaValue(7)] },
    { name: 'bulk.test', type: 'NS', ttl: 3600, values: ['ns1.domivka.net.', 'ns2.domivka.net.'] },
    ...Array.from({ length: 4000 }, (_, i) => ({
      name: `host${i}.bulk.test`,
      type: 'A' as const,
      ttl: 300,
      values: [`10.0.${i >> 8}.${i & 255}`],
    })),
  ],
});

/** RFC 5936 AXFR and RFC 1995 IXFR (answered AXFR-style), to the allow list only, over TCP only. */
describe('DNS server zone transfers', () => {
  let ns: EmbeddedNameserver;
  let port: number;

  before(async function () {
    requireTools(this, 'dig', 'kdig');
    ({ ns, port } = await startServer([exampleZone(), bulkZone()], { axfrAllow: ['127.0.0.1', '::1'] }));
  });
  after(async () => ns?.stop());

  it('AXFR to an allowed address: the SOA, every record, the SOA again (dig axfr)', async () => {
    const { records } = await digAxfr(port, 'example.test');
    const zone = exampleZone();
    const expected = zone.recordSets.reduce((n, s) => n + s.values.length, 0) + 1; // the SOA twice
    expect(records).to.have.length(expected);
    expect(records[0]!.type).to.equal('SOA');
    expect(records.at(-1)!.type).to.equal('SOA');
    expect(records.filter((r) => r.type === 'SOA')).to.have.length(2);
    // glue below the cut and data at every name travel too
    expect(records.map((r) => `${r.name} ${r.type} ${r.data}`)).to.include.members([
      'ns1.sub.example.test. A 192.0.2.53',
      '*.wild.example.test. A 192.0.2.50',
      'www.example.test. AAAA 2001:db8::1',
    ]);
    const long = records.find((r) => r.name === 'long.example.test.')!;
    expect([...long.data.matchAll(/"([^"]*)"/g)].map((m) => m[1]).join('')).to.equal(LONG_TXT);
  });

  it('a large zone is split into several messages, and nothing is lost', async () => {
    const { records, messages } = await digAxfr(port, 'bulk.test');
    expect(messages).to.be.greaterThan(1);
    expect(records).to.have.length(4000 + 2 + 2);
    expect(new Set(records.filter((r) => r.type === 'A').map((r) => r.name)).size).to.equal(4000);
  });

  it('AXFR from an address outside the allow list is REFUSED (dig -b 127.0.0.2, kdig)', async () => {
    const d = await digAxfr(port, 'example.test', '-b', '127.0.0.2');
    expect(d.records).to.be.empty;
    expect(d.raw).to.include('Transfer failed');
    const k = await sh('kdig', ['@127.0.0.1', '-p', String(port), '-b', '127.0.0.2', '+time=2', 'AXFR', 'example.test']);
    expect(k).to.match(/REFUSED/);
    expect(k).not.to.match(/IN\s+SOA/);
  });

  it('AXFR of a name that is not a zone apex is NOTAUTH', async () => {
    const k = await sh('kdig', ['@127.0.0.1', '-p', String(port), '+time=2', 'AXFR', 'www.example.test']);
    expect(k).to.match(/NOTAUTH/);
  });

  it('AXFR over UDP is FORMERR (RFC 5936 §4.2: TCP only)', async () => {
    const reply = await rawUdp(
      port,
      dnsPacket.encode({ type: 'query', id: 4242, questions: [{ name: 'example.test', type: 'AXFR', class: 'IN' }] }),
    );
    expect(reply).to.not.equal(null);
    const r = dnsPacket.decode(reply!) as dnsPacket.DecodedPacket & { rcode: string };
    expect(r.id).to.equal(4242);
    expect(r.rcode).to.equal('FORMERR');
    expect(r.answers).to.be.empty;
  });

  it('IXFR: a secondary that is current gets the SOA alone; an older one the whole zone, AXFR-style', async () => {
    const current = await sh('dig', ['@127.0.0.1', '-p', String(port), '+time=2', '+tries=1', 'ixfr=2026112100', 'example.test']);
    const currentRecords = current.split('\n').filter((l) => l.trim() && !l.startsWith(';'));
    expect(currentRecords).to.have.length(1);
    expect(currentRecords[0]).to.match(/\sSOA\s.*2026112100/);
    const older = await sh('dig', ['@127.0.0.1', '-p', String(port), '+time=2', '+tries=1', 'ixfr=2026112000', 'example.test']);
    const olderRecords = older.split('\n').filter((l) => l.trim() && !l.startsWith(';'));
    expect(olderRecords.length).to.be.greaterThan(60);
    expect(olderRecords[0]).to.match(/\sSOA\s/);
    expect(olderRecords.at(-1)).to.match(/\sSOA\s/);
  });

  it('the allow list takes CIDR networks', async () => {
    const other = await startServer([exampleZone()], { axfrAllow: ['127.0.0.0/30'] });
    try {
      expect((await digAxfr(other.port, 'example.test', '-b', '127.0.0.2')).records.length).to.be.greaterThan(60);
      expect((await digAxfr(other.port, 'example.test', '-b', '127.0.0.9')).records).to.be.empty;
    } finally {
      await other.ns.stop();
    }
  });
});
