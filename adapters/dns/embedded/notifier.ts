import { randomInt } from 'node:crypto';
import dgram from 'node:dgram';
import { isIPv6 } from 'node:net';
import dnsPacket from 'dns-packet';
import type { NotifyOutcome } from '../../../core/dns/ports/nameserver.port.js';
import type { NameserverLogger } from './logger.js';
import { FLAG, OPCODE, RCODE, serialBefore } from './wire.js';

/** Waits `ms`; false when cancelled first. */
const sleep = (ms: number, signal: AbortSignal): Promise<boolean> =>
  new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });

export interface Secondary {
  readonly host: string;
  readonly port: number;
}

export interface NotifyTiming {
  /** Sends per secondary before giving up (RFC 1996 §3.6: retry until acknowledged, a few times). */
  readonly attempts: number;
  /** Wait for the first acknowledgement; doubled after each silent attempt. */
  readonly firstTimeoutMs: number;
  /**
   * 0 (default): an acknowledged NOTIFY is done. Above 0: after the acknowledgement, wait this long and
   * ask the secondary for the zone's SOA; while its serial is older than ours, NOTIFY again (a fresh
   * one) and ask again, the wait doubling, up to `attempts` rounds. A secondary told of a change asks a
   * primary for the SOA; when several DNS workers share our socket and one has not loaded the change
   * yet, that answer says "up to date" and the secondary would stay stale until its refresh timer.
   */
  readonly verifyMs?: number;
}

export const DEFAULT_NOTIFY_TIMING: NotifyTiming = { attempts: 5, firstTimeoutMs: 1000, verifyMs: 0 };

const where = (s: Secondary): string => (isIPv6(s.host) ? `[${s.host}]:${s.port}` : `${s.host}:${s.port}`);

/**
 * RFC 1996 NOTIFY over UDP: opcode NOTIFY, AA, question `<zone> IN SOA`, from a fresh ephemeral
 * socket per secondary (so acknowledgements never reach the query socket), retried with doubling
 * waits until acknowledged. A newer notification for the same zone cancels the older one.
 */
export class Notifier {
  private readonly running = new Map<string, AbortController>();

  constructor(
    private readonly secondaries: readonly Secondary[],
    private readonly log: NameserverLogger,
    private readonly timing: NotifyTiming = DEFAULT_NOTIFY_TIMING,
  ) {}

  /** NOTIFY every secondary of `zone`; with `serial` and timing.verifyMs, until each serves that serial (see NotifyTiming). */
  notify(zone: string, serial?: number): Promise<NotifyOutcome[]> {
    this.running.get(zone)?.abort();
    const ctl = new AbortController();
    this.running.set(zone, ctl);
    return Promise.all(this.secondaries.map((s) => this.verified(zone, serial, s, ctl.signal))).finally(() => {
      if (this.running.get(zone) === ctl) this.running.delete(zone);
    });
  }

  close(): void {
    for (const ctl of this.running.values()) ctl.abort();
    this.running.clear();
  }

  /** NOTIFY, then (verifyMs > 0) check the secondary's SOA serial and NOTIFY again while it is behind ours. */
  private async verified(zone: string, serial: number | undefined, secondary: Secondary, signal: AbortSignal): Promise<NotifyOutcome> {
    let outcome = await this.one(zone, secondary, signal);
    const verifyMs = this.timing.verifyMs ?? 0;
    if (verifyMs <= 0 || serial === undefined) return outcome;
    let sends = outcome.attempts;
    for (let round = 0, wait = verifyMs; outcome.acknowledged && round < this.timing.attempts && !signal.aborted; round++, wait *= 2) {
      if (!(await sleep(wait, signal))) break;
      const theirs = await this.serialOf(zone, secondary, Math.max(200, verifyMs), signal);
      if (theirs !== null && !serialBefore(theirs, serial)) {
        this.log.debug({ zone, secondary: where(secondary), serial, rounds: round + 1 }, 'secondary serves the new serial');
        return { ...outcome, attempts: sends };
      }
      this.log.info({ zone, secondary: where(secondary), serial, theirs }, 'secondary still behind after NOTIFY; notifying again');
      outcome = await this.one(zone, secondary, signal);
      sends += outcome.attempts;
    }
    return { ...outcome, attempts: sends };
  }

