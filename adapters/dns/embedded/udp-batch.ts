import type dgram from 'node:dgram';
import { closeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { rfc5952 } from '../../../core/dns/types/address.js';

/**
 * Batched UDP for the embedded nameserver: the native addon in ./native (udp_batch.c, Linux
 * recvmmsg/sendmmsg) reads up to BATCH datagrams with one system call and calls us once for all of
 * them; we write each reply into an arena it sends from with one more system call. Node 20's dgram
 * costs a system call, a Buffer, an address string and a JavaScript callback per datagram, and another
 * system call and request object per reply; on a 2-core machine that was ~12 µs of CPU per query,
 * most of it outside our code (bench:dns). No maintained npm package does this, hence the addon.
 *
 * dgram still binds the socket (so node:cluster still shares it between DNS workers), is told to stop
 * reading, and closes it; the addon serves a duplicate of its file descriptor. When the addon is not
 * built (another OS, `npm ci --ignore-scripts`) or Node's dgram internals are not what we expect, the
 * caller keeps dgram's own per-datagram path: `attach` returns null.
 */

/** Datagrams per system call (Knot reads 64 at a time too). */
export const BATCH = 64;
/** Octets per datagram slot: the largest UDP payload, so no query is cut short. */
const SLOT = 65536;
const CTL_STRIDE = 8;

interface Addon {
  open(
    fd: number,
    batch: number,
    slot: number,
    input: ArrayBuffer,
    output: ArrayBuffer,
    ctl: ArrayBuffer,
    addr: ArrayBuffer,
    onBatch: (n: number) => void,
    own: boolean,
  ): unknown;
  bindReusePort(host: string, port: number, bufferBytes: number): number;
  close(handle: unknown): void;
  sendTo(handle: unknown, reply: Buffer, address: string, port: number): boolean;
  stats(handle: unknown): [number, number, number, number, number];
}

let addon: Addon | null | undefined;
let loadError: string | null = null;

/** The addon, or null (with `loadError` saying why) when it cannot be loaded here. */
const load = (): Addon | null => {
  if (addon !== undefined) return addon;
  if (process.platform !== 'linux') {
    loadError = `batched UDP needs Linux (recvmmsg/sendmmsg), this is ${process.platform}`;
    return (addon = null);
  }
  try {
    addon = createRequire(import.meta.url)('./native/build/Release/udp_batch.node') as Addon;
    // A build from before sendTo would drop every late reply (UPDATE, signed queries): dgram serves instead.
    if (typeof addon.sendTo !== 'function') {
      loadError = 'the udp_batch addon is out of date (no sendTo): run npm run build:native';
      addon = null;
    }
  } catch (err) {
    loadError = `the udp_batch addon is not built (npm run build:native): ${(err as Error).message.split('\n')[0]}`;
    addon = null;
  }
  return addon;
};

/** Why batched UDP is unavailable here, or null when it is available. */
export const batchedUdpUnavailable = (): string | null => (load() === null ? loadError : null);

/**
 * One received datagram's reply: written into `out` at `at` (at most `room` octets), its length
 * returned; 0 sends nothing. `peer()` formats the sender's address (only the slow path needs it), `peerPort()` its port.
 */
export type BatchAnswer = (query: Buffer, out: Buffer, at: number, room: number, peer: () => string, peerPort: () => number) => number;

export interface BatchedUdp {
  /** Batches read, datagrams received, replies sent, replies the kernel refused (dropped) and socket errors, so far. */
  stats(): { batches: number; received: number; sent: number; dropped: number; errors: number };
  /**
   * Sends one datagram from the served socket, now: for a reply ready only after its batch went out (it
   * waited for the store). `address` is a peer as `peer()` formats it. False when the kernel could not
   * take it or the socket is closed (counted as dropped, lost as any UDP datagram may be).
   */
  sendTo(reply: Buffer, address: string, port: number): boolean;
  close(): void;
}

/** dgram's handle behind a bound socket: its fd and recvStop (Node internals, checked before use). */
const handleOf = (socket: dgram.Socket): { fd: number; recvStop(): number } | null => {
  const state = Object.getOwnPropertySymbols(socket).find((s) => s.description === 'state symbol');
  const handle = state
    ? (socket as unknown as Record<symbol, { handle?: { fd?: unknown; recvStop?: unknown } }>)[state]?.handle
    : undefined;
  if (!handle || typeof handle.fd !== 'number' || handle.fd < 0 || typeof handle.recvStop !== 'function') return null;
  return handle as { fd: number; recvStop(): number };
};

const ipv4 = (a: Uint8Array, o: number): string => `${a[o]}.${a[o + 1]}.${a[o + 2]}.${a[o + 3]}`;

/**
 * An IPv6 address as glibc's inet_ntop (and so dgram) writes it: RFC 5952 (the longest run of two or more
 * zero words, the first on a tie, becomes "::"), with the last 32 bits dotted for IPv4-mapped
 * (::ffff:a.b.c.d) and IPv4-compatible (::a.b.c.d) addresses. A link-local peer's %scope, which dgram
 * appends, is not given (the addon passes no scope id); the transfer ACL compares addresses only.
 */
export const formatIpv6 = (a: Uint8Array, o = 0): string => {
  const words: number[] = [];
  for (let i = 0; i < 16; i += 2) words.push((a[o + i]! << 8) | a[o + i + 1]!);
  let leadingZeros = 0;
  while (leadingZeros < 6 && words[leadingZeros] === 0) leadingZeros++;
  if (leadingZeros >= 5 && words[5] === 0xffff) return `::ffff:${ipv4(a, o + 12)}`;
  if (leadingZeros === 6 && words[6] !== 0) return `::${ipv4(a, o + 12)}`;
  return rfc5952(words);
};

/**
 * Serves the bound `socket` in batches through the addon, or returns null (see `batchedUdpUnavailable`)
 * and leaves the socket as it was. `answer` is called once per datagram; it must not throw.
 */
export const attach = (socket: dgram.Socket, answer: BatchAnswer): BatchedUdp | null => {
  const native = load();
  const handle = native ? handleOf(socket) : null;
  if (!native || !handle) {
    if (native) loadError = 'this Node.js dgram has no handle fd to share';
    return null;
  }
  const served = serve(native, handle.fd, false, answer);
  if (served) handle.recvStop(); // dgram stops reading; the addon's duplicate of the fd reads from now on
  return served;
};

/**
 * A UDP socket of this process alone on `host:port`, bound with SO_REUSEPORT and served in batches: each
 * DNS worker binds its own and the kernel spreads senders among them (one shared socket wakes every
 * worker for each datagram). Null when the addon is not available; throws when the port cannot be bound.
 */
export const bindReusePort = (host: string, port: number, bufferBytes: number, answer: BatchAnswer): BatchedUdp | null => {
  const native = load();
  if (!native) return null;
  const fd = native.bindReusePort(host, port, bufferBytes);
  return serve(native, fd, true, answer);
};

const serve = (native: Addon, fd: number, own: boolean, answer: BatchAnswer): BatchedUdp | null => {
  const input = new ArrayBuffer(BATCH * SLOT);
  const output = new ArrayBuffer(BATCH * SLOT);
  const ctlBuf = new ArrayBuffer(BATCH * CTL_STRIDE * 4);
  const addrBuf = new ArrayBuffer(BATCH * 16);
  const inBytes = Buffer.from(input);
  const outBytes = Buffer.from(output);
  const ctl = new Int32Array(ctlBuf);
  const addr = new Uint8Array(addrBuf);
  let current = 0;
  const peer = (): string => {
    const c = current * CTL_STRIDE;
    return ctl[c + 2] === 4 ? ipv4(addr, current * 16) : formatIpv6(addr, current * 16);
  };
  const peerPort = (): number => ctl[current * CTL_STRIDE + 1]!;
  const onBatch = (n: number): void => {
    for (let i = 0; i < n; i++) {
      const c = i * CTL_STRIDE;
      const len = ctl[c]!;
      // A datagram longer than its slot (impossible for UDP over IP, kept for safety) or from no IP peer: no reply.
      if (len < 0 || ctl[c + 3] === 1) continue;
      current = i;
      const at = i * SLOT;
      ctl[c + 4] = answer(inBytes.subarray(at, at + len), outBytes, at, SLOT, peer, peerPort);
    }
  };
  let h: unknown;
  try {
    h = native.open(fd, BATCH, SLOT, input, output, ctlBuf, addrBuf, onBatch, own);
  } catch (err) {
    loadError = (err as Error).message;
    if (own) {
      try {
        closeSync(fd); // ours from bindReusePort: leave the port
      } catch {
        // already closed by the addon
      }
    }
    return null;
  }
  let closed: [number, number, number, number, number] | null = null;
  return {
    stats() {
      const [batches, received, sent, dropped, errors] = closed ?? native.stats(h);
      return { batches, received, sent, dropped, errors };
    },
    sendTo(reply, address, port) {
      if (closed) return false;
      return native.sendTo(h, reply, address, port);
    },
    close() {
      if (closed) return;
      closed = native.stats(h);
      native.close(h);
    },
  };
};
