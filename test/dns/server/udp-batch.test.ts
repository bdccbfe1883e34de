import { expect } from 'chai';
import dgram from 'node:dgram';
import net from 'node:net';
import dnsPacket from 'dns-packet';
import ipaddr from 'ipaddr.js';
import { EmbeddedNameserver } from '../../../adapters/dns/embedded/index.js';
import { batchedUdpUnavailable, bindReusePort, formatIpv6, type BatchedUdp } from '../../../adapters/dns/embedded/udp-batch.js';
import { childZone, exampleZone } from './fixtures.js';
import { mutate, prng, randomQuery } from './packets.js';
import { freePort, startServer } from './tools.js';

/**
 * Batched UDP (adapters/dns/embedded/udp-batch.ts and its addon, native/udp_batch.c: recvmmsg and
 * sendmmsg). The batched path must answer exactly as dgram's per-datagram path does, byte for byte and
 * drop for drop, over the wire; give the transfer ACL the peer address dgram would; and, bound with
 * SO_REUSEPORT, share a port with the other DNS workers and leave it when stopped.
 */

/**
 * Sends each packet from its own socket (at most `parallel` at a time); the reply octets, or null after `waitMs`.
 * The wait is long by default: after a stall of the event loop (a major GC late in a full run), libuv runs the
 * expired timers before it reads the replies waiting in the sockets, so a short wait counts answered queries as lost.
 */
const askAll = async (
  port: number,
  packets: readonly Buffer[],
  o: { host?: string; parallel?: number; waitMs?: number } = {},
): Promise<Array<Buffer | null>> => {
  const host = o.host ?? '127.0.0.1';
  const out: Array<Buffer | null> = new Array(packets.length).fill(null);
  const one = (i: number): Promise<void> =>
    new Promise((done) => {
      const s = dgram.createSocket(net.isIPv6(host) ? 'udp6' : 'udp4');
      const timer = setTimeout(() => finish(null), o.waitMs ?? 3000);
      const finish = (m: Buffer | null): void => {
        clearTimeout(timer);
        out[i] = m;
        s.close();
        done();
      };
      s.once('message', (m) => finish(m));
      s.send(packets[i]!, port, host);
    });
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < packets.length) await one(next++);
  };
  await Promise.all(Array.from({ length: o.parallel ?? 100 }, lane));
  return out;
};

const query = (name: string, type: dnsPacket.RecordType, id = 7): Buffer =>
  dnsPacket.encode({ type: 'query', id, flags: dnsPacket.RECURSION_DESIRED, questions: [{ name, type, class: 'IN' }] });

/** An IXFR query over UDP carrying the client's SOA (RFC 1995 §3): answered with the SOA alone to an allowed peer. */
const ixfr = (serial: number): Buffer =>
  dnsPacket.encode({
    type: 'query',
    id: 9,
    flags: 0,
    questions: [{ name: 'example.test', type: 'IXFR', class: 'IN' }],
    authorities: [
      {
        name: 'example.test',
        type: 'SOA',
        ttl: 0,
        data: { mname: 'a.', rname: 'b.', serial, refresh: 1, retry: 1, expire: 1, minimum: 1 },
      },
    ],
  });

const rcodeOf = (m: Buffer | null): string | null => (m ? ((dnsPacket.decode(m) as { rcode?: string }).rcode ?? 'NOERROR') : null);

