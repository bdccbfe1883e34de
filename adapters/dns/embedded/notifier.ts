import { randomInt } from 'node:crypto';
import dgram from 'node:dgram';
import { isIPv6 } from 'node:net';
import dnsPacket from 'dns-packet';
import type { NotifyOutcome } from '../../../core/dns/ports/nameserver.port.js';
import type { NameserverLogger } from './config.js';
import { FLAG, OPCODE, RCODE } from './wire.js';

export interface Secondary {
  readonly host: string;
  readonly port: number;
}

export interface NotifyTiming {
  /** Sends per secondary before giving up (RFC 1996 §3.6: retry until acknowledged, a few times). */
  readonly attempts: number;
  /** Wait for the first acknowledgement; doubled after each silent attempt. */
  readonly firstTimeoutMs: number;
}

export const DEFAULT_NOTIFY_TIMING: NotifyTiming = { attempts: 5, firstTimeoutMs: 1000 };

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

  notify(zone: string): Promise<NotifyOutcome[]> {
    this.running.get(zone)?.abort();
    const ctl = new AbortController();
    this.running.set(zone, ctl);
    return Promise.all(this.secondaries.map((s) => this.one(zone, s, ctl.signal))).finally(() => {
      if (this.running.get(zone) === ctl) this.running.delete(zone);
    });
  }

  close(): void {
    for (const ctl of this.running.values()) ctl.abort();
    this.running.clear();
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
