import { expect } from 'chai';
import type { EmbeddedNameserver } from '../../../adapters/dns/embedded/index.js';
import type { RecordSet } from '../../../core/dns/zone/record-set.js';
import { exampleZone } from '../server/fixtures.js';
import { dig, kdig, requireTools, startServer } from '../server/tools.js';
import { query, soaRecord, startKnot, summary, tcp, udp, waitForSerial, type KnotSecondary, type Summary } from './probe.js';

const SERIAL = 2026112400;
const ZONE = 'example.test';

/** Six in-zone name servers with A and AAAA glue: the referral of issue 13, defect 1 (Knot: 427 octets). */
const WIDE: RecordSet[] = [
  { name: 'wide.example.test', type: 'NS', ttl: 3600, values: [1, 2, 3, 4, 5, 6].map((i) => `ns${i}.wide.example.test.`) },
  ...[1, 2, 3, 4, 5, 6].flatMap((i): RecordSet[] => [
    { name: `ns${i}.wide.example.test`, type: 'A', ttl: 3600, values: [`192.0.2.${100 + i}`] },
    { name: `ns${i}.wide.example.test`, type: 'AAAA', ttl: 3600, values: [`2001:db8::${100 + i}`] },
  ]),
  { name: 'sip.example.test', type: 'A', ttl: 300, values: ['192.0.2.60'] },
  { name: 'mail.example.test', type: 'AAAA', ttl: 300, values: ['2001:db8::25'] },
];

/**
 * Our server and a Knot 3.2 secondary of it, serving the same zone, asked the same questions;
 * the parts that must match are compared. One test per conformance defect, one per operator feature.
 */
