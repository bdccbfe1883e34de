import dgram from 'node:dgram';
import net from 'node:net';
import { expect } from 'chai';
import dnsPacket from 'dns-packet';
import { ResponseRateLimiter, sourcePrefix, Verdict } from '../../../adapters/dns/embedded/rrl.js';
import { loadConfig } from '../../../src/config.js';
import { TEST_DATA_KEY_HEX, TEST_PEPPER_HEX } from '../../support/system.js';
import { exampleZone } from './fixtures.js';
import { startServer } from './tools.js';

/**
 * UDP response rate limiting, as Knot's RRL (adapters/dns/embedded/rrl.ts): per source /24 or /56, a
 * token bucket of DNS_RRL_RATE answers per second, every DNS_RRL_SLIP-th answer over it sent truncated
 * (TC) and the rest dropped; TCP untouched; off by default.
 */

const query = (id: number): Buffer =>
  Buffer.from(dnsPacket.encode({ type: 'query', id, questions: [{ name: 'www.example.test', type: 'A', class: 'IN' }] }));

/** Sends `n` queries at once from one UDP socket; collects what comes back within `waitMs`. */
const burst = async (port: number, n: number, waitMs = 400): Promise<Buffer[]> => {
  const s = dgram.createSocket('udp4');
  const replies: Buffer[] = [];
  s.on('message', (m) => replies.push(m));
  await new Promise<void>((ok) => s.bind(0, '127.0.0.1', () => ok()));
  for (let i = 0; i < n; i++) s.send(query(i + 1), port, '127.0.0.1');
  await new Promise((r) => setTimeout(r, waitMs));
  s.close();
  return replies;
};

/** `n` queries over one TCP connection (RFC 7766 framing); the number of replies. */
const tcpBurst = (port: number, n: number): Promise<number> =>
  new Promise((resolve, reject) => {
    let pending = Buffer.alloc(0);
    let got = 0;
    const c = net.connect(port, '127.0.0.1', () => {
      c.write(
        Buffer.concat(
          Array.from({ length: n }, (_, i) => query(i + 1)).map((q) => Buffer.concat([Buffer.from([q.length >> 8, q.length & 255]), q])),
        ),
      );
    });
    const timer = setTimeout(() => (c.destroy(), resolve(got)), 3000);
    c.on('error', reject);
    c.on('data', (d) => {
      pending = Buffer.concat([pending, d]);
      while (pending.length >= 2 && pending.length >= 2 + pending.readUInt16BE(0)) {
        pending = pending.subarray(2 + pending.readUInt16BE(0));
        got++;
      }
      if (got === n) {
        clearTimeout(timer);
        c.destroy();
        resolve(got);
      }
    });
  });

const TC = 0x0200;

describe('DNS server response rate limiting (RRL, UDP only)', function () {
  this.timeout(30_000);

  it('DNS_RRL_RATE and DNS_RRL_SLIP configure it; off by default (as Knot)', () => {
    const base = { KEY_PEPPER: TEST_PEPPER_HEX, DATA_KEY: TEST_DATA_KEY_HEX, VAR_DIR: '/tmp' };
    expect(loadConfig(base).dnsRrl).to.equal(null);
    expect(loadConfig({ ...base, DNS_RRL_RATE: '5' }).dnsRrl).to.deep.equal({ rate: 5, slip: 1 });
    expect(loadConfig({ ...base, DNS_RRL_RATE: '5', DNS_RRL_SLIP: '2' }).dnsRrl).to.deep.equal({ rate: 5, slip: 2 });
    expect(() => loadConfig({ ...base, DNS_RRL_RATE: 'lots' })).to.throw(/DNS_RRL_RATE/);
  });

  for (const udpBatch of [true, false]) {
    it(`rate 5, slip 2: a burst of 50 from 127.0.0.1 gets ~5 answers and ~22 truncated ones, the rest dropped; TCP unaffected; counters (${udpBatch ? 'batched UDP' : 'dgram'})`, async () => {
      const base = { KEY_PEPPER: TEST_PEPPER_HEX, DATA_KEY: TEST_DATA_KEY_HEX, VAR_DIR: '/tmp' };
      const rrl = loadConfig({ ...base, DNS_RRL_RATE: '5', DNS_RRL_SLIP: '2' }).dnsRrl;
      const { ns, port } = await startServer([exampleZone()], { rrl, udpBatch });
      try {
        const replies = await burst(port, 50);
        const full = replies.filter((r) => !(r.readUInt16BE(2) & TC));
        const truncated = replies.filter((r) => r.readUInt16BE(2) & TC);
        expect(full.length, 'answers within the rate').to.be.within(5, 7);
        for (const r of full) expect(dnsPacket.decode(r).answers).to.have.length(2);
        expect(truncated.length, 'slipped (TC) answers').to.be.within(21, 23);
        for (const r of truncated) {
          const d = dnsPacket.decode(r);
          expect(d.answers).to.have.length(0);
          expect(d.questions).to.deep.equal([{ name: 'www.example.test', type: 'A', class: 'IN' }]);
          expect(r.length, 'no larger than the query').to.be.at.most(query(0).length);
        }
        // TCP: every query answered, whatever the UDP bucket holds.
        expect(await tcpBurst(port, 50)).to.equal(50);
        const { rrl: counters, internalErrors } = ns.stats();
        expect(internalErrors).to.equal(0);
        expect(counters!.passed).to.equal(full.length);
        expect(counters!.slipped).to.equal(truncated.length);
        expect(counters!.dropped).to.equal(50 - full.length - truncated.length);
        expect(counters!.buckets).to.equal(1);
      } finally {
        await ns.stop();
      }
    });
  }

  it('off: the same burst is answered in full, and stats() says rrl null', async () => {
    const { ns, port } = await startServer([exampleZone()]);
    try {
      const replies = await burst(port, 50);
      expect(replies.filter((r) => !(r.readUInt16BE(2) & TC))).to.have.length(50);
      expect(ns.stats()).to.deep.equal({ internalErrors: 0, rrl: null });
    } finally {
      await ns.stop();
    }
  });

  it('buckets by /24 and /56, refills at the rate, slip 0 drops everything over it', () => {
    expect(sourcePrefix('192.0.2.77')).to.equal(sourcePrefix('::ffff:192.0.2.1'));
    expect(sourcePrefix('192.0.2.77')).to.not.equal(sourcePrefix('192.0.3.77'));
    expect(sourcePrefix('2001:db8:aa:bb01::1')).to.equal(sourcePrefix('2001:db8:aa:bbff:1:2:3:4'));
    expect(sourcePrefix('2001:db8:aa:bb01::1')).to.not.equal(sourcePrefix('2001:db8:aa:cc01::1'));
    expect(sourcePrefix('::1')).to.equal('0000:0000:0000:00');
    let now = 0;
    const rrl = new ResponseRateLimiter({ rate: 2, slip: 0 }, () => now);
    expect([rrl.check('10.0.0.1'), rrl.check('10.0.0.2'), rrl.check('10.0.0.3')]).to.deep.equal([Verdict.Pass, Verdict.Pass, Verdict.Drop]);
    expect(rrl.check('10.0.1.1'), 'another /24').to.equal(Verdict.Pass);
    now = 500; // half a second: one token back
    expect([rrl.check('10.0.0.1'), rrl.check('10.0.0.1')]).to.deep.equal([Verdict.Pass, Verdict.Drop]);
    expect(rrl.stats()).to.deep.equal({ passed: 4, dropped: 2, slipped: 0, buckets: 2 });
  });
});