  /** The secondary's SOA serial for `zone` (a plain UDP query), or null when it does not answer one. */
  private async serialOf(zone: string, secondary: Secondary, timeoutMs: number, signal: AbortSignal): Promise<number | null> {
    const id = randomInt(0x10000);
    const socket = dgram.createSocket(isIPv6(secondary.host) ? 'udp6' : 'udp4');
    socket.on('error', () => undefined);
    try {
      const reply = new Promise<number | null>((resolve) => {
        const done = (v: number | null): void => {
          clearTimeout(timer);
          signal.removeEventListener('abort', onAbort);
          resolve(v);
        };
        const onAbort = (): void => done(null);
        const timer = setTimeout(() => done(null), timeoutMs);
        signal.addEventListener('abort', onAbort);
        socket.on('message', (msg: Buffer) => {
          try {
            const p = dnsPacket.decode(msg);
            if (p.id !== id || p.type !== 'response') return;
            const soa = p.answers?.find((a) => a.type === 'SOA') as dnsPacket.SoaAnswer | undefined;
            done(soa?.data.serial === undefined ? null : soa.data.serial >>> 0);
          } catch {
            /* not an answer to us */
          }
        });
      });
      socket.send(
        dnsPacket.encode({ type: 'query', id, questions: [{ name: zone, type: 'SOA', class: 'IN' }] }),
        secondary.port,
        secondary.host,
      );
      return await reply;
    } finally {
      socket.close();
    }
  }

  private async one(zone: string, secondary: Secondary, signal: AbortSignal): Promise<NotifyOutcome> {
    const id = randomInt(0x10000);
    const message = dnsPacket.encode({
      type: 'query',
      id,
      flags: (OPCODE.NOTIFY << 11) | FLAG.AA,
      questions: [{ name: zone, type: 'SOA', class: 'IN' }],
    });
    const socket = dgram.createSocket(isIPv6(secondary.host) ? 'udp6' : 'udp4');
    socket.on('error', (err) => this.log.warn({ err, secondary: where(secondary), zone }, 'NOTIFY socket error'));
    let attempts = 0;
    try {
      for (let timeout = this.timing.firstTimeoutMs; attempts < this.timing.attempts && !signal.aborted; timeout *= 2) {
        attempts++;
        socket.send(message, secondary.port, secondary.host);
        const rcode = await this.reply(socket, id, secondary, timeout, signal);
        if (rcode === null) continue;
        const acknowledged = rcode === RCODE.NOERROR;
        if (acknowledged) this.log.debug({ zone, secondary: where(secondary), attempts }, 'NOTIFY acknowledged');
        else this.log.warn({ zone, secondary: where(secondary), rcode }, 'NOTIFY answered with an error');
        return { secondary: where(secondary), acknowledged, attempts };
      }
      if (!signal.aborted) this.log.warn({ zone, secondary: where(secondary), attempts }, 'NOTIFY not acknowledged');
      return { secondary: where(secondary), acknowledged: false, attempts };
    } finally {
      socket.close();
    }
  }

  /** The rcode of the matching acknowledgement, or null on timeout or cancellation. */
  private reply(socket: dgram.Socket, id: number, from: Secondary, timeoutMs: number, signal: AbortSignal): Promise<number | null> {
    return new Promise((resolve) => {
      const done = (v: number | null): void => {
        clearTimeout(timer);
        socket.off('message', onMessage);
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      };
      const onMessage = (msg: Buffer, rinfo: dgram.RemoteInfo): void => {
        if (msg.length < 12 || rinfo.port !== from.port) return;
        const flags = msg.readUInt16BE(2);
        // RFC 1996 §4.7: the answer comes from the address we sent to, with our ID, QR and opcode.
        if (msg.readUInt16BE(0) !== id || !(flags & FLAG.QR) || ((flags >> 11) & 0xf) !== OPCODE.NOTIFY) return;
        if (rinfo.address.replace(/^::ffff:/, '') !== from.host.replace(/^::ffff:/, '')) return;
        done(flags & 0xf);
      };
      const onAbort = (): void => done(null);
      const timer = setTimeout(() => done(null), timeoutMs);
      socket.on('message', onMessage);
      signal.addEventListener('abort', onAbort);
    });
  }
}