describe('DNS conformance: our server against a Knot secondary of it', function () {
  this.timeout(90_000);
  let ns: EmbeddedNameserver;
  let plain: EmbeddedNameserver;
  let ours: number;
  let full: number;
  let knot: KnotSecondary;

  before(async function () {
    requireTools(this, 'knotd', 'knotc', 'kdig', 'dig');
    const zone = exampleZone(SERIAL, WIDE);
    ({ ns, port: ours } = await startServer([zone], { nsid: 'domivka-conformance' }));
    // The same zone without the answer cache: every reply the long way, to compare bytes with.
    ({ ns: plain, port: full } = await startServer([zone], { nsid: 'domivka-conformance', answerCache: false }));
    knot = await startKnot({ primaryPort: ours, zones: [ZONE], nsid: 'knot-conformance' });
    const took = await waitForSerial(knot.port, ZONE, SERIAL);
    expect(took, `Knot never served the zone; its log:\n${knot.log()}`).to.not.equal(null);
  });

  after(async () => {
    await knot?.stop();
    await ns?.stop();
    await plain?.stop();
  });

  /** The same UDP packet to both; both must answer. */
  const both = async (packet: Buffer): Promise<{ o: Summary; k: Summary; ob: Buffer; kb: Buffer }> => {
    const [ob, kb] = await Promise.all([udp(ours, packet), udp(knot.port, packet)]);
    expect(ob, 'our reply').to.not.equal(null);
    expect(kb, "Knot's reply").to.not.equal(null);
    return { o: summary(ob!), k: summary(kb!), ob: ob!, kb: kb! };
  };

  const sameContent = (o: Summary, k: Summary): void => {
    expect(o.rcode, 'rcode').to.equal(k.rcode);
    expect(o.aa, 'AA').to.equal(k.aa);
    expect(o.tc, 'TC').to.equal(k.tc);
    expect(o.answer, 'answer').to.deep.equal(k.answer);
    expect(o.authority, 'authority').to.deep.equal(k.authority);
    expect(o.additional, 'additional').to.deep.equal(k.additional);
    expect(o.opt === null, 'OPT presence').to.equal(k.opt === null);
  };

  it('1. name compression (RFC 1035 §4.1.4): a 6-NS referral with glue fits 512 octets, the size of Knot’s', async () => {
    const { o, k } = await both(query('host.wide.example.test', 'A', { edns: false }));
    sameContent(o, k);
    expect(o.authority).to.have.length(6);
    expect(o.additional).to.have.length(12);
    expect(o.size).to.be.at.most(512);
    expect(Math.abs(o.size - k.size), `ours ${o.size} octets, Knot ${k.size}`).to.be.at.most(k.size * 0.05);
    // eslint-disable-next-line no-console
    console.log(`      6-NS referral with glue, no EDNS: ours ${o.size} octets, Knot ${k.size}`);
    // kdig agrees: no TC, the whole referral.
    const r = await kdig(ours, 'host.wide.example.test', 'A');
    expect(r.flags).to.not.include('tc');
    expect(r.additional).to.have.length(12);
    // Names inside MX and SOA data are compressed too.
    for (const [name, type] of [
      [ZONE, 'MX'],
      [ZONE, 'SOA'],
      ['c1.example.test', 'A'],
      ['nothing.example.test', 'A'],
    ] as const) {
      const p = await both(query(name, type));
      sameContent(p.o, p.k);
      expect(p.o.size, `${name} ${type}: ours ${p.o.size}, Knot ${p.k.size}`).to.be.at.most(p.k.size + 8);
    }
  });

  it('1b. the answer cache stays byte-identical to the full path with compression', async () => {
    const probes = [
      query('host.wide.example.test', 'A', { edns: false, id: 1 }),
      query('HOST.Wide.Example.TEST', 'A', { id: 2 }),
      query(ZONE, 'MX', { id: 3 }),
      query('www.EXAMPLE.test', 'AAAA', { id: 4, rd: true }),
      query('x.wild.example.test', 'TXT', { id: 5 }),
      query('a.b.old.example.test', 'A', { id: 6 }),
      query('_sip._tcp.example.test', 'SRV', { id: 7 }),
    ];
    for (const p of probes) {
      await udp(ours, p); // fills the cache
      const hitsBefore = ns.answerCacheStats()!.hits;
      const [cached, long] = await Promise.all([udp(ours, p), udp(full, p)]);
      expect(ns.answerCacheStats()!.hits, 'answered from the cache').to.equal(hitsBefore + 1);
      expect(cached!.equals(long!), `${summary(long!).answer.join('|')}`).to.equal(true);
    }
  });

  it('2. responses keep the OPT record on every rcode and opcode, and transfers carry it (RFC 6891 §7)', async () => {
    // NOTIFY and UPDATE to us: we are nobody's secondary and take no updates (ours NOTIMP, Knot NOTAUTH), OPT on both.
    for (const opcode of [4, 5]) {
      const { o, k } = await both(query(ZONE, 'SOA', { opcode }));
      expect(o.opcode).to.equal(opcode);
      expect(o.opt, `opcode ${opcode}: our OPT`).to.not.equal(null);
      expect(k.opt, `opcode ${opcode}: Knot's OPT`).to.not.equal(null);
      expect(o.questions).to.equal(k.questions);
    }
    // FORMERR with a well-formed OPT: IXFR without the client's SOA (TCP).
    const [o1] = await tcp(ours, query(ZONE, 'IXFR'));
    const [k1] = await tcp(knot.port, query(ZONE, 'IXFR'));
    expect(summary(o1!).rcode).to.equal('FORMERR');
    expect(summary(o1!).opt).to.not.equal(null);
    expect(summary(k1!).opt).to.not.equal(null);
    // BADVERS carries OPT by definition; REFUSED too.
    const refused = await both(query('example.org', 'A'));
    expect(refused.o.rcode).to.equal('REFUSED');
    sameContent(refused.o, refused.k);
    // AXFR over TCP with EDNS: OPT in the first message (ours: in every message, as Knot).
    const oa = await tcp(ours, query(ZONE, 'AXFR'));
    const ka = await tcp(knot.port, query(ZONE, 'AXFR'));
    expect(summary(oa[0]!).opt).to.not.equal(null);
    expect(summary(ka[0]!).opt).to.not.equal(null);
    for (const m of oa) expect(summary(m).opt).to.not.equal(null);
    // dig shows it too.
    const d = await dig(ours, '+opcode=notify', ZONE, 'SOA');
    expect(d.ednsUdp).to.equal(1232);
  });

  it('3. additional-section processing: MX and SRV targets in the zone get their A/AAAA (RFC 1035 §3.3.9, RFC 2782)', async () => {
    for (const [name, type] of [
      [ZONE, 'MX'],
      ['_sip._tcp.example.test', 'SRV'],
      ['sub.example.test', 'NS'],
      ['wide.example.test', 'NS'],
    ] as const) {
      const { o, k } = await both(query(name, type));
      sameContent(o, k);
    }
    const mx = await both(query(ZONE, 'MX'));
    expect(mx.o.additional.join('\n'))
      .to.include('mail.example.test 300 A 192.0.2.25')
      .and.to.include('mail.example.test 300 AAAA 2001:db8::25');
    // Size limits: without EDNS an MX answer that would not fit its additions loses them, not the answer.
    const srv = await kdig(ours, '_sip._tcp.example.test', 'SRV');
    expect(srv.additional.map((r) => r.data)).to.deep.equal(['192.0.2.60']);
  });

  it('4. QCLASS ANY (255) matches IN data (RFC 1035 §3.2.5)', async () => {
    for (const [name, type] of [
      ['www.example.test', 'A'],
      [ZONE, 'SOA'],
      ['nothing.example.test', 'A'],
    ] as const) {
      const { o, k } = await both(query(name, type, { klass: 'ANY' }));
      expect(o.rcode).to.not.equal('REFUSED');
      sameContent(o, k);
    }
    const r = await kdig(ours, '-c', 'ANY', 'www.example.test', 'A');
    expect(r.status).to.equal('NOERROR');
    expect(r.answer.map((a) => a.data).sort()).to.deep.equal(['192.0.2.1', '192.0.2.2']);
  });

  it('5. IXFR: FORMERR without the client’s SOA (RFC 1995 §3); the whole zone when the serial relation is undefined (RFC 1982)', async () => {
    const [o] = await tcp(ours, query(ZONE, 'IXFR', { edns: false }));
    const [k] = await tcp(knot.port, query(ZONE, 'IXFR', { edns: false }));
    expect(summary(o!).rcode).to.equal('FORMERR');
    expect(summary(k!).rcode).to.equal('FORMERR');
    // Exactly 2^31 away from the served serial: neither older nor newer; both send the zone.
    const undefinedSerial = (SERIAL + 2 ** 31) % 2 ** 32;
    const records = async (port: number): Promise<string[]> =>
      (await tcp(port, query(ZONE, 'IXFR', { authorities: [soaRecord(ZONE, undefinedSerial)] }))).flatMap((m) => summary(m).answer);
    const [oz, kz] = await Promise.all([records(ours), records(knot.port)]);
    expect(kz.length, 'Knot sends the zone').to.be.above(20);
    expect(oz).to.deep.equal(kz);
    // A client that is current (or ahead) gets the SOA alone, from both.
    for (const serial of [SERIAL, SERIAL + 5]) {
      const [oc] = await tcp(ours, query(ZONE, 'IXFR', { authorities: [soaRecord(ZONE, serial)] }));
      const [kc] = await tcp(knot.port, query(ZONE, 'IXFR', { authorities: [soaRecord(ZONE, serial)] }));
      expect(summary(oc!).answer).to.have.length(1);
      expect(summary(oc!).answer).to.deep.equal(summary(kc!).answer);
    }
  });

  it('6. an EDNS option whose length runs past the OPT RDATA is FORMERR (RFC 6891 §6.1.2)', async () => {
    const p = query(ZONE, 'SOA', { edns: [{ code: 65001, data: Buffer.from('abcd') }] });
    p.writeUInt16BE(20, p.length - 6); // the option says 20 octets; 4 follow
    const { o, k } = await both(p);
    expect(o.rcode).to.equal('FORMERR');
    expect(k.rcode).to.equal('FORMERR');
    expect(o.opt).to.equal(k.opt); // neither: the OPT itself is broken
    // A whole option is fine.
    const good = await both(query(ZONE, 'SOA', { edns: [{ code: 65001, data: Buffer.from('abcd') }] }));
    sameContent(good.o, good.k);
  });

  it('EDE (RFC 8914): REFUSED says why — Not Authoritative (20) for a name not ours, Prohibited (18) for a transfer', async () => {
    const { o, k } = await both(query('example.org', 'A'));
    expect(o.optOptions).to.deep.equal([{ code: 15, data: '0014' }]);
    expect(o.optOptions).to.deep.equal(k.optOptions);
    const d = await dig(ours, 'example.org', 'A');
    expect(d.raw).to.match(/EDE: 20 \(Not Authoritative\)/);
    // A transfer from outside the allow list (our servers allow only 127.0.0.1).
    const { ns: closed, port } = await startServer([exampleZone(SERIAL)], { axfrAllow: ['10.0.0.0/8'] });
    try {
      const [m] = await tcp(port, query(ZONE, 'AXFR'));
      expect(summary(m!).rcode).to.equal('REFUSED');
      expect(summary(m!).optOptions).to.deep.equal([{ code: 15, data: '0012' }]);
    } finally {
      await closed.stop();
    }
  });

  it('NSID (RFC 5001): the configured id to a query that asks, nothing to one that does not', async () => {
    const { o, k } = await both(query(ZONE, 'SOA', { edns: [{ code: 3, data: Buffer.alloc(0) }] }));
    expect(o.optOptions).to.deep.equal([{ code: 3, data: Buffer.from('domivka-conformance').toString('hex') }]);
    expect(k.optOptions).to.deep.equal([{ code: 3, data: Buffer.from('knot-conformance').toString('hex') }]);
    sameContent(o, k);
    const d = await dig(ours, '+nsid', ZONE, 'SOA');
    expect(d.raw).to.include('domivka-conformance');
    expect((await both(query(ZONE, 'SOA'))).o.optOptions).to.deep.equal([]);
  });

  it('EXPIRE (RFC 7314): the SOA EXPIRE to a SOA query that carries the option (Knot, a secondary: what is left of it)', async () => {
    const { o, k } = await both(query(ZONE, 'SOA', { edns: [{ code: 9, data: Buffer.alloc(0) }] }));
    const soaExpire = Number(/"expire":(\d+)/.exec(o.answer[0]!)![1]);
    expect(o.optOptions).to.deep.equal([{ code: 9, data: soaExpire.toString(16).padStart(8, '0') }]);
    expect(k.optOptions.map((x) => x.code)).to.deep.equal([9]);
    expect(parseInt(k.optOptions[0]!.data, 16)).to.be.at.most(soaExpire);
    // Not on other types.
    expect((await both(query('www.example.test', 'A', { edns: [{ code: 9, data: Buffer.alloc(0) }] }))).o.optOptions).to.deep.equal([]);
  });
});
