import { expect } from 'chai';
import dnsPacket from 'dns-packet';
import type { EmbeddedNameserver } from '../../adapters/dns/embedded/index.js';
import { exampleZone } from '../dns/server/fixtures.js';
import { dig, rawUdp, requireTools, startServer } from '../dns/server/tools.js';

/**
 * Every defect the hostile suites found, one named test each, so it stays fixed.
 */
const FORMERR = 1;

/** A query for `name`/A with ARCOUNT and the octets of the additional section given by hand. */
const withAdditional = (name: string, counts: { an?: number; ar?: number }, tail: Buffer): Buffer => {
  const q = Buffer.from(dnsPacket.encode({ type: 'query', id: 0x1414, questions: [{ name, type: 'A', class: 'IN' }] }));
  q.writeUInt16BE(counts.an ?? 0, 6);
  q.writeUInt16BE(counts.ar ?? 0, 10);
  return Buffer.concat([q, tail]);
};
/** An OPT RR: root owner, TYPE 41, payload 1232, TTL 0, then RDLENGTH and the RDATA as given. */
const opt = (rdlength: number, rdata: Buffer): Buffer =>
  Buffer.concat([Buffer.from([0, 0, 41, 0x04, 0xd0, 0, 0, 0, 0, rdlength >> 8, rdlength & 255]), rdata]);

describe('Hostile regressions: defects the fuzzers found', () => {
  let ns: EmbeddedNameserver;
  let port: number;
  before(async function () {
    requireTools(this, 'dig');
    ({ ns, port } = await startServer([exampleZone()]));
  });
  after(async () => ns?.stop());

  const expectFormerr = async (packet: Buffer): Promise<void> => {
    const r = await rawUdp(port, packet, 2000);
    expect(r, 'a reply').to.not.equal(null);
    expect(r!.readUInt16BE(0)).to.equal(0x1414);
    expect(r!.readUInt16BE(2) & 0xf, 'rcode').to.equal(FORMERR);
    expect((await dig(port, 'www.example.test', 'A')).status).to.equal('NOERROR');
  };

  it('DNS #1: an EDNS option whose length runs past the OPT RDATA is FORMERR (was answered NOERROR; RFC 6891 §6.1.2)', async () => {
    await expectFormerr(withAdditional('www.example.test', { ar: 1 }, opt(6, Buffer.from([0, 10, 0xff, 0xff, 1, 2]))));
  });

  it('DNS #2: an OPT RR with a truncated option and octets after the last record is FORMERR (was answered NOERROR)', async () => {
    await expectFormerr(withAdditional('www.example.test', { ar: 1 }, opt(2, Buffer.from([0, 10, 0, 8, 1, 2, 3, 4, 5, 6, 7, 8]))));
  });

  it('DNS #3: an OPT RR in the answer section of a query is FORMERR (was answered NOERROR; RFC 6891 §6.1.1)', async () => {
    await expectFormerr(withAdditional('www.example.test', { an: 1 }, opt(0, Buffer.alloc(0))));
  });

  it('DNS #4: a query followed by stray octets is FORMERR, also for a name we do not have (was NXDOMAIN)', async () => {
    await expectFormerr(withAdditional('nope.example.test', {}, Buffer.from([1, 2, 3])));
  });
});
