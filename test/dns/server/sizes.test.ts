import { expect } from 'chai';
import type { EmbeddedNameserver } from '../../../adapters/dns/embedded/index.js';
import { exampleZone } from './fixtures.js';
import { dig, kdig, rdata, requireTools, startServer } from './tools.js';

/** RFC 1035 §4.2.1, RFC 6891, RFC 7766: what fits over UDP, the TC bit, and TCP for the rest. */
describe('DNS server message sizes: EDNS0, TC and TCP', () => {
  let ns: EmbeddedNameserver;
  let port: number;

  before(async function () {
    requireTools(this, 'dig', 'kdig');
    ({ ns, port } = await startServer([exampleZone()]));
  });
  after(async () => ns?.stop());

  it('without EDNS an answer over 512 octets is truncated: TC, no records, within 512', async () => {
    const r = await dig(port, '+noedns', '+ignore', 'medium.example.test', 'TXT');
    expect(r.status).to.equal('NOERROR');
    expect(r.flags).to.include.members(['aa', 'tc']);
    expect(r.answer).to.be.empty;
    expect(r.ednsUdp).to.equal(null);
    expect(r.size).to.be.at.most(512);
  });

  it('with EDNS the same answer fits in the client buffer; the reply carries OPT with 1232', async () => {
    const r = await dig(port, '+bufsize=1232', '+ignore', 'medium.example.test', 'TXT');
    expect(r.flags).not.to.include('tc');
    expect(r.answer).to.have.length(6);
    expect(r.ednsUdp).to.equal(1232);
    expect(r.size).to.be.above(512).and.at.most(1232);
  });

  it('honours a smaller EDNS buffer (512), and caps a larger one at 1232', async () => {
    const small = await dig(port, '+bufsize=512', '+ignore', 'medium.example.test', 'TXT');
    expect(small.flags).to.include('tc');
    expect(small.size).to.be.at.most(512);
    // `large` is about 2 KB: it would fit the 4096 the client offers, but we send at most 1232.
    const capped = await kdig(port, '+bufsize=4096', '+notcp', '+ignore', 'large.example.test', 'TXT');
    expect(capped.flags).to.include('tc');
    expect(capped.answer).to.be.empty;
    expect(capped.ednsUdp).to.equal(1232);
    const whole = await kdig(port, '+bufsize=4096', '+tcp', 'large.example.test', 'TXT');
    expect(whole.answer).to.have.length(10);
    expect(whole.size).to.be.above(1232).and.below(4096);
  });

  it('dig retries a truncated answer over TCP and gets it whole', async () => {
    const r = await dig(port, 'big.example.test', 'TXT');
    expect(r.raw).to.include('Truncated, retrying in TCP mode');
    expect(r.flags).not.to.include('tc');
    expect(r.answer).to.have.length(30);
  });

  it('over TCP (dig +tcp, kdig +tcp) answers up to 64 KiB are sent whole', async () => {
    for (const r of [await dig(port, '+tcp', 'big.example.test', 'TXT'), await kdig(port, '+tcp', 'big.example.test', 'TXT')]) {
      expect(r.status).to.equal('NOERROR');
      expect(r.flags).not.to.include('tc');
      expect(r.answer).to.have.length(30);
      expect(r.size).to.be.above(1232);
    }
  });

  it('two TXT values at _acme-challenge fit 512 octets without EDNS, even asked many at once (Pebble)', async () => {
    const rs = await Promise.all(Array.from({ length: 10 }, () => dig(port, '+noedns', '+ignore', '_acme-challenge.example.test', 'TXT')));
    for (const r of rs) {
      expect(r.flags).not.to.include('tc');
      expect(rdata(r.answer, 'TXT')).to.have.length(2);
      expect(r.size).to.be.at.most(512);
    }
  });

  it('an EDNS version other than 0 gets BADVERS (RFC 6891 §6.1.3)', async () => {
    const r = await dig(port, '+edns=1', '+noednsneg', 'www.example.test', 'A');
    expect(r.status).to.equal('BADVERS');
    expect(r.answer).to.be.empty;
    expect(r.ednsUdp).to.equal(1232);
  });

  it('copies the DO bit back (RFC 3225 §3)', async () => {
    const r = await dig(port, '+dnssec', 'www.example.test', 'A');
    expect(r.ednsFlags).to.include('do');
    expect((await dig(port, 'www.example.test', 'A')).ednsFlags).not.to.include('do');
  });
});
