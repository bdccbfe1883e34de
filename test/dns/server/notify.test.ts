import dgram from 'node:dgram';
import { expect } from 'chai';
import dnsPacket from 'dns-packet';
import { exampleZone } from './fixtures.js';
import { startServer, waitFor } from './tools.js';

/** A stand-in secondary that records NOTIFYs and acknowledges from the `ackFrom`-th one on (0: never). */
const fakeSecondary = async (ackFrom: number) => {
  const socket = dgram.createSocket('udp4');
  const seen: dnsPacket.DecodedPacket[] = [];
  socket.on('message', (msg, rinfo) => {
    const p = dnsPacket.decode(msg);
    seen.push(p);
    if (ackFrom === 0 || seen.length < ackFrom) return;
    const ack = dnsPacket.encode({ type: 'response', id: p.id, flags: (4 << 11) | dnsPacket.AUTHORITATIVE_ANSWER, questions: p.questions });
    socket.send(ack, rinfo.port, rinfo.address);
  });
  await new Promise<void>((r) => socket.bind(0, '127.0.0.1', () => r()));
  return { port: socket.address().port, seen, close: () => new Promise<void>((r) => socket.close(() => r())) };
};

/** RFC 1996: NOTIFY after publish, retried until acknowledged, never holding publish up. */
describe('DNS server NOTIFY to secondaries', () => {
  it('sends opcode NOTIFY with AA and the question "<zone> IN SOA"', async () => {
    const sec = await fakeSecondary(1);
    const { ns } = await startServer([], { secondaries: [{ host: '127.0.0.1', port: sec.port }], notify: { firstTimeoutMs: 100 } });
    try {
      await ns.publish(exampleZone());
      const outcomes = await ns.notifySecondaries('example.test');
      expect(outcomes).to.deep.equal([{ secondary: `127.0.0.1:${sec.port}`, acknowledged: true, attempts: 1 }]);
      const n = sec.seen.at(-1)! as dnsPacket.DecodedPacket & { opcode: string };
      expect(n.opcode).to.equal('NOTIFY');
      expect(n.flag_aa).to.equal(true);
      expect(n.flag_qr).to.equal(false);
      expect(n.questions).to.deep.equal([{ name: 'example.test', type: 'SOA', class: 'IN' }]);
    } finally {
      await ns.stop();
      await sec.close();
    }
  });

  it('retries until acknowledged', async () => {
    const sec = await fakeSecondary(3);
    const { ns } = await startServer([exampleZone()], {
      secondaries: [{ host: '127.0.0.1', port: sec.port }],
      notify: { attempts: 5, firstTimeoutMs: 50 },
    });
    try {
      const outcomes = await ns.notifySecondaries('example.test');
      expect(outcomes[0]).to.include({ acknowledged: true, attempts: 3 });
      expect(new Set(sec.seen.map((p) => p.id)).size).to.equal(1); // one notification, resent
    } finally {
      await ns.stop();
      await sec.close();
    }
  });

  it('publish never waits for a silent secondary', async () => {
    const sec = await fakeSecondary(0);
    // One attempt with a 20 s timeout: a publish that waited for this secondary could not end before it.
    const { ns } = await startServer([], {
      secondaries: [{ host: '127.0.0.1', port: sec.port }],
      notify: { attempts: 1, firstTimeoutMs: 20_000 },
    });
    try {
      const t0 = Date.now();
      await ns.publish(exampleZone());
      expect(Date.now() - t0).to.be.below(20_000);
      // The secondary was told (and has not answered) by the time the publish is done or soon after.
      expect(await waitFor(async () => sec.seen.length > 0, 5_000, 20)).to.not.equal(null);
    } finally {
      await ns.stop();
      await sec.close();
    }
  });

  it('gives up after the configured attempts', async () => {
    const sec = await fakeSecondary(0);
    const { ns } = await startServer([], {
      secondaries: [{ host: '127.0.0.1', port: sec.port }],
      notify: { attempts: 3, firstTimeoutMs: 150 },
    });
    try {
      await ns.publish(exampleZone());
      const outcomes = await ns.notifySecondaries('example.test');
      expect(outcomes[0]).to.include({ acknowledged: false, attempts: 3 });
    } finally {
      await ns.stop();
      await sec.close();
    }
  });

  it('refuses to notify for a zone it does not serve', async () => {
    const { ns } = await startServer([], { secondaries: [] });
    try {
      let error: unknown;
      await ns.notifySecondaries('nope.test').catch((e: unknown) => (error = e));
      expect(error).to.be.instanceOf(Error);
    } finally {
      await ns.stop();
    }
  });
});