describe('DNS server batched UDP (recvmmsg/sendmmsg addon)', function () {
  this.timeout(120_000);
  const stops: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const stop of stops.splice(0).reverse()) await stop();
  });
  const serve = async (config: Parameters<typeof startServer>[1]): Promise<{ ns: EmbeddedNameserver; port: number }> => {
    const s = await startServer([exampleZone(), childZone()], config);
    stops.push(() => s.ns.stop());
    return s;
  };

  it('is built on this machine and is what a default server reads UDP with (CI runs Linux: never the silent fallback)', async function () {
    if (process.platform !== 'linux') this.skip(); // recvmmsg/sendmmsg are Linux system calls; elsewhere dgram serves
    expect(batchedUdpUnavailable(), 'run `npm run build:native`').to.equal(null);
    const { ns, port } = await serve({});
    expect(ns.udpMode()).to.equal('batched');
    const [reply] = await askAll(port, [query('www.example.test', 'A')]);
    expect(dnsPacket.decode(reply!).answers, 'www.example.test A').to.not.be.empty;
    const off = await serve({ udpBatch: false });
    expect(off.ns.udpMode()).to.equal('dgram');
    expect(off.ns.udpBatchStats()).to.equal(null);
  });

  it("over the wire, answers 3000 varied queries and 3000 mutations byte for byte as dgram's path does, and drops the same ones", async () => {
    const batched = await serve({});
    const plain = await serve({ udpBatch: false });
    const r = prng(20261124);
    const packets: Buffer[] = [];
    for (let i = 0; i < 3000; i++) packets.push(randomQuery(r));
    for (let i = 0; i < 3000; i++) packets.push(mutate(packets[i]!, r));
    // Every packet twice: the second time the reply comes from the answer cache, written straight into the send arena.
    const all = [...packets, ...packets];
    // A short wait, as a third of the packets get no reply; a difference is asked again of both with the long wait.
    const [a, b] = [await askAll(batched.port, all, { waitMs: 400 }), await askAll(plain.port, all, { waitMs: 400 })];
    const differ = all.flatMap((_, i) => (a[i]?.toString('hex') !== b[i]?.toString('hex') ? [i] : []));
    let seen = a.filter((m) => m !== null).length;
    if (differ.length > 0) {
      const again = differ.map((i) => all[i]!);
      const [a2, b2] = [await askAll(batched.port, again), await askAll(plain.port, again)];
      seen += a2.filter((m) => m !== null).length;
      differ.forEach((i, k) => ([a[i], b[i]] = [a2[k] ?? null, b2[k] ?? null]));
    }
    let replies = 0;
    for (let i = 0; i < all.length; i++) {
      expect(a[i]?.toString('hex') ?? 'none', `packet ${i % packets.length} ${all[i]!.toString('hex')}`).to.equal(
        b[i]?.toString('hex') ?? 'none',
      );
      if (a[i]) replies++;
    }
    expect(replies, 'most packets are answered').to.be.greaterThan(all.length * 0.6);
    const stats = batched.ns.udpBatchStats()!;
    expect(stats.received).to.equal(all.length + differ.length);
    // A reply that came after its short wait was sent but not seen; only a difference can hide one.
    expect(stats.sent).to.be.within(seen, seen + differ.length);
    expect(stats.dropped).to.equal(0);
  });

  it("a burst of 4000 queries from 200 sockets at once is answered in full, many per system call; a 65 000-octet datagram gets what dgram's path gives it", async () => {
    const { ns, port } = await serve({});
    const plain = await serve({ udpBatch: false });
    const names = ['www.example.test', 'mail.example.test', 'nope.example.test', 'www.child.example.test'];
    const packets = Array.from({ length: 4000 }, (_, i) => query(names[i % names.length]!, i % 3 === 0 ? 'AAAA' : 'A', i & 0xffff));
    const big = Buffer.alloc(65_000, 0x41);
    const [[huge], [hugePlain]] = [await askAll(port, [big]), await askAll(plain.port, [big])];
    expect(huge?.toString('hex')).to.equal(hugePlain?.toString('hex'));
    const replies = await askAll(port, packets, { parallel: 200 });
    replies.forEach((m, i) => {
      expect(m, `query ${i}`).to.not.equal(null);
      expect(m!.readUInt16BE(0)).to.equal(i & 0xffff);
    });
    const stats = ns.udpBatchStats()!;
    expect(stats.received).to.equal(4001);
    expect(stats.sent).to.equal(huge ? 4001 : 4000);
    expect(stats.batches, `${stats.received} datagrams in ${stats.batches} reads`).to.be.lessThan(stats.received);
  });

  it('gives the transfer ACL the peer address as dgram would: IPv4, IPv6 and IPv4-mapped on a dual-stack socket', async () => {
    const serial = exampleZone().serial;
    const v4only = await serve({ host: '::', axfrAllow: ['127.0.0.1'] });
    const v6only = await serve({ host: '::', axfrAllow: ['::1'] });
    expect(v4only.ns.udpMode()).to.equal('batched');
    // 127.0.0.1 reaches a '::' socket as ::ffff:127.0.0.1, which the ACL counts as IPv4.
    expect(rcodeOf((await askAll(v4only.port, [ixfr(serial)]))[0]!)).to.equal('NOERROR');
    expect(rcodeOf((await askAll(v4only.port, [ixfr(serial)], { host: '::1' }))[0]!)).to.equal('REFUSED');
    expect(rcodeOf((await askAll(v6only.port, [ixfr(serial)], { host: '::1' }))[0]!)).to.equal('NOERROR');
    expect(rcodeOf((await askAll(v6only.port, [ixfr(serial)]))[0]!)).to.equal('REFUSED');
  });

  it('formats IPv6 addresses as inet_ntop (net.SocketAddress, and so dgram) does: RFC 5952, IPv4-mapped and IPv4-compatible dotted', () => {
    // Inputs in hex words only: ipaddr.js reads a dotted tail (::1.2.3.4) as IPv4-mapped.
    const bytes = (addr: string): Uint8Array => Uint8Array.from(ipaddr.IPv6.parse(addr).toByteArray());
    for (const addr of [
      '::1',
      '::',
      '2001:db8::1',
      '2001:db8:0:0:1:0:0:1',
      '2001:0:0:1::1',
      'fe80::1:2:3:4',
      '1:2:3:4:5:6:7:8',
      '1::8',
      '1:0:3:4:5:6:7:0',
      '::ffff:127.0.0.1',
      '::ffff:10.1.2.3',
      '64:ff9b::192.0.2.1',
      '0:0:0:1::',
      '::7f00:1',
      '::102:304',
      '::ffff:0:1',
      '::100',
      '::1:0:0:0',
      '1:0:0:2:0:0:0:3',
      'ffff::',
      '::ffff',
    ]) {
      const expected = new net.SocketAddress({ address: addr, family: 'ipv6' }).address;
      expect(formatIpv6(bytes(addr)), addr).to.equal(expected);
    }
  });

  it('SO_REUSEPORT: sockets of one port share the senders, a stopped server leaves the group at once, and a socket without it cannot join', async function () {
    if (process.platform !== 'linux') this.skip(); // SO_REUSEPORT load balancing as used here is Linux's
    const port = await freePort();
    const { ns } = await serve({ port, reusePort: true });
    expect(ns.udpMode()).to.equal('reuseport');
    // A second member of the group in this process: it answers every datagram with one marker octet.
    let other: BatchedUdp | null = bindReusePort('127.0.0.1', port, 0, (_q, out, at) => {
      out[at] = 0xee;
      return 1;
    });
    stops.push(() => other?.close());
    const packets = Array.from({ length: 200 }, (_, i) => query('www.example.test', 'A', i));
    const shared = await askAll(port, packets, { parallel: 200 });
    const byOther = shared.filter((m) => m?.length === 1 && m[0] === 0xee).length;
    const byOurs = shared.filter((m) => m && m.length > 12 && dnsPacket.decode(m).answers!.length > 0).length;
    expect(byOther + byOurs, 'every query answered by one of the two').to.equal(200);
    // 200 source ports hashed over two sockets: each gets some (all on one side: chance 2^-199).
    expect(byOther).to.be.greaterThan(0);
    expect(byOurs).to.be.greaterThan(0);
    other!.close();
    other = null;
    const alone = await askAll(port, packets, { parallel: 200 });
    expect(
      alone.every((m) => m && m.length > 12 && dnsPacket.decode(m).answers!.length > 0),
      'after close(), ours answers every query',
    ).to.equal(true);
    // A socket without SO_REUSEPORT on the port is refused, so nothing unasked can take a share.
    const plain = dgram.createSocket('udp4');
    const err = await new Promise<NodeJS.ErrnoException | null>((ok) => {
      plain.once('error', (e) => ok(e));
      plain.bind(port, '127.0.0.1', () => ok(null));
    });
    plain.close();
    expect(err?.code).to.equal('EADDRINUSE');
    // Stopped, the server has left the port: a plain socket may bind it.
    await ns.stop();
    const again = dgram.createSocket('udp4');
    await new Promise<void>((ok, fail) => {
      again.once('error', fail);
      again.bind(port, '127.0.0.1', () => ok());
    });
    again.close();
  });

  it('sendTo: a reply sent after its batch went out reaches the peer from the same socket (IPv4; IPv6 and IPv4-mapped on a dual-stack one); none once closed', async function () {
    if (process.platform !== 'linux') this.skip();
    /** Binds host:port with SO_REUSEPORT; each datagram gets no reply in its batch, then "late:" + itself from a timer. */
    const lateEcho = (host: string, port: number): BatchedUdp => {
      let served: BatchedUdp | null = null;
      served = bindReusePort(host, port, 0, (q, _out, _at, _room, peer, peerPort) => {
        const copy = Buffer.concat([Buffer.from('late:'), q]);
        const [address, from] = [peer(), peerPort()];
        setTimeout(() => served!.sendTo(copy, address, from), 20);
        return 0;
      })!;
      stops.push(() => served!.close());
      return served;
    };
    const port4 = await freePort();
    const s4 = lateEcho('127.0.0.1', port4);
    const portDual = await freePort([port4]);
    const sDual = lateEcho('::', portDual);
    const [a] = await askAll(port4, [Buffer.from('one')]);
    const [b] = await askAll(portDual, [Buffer.from('two')], { host: '127.0.0.1' }); // IPv4-mapped peer
    const [c] = await askAll(portDual, [Buffer.from('three')], { host: '::1' });
    expect([a, b, c].map((m) => m?.toString())).to.deep.equal(['late:one', 'late:two', 'late:three']);
    expect(s4.stats()).to.include({ sent: 1, dropped: 0 });
    expect(sDual.stats()).to.include({ sent: 2, dropped: 0 });
    // An IPv6 peer on an IPv4 socket: not sent, counted; a closed socket sends nothing.
    expect(s4.sendTo(Buffer.from('x'), '::1', 9)).to.equal(false);
    expect(s4.stats().dropped).to.equal(1);
    s4.close();
    expect(s4.sendTo(Buffer.from('x'), '127.0.0.1', 9)).to.equal(false);
    expect(() => sDual.sendTo(Buffer.from('x'), 'not-an-address', 9)).to.throw(/IP address/);
  });

  it('reusePort with port 0 (no fixed port to share) serves one dgram socket, batched; with udpBatch false, dgram alone', async () => {
    const { ns } = await serve({ port: 0, reusePort: true });
    expect(ns.udpMode()).to.equal('batched');
    const off = await serve({ port: await freePort(), reusePort: true, udpBatch: false });
    expect(off.ns.udpMode()).to.equal('dgram');
  });

  it('regression: a worker thread that exits with a batcher still open ends cleanly (the addon was unloaded under a pending close: SIGSEGV)', async function () {
    if (process.platform !== 'linux') this.skip();
    const addon = new URL('../../../adapters/dns/embedded/native/build/Release/udp_batch.node', import.meta.url).pathname;
    // In a child process, so that a crash fails this test instead of the whole run.
    const script = `
      const { Worker } = require('node:worker_threads');
      const body = \`
        const dgram = require('node:dgram');
        const { parentPort, workerData } = require('node:worker_threads');
        const addon = require(workerData.addon);
        const s = dgram.createSocket('udp4');
        s.bind(0, '127.0.0.1', () => {
          const ab = () => new ArrayBuffer(64 * 4096);
          const open = (fd) => addon.open(fd, 64, 4096, ab(), ab(), new ArrayBuffer(64 * 32), new ArrayBuffer(64 * 16), () => {}, workerData.own);
          if (workerData.own) {
            const port = s.address().port;
            s.close(() => { open(addon.bindReusePort('127.0.0.1', port, 0)); done(); });
          } else {
            const state = Object.getOwnPropertySymbols(s).find((x) => x.description === 'state symbol');
            open(s[state].handle.fd);
            done();
          }
        });
        const done = () => {
          parentPort.postMessage('open');
          if (workerData.exit) process.exit(0);
        };
      \`;
      let left = 4;
      for (const own of [false, true]) for (const exit of [false, true]) {
        const w = new Worker(body, { eval: true, workerData: { addon: ${JSON.stringify(addon)}, own, exit } });
        w.on('message', () => { if (!exit) w.terminate(); });
        w.on('exit', () => { if (--left === 0) console.log('all four ended'); });
      }
    `;
    const { spawnSync } = await import('node:child_process');
    const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 30_000 });
    expect({ status: r.status, signal: r.signal, out: r.stdout.trim() }, r.stderr).to.deep.equal({
      status: 0,
      signal: null,
      out: 'all four ended',
    });
  });
});
