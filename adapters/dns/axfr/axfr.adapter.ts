import { randomInt } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import dnsPacket from 'dns-packet';
import { DomainError } from '../../../core/kernel/errors.js';
import type { AxfrRequest, ZoneTransferClient } from '../../../core/dns/ports/zone-import.port.js';
import { algorithmOf, parseTsig, signRequest, TSIG_ERROR_NAME, TsigStreamVerifier, type TsigKey } from '../tsig.js';

/** How a name becomes the one checked address we connect to (the SSRF guard's lookup, wired in src/). */
export type AxfrLookup = (
  hostname: string,
  options: { family?: number },
  callback: (err: NodeJS.ErrnoException | null, address: string | ReadonlyArray<{ address: string }>, family?: number) => void,
) => void;

export interface AxfrClientOptions {
  /** Resolves once and refuses what the guard refuses; the connection then goes to that very address. */
  readonly lookup: AxfrLookup;
}

const RCODE_REFUSED = new Set(['REFUSED', 'NOTAUTH']);

const nowSeconds = (): number => Math.floor(Date.now() / 1000);

/** A failed TSIG check as the error states it: its TSIG error name when it has one, else the reason. */
const tsigReason = (v: { reason: string; error: number }): string =>
  v.error ? `${TSIG_ERROR_NAME[v.error] ?? v.error}: ${v.reason}` : v.reason;

/** A record's rdata as zone-file text: names absolute, strings quoted byte by byte (\DDD escapes). */
const quoteBytes = (b: Buffer): string => {
  const parts = ['"'];
  for (const x of b) {
    if (x === 0x22) parts.push('\\"');
    else if (x === 0x5c) parts.push('\\\\');
    else if (x < 0x20 || x >= 0x7f) parts.push(`\\${String(x).padStart(3, '0')}`);
    else parts.push(String.fromCharCode(x));
  }
  parts.push('"');
  return parts.join('');
};

const abs = (name: string): string => (name === '' || name === '.' ? '.' : `${name}.`);

/** RFC 1035 §3.3 <character-string>s of a raw rdata (SPF, type 99, which dns-packet does not know). */
const characterStrings = (raw: Buffer): Buffer[] => {
  const out: Buffer[] = [];
  for (let i = 0; i < raw.length;) {
    const n = raw[i]!;
    out.push(raw.subarray(i + 1, i + 1 + n));
    i += 1 + n;
  }
  return out;
};

/** One answer record as a master-file line; types we never import get their type and no data (they are skipped by type). */
export const presentRecord = (a: dnsPacket.Answer): string => {
  const rr = a as unknown as { name: string; type: string; ttl?: number; class?: string; data: unknown };
  let type = rr.type;
  let data = rr.data as any; // eslint-disable-line @typescript-eslint/no-explicit-any
  const unknown = /^UNKNOWN_(\d+)$/.exec(type);
  if (unknown) {
    type = unknown[1] === '99' ? 'SPF' : `TYPE${unknown[1]}`;
    if (type === 'SPF') data = characterStrings(data as Buffer);
  }
  let rdata: string;
  switch (type) {
    case 'A':
    case 'AAAA':
      rdata = String(data);
      break;
    case 'NS':
    case 'CNAME':
    case 'PTR':
    case 'DNAME':
      rdata = abs(String(data));
      break;
    case 'MX':
      rdata = `${data.preference} ${abs(data.exchange)}`;
      break;
    case 'SRV':
      rdata = `${data.priority} ${data.weight} ${data.port} ${abs(data.target)}`;
      break;
    case 'TXT':
    case 'SPF': {
      const strings = (Array.isArray(data) ? data : [data]) as Array<Buffer | string>;
      rdata = strings.map((x) => quoteBytes(Buffer.isBuffer(x) ? x : Buffer.from(x))).join(' ');
      break;
    }
    case 'CAA':
      rdata = `${data.flags ?? 0} ${data.tag} ${quoteBytes(Buffer.from(String(data.value)))}`;
      break;
    case 'SOA':
      rdata = `${abs(data.mname)} ${abs(data.rname)} ${data.serial} ${data.refresh} ${data.retry} ${data.expire} ${data.minimum}`;
      break;
    default:
      rdata = '\\# 0';
  }
  return `${abs(rr.name)} ${rr.ttl ?? 0} ${rr.class ?? 'IN'} ${type} ${rdata}\n`;
};

/**
 * AXFR over TCP (RFC 5936) from another provider's server, for zone import: one query, the answer read
 * message by message (2-octet length prefix, RFC 1035 §4.2.2) until the closing SOA, each message's
 * records handed on as master-file text. The address comes from the guard's lookup (resolved once,
 * checked, connected to as is), so a name that resolves to a private address is never reached.
 */
export class AxfrClient implements ZoneTransferClient {
  constructor(private readonly options: AxfrClientOptions) {}

  private resolve(host: string, server: string): Promise<string> {
    return new Promise((resolve, reject) => {
      this.options.lookup(host, {}, (err, address) => {
        if (!err) return resolve(typeof address === 'string' ? address : address[0]!.address);
        if ((err as { code?: string }).code === 'ssrf_refused')
          reject(new DomainError('axfr_server_not_allowed', { server, reason: err.message }));
        else reject(new DomainError('axfr_unreachable', { server, reason: err.code ?? err.message }));
      });
    });
  }

  async *pull(req: AxfrRequest): AsyncIterable<string> {
    const server = req.host.includes(':') ? `[${req.host}]:${req.port}` : `${req.host}:${req.port}`;
    const seconds = Math.ceil(req.timeoutMs / 1000);
    const started = Date.now();
    const timeout = () => new DomainError('axfr_timeout', { server, seconds });
    const address = await this.resolve(req.host, server);
    if (Date.now() - started > req.timeoutMs) throw timeout();

    const id = randomInt(0, 0x10000);
    let query = dnsPacket.encode({ type: 'query', id, flags: 0, questions: [{ type: 'AXFR', name: req.zone, class: 'IN' }] });
    // TSIG (RFC 8945): the query signed, every message of the answer verified in order (§5.3.1).
    let verifier: TsigStreamVerifier | null = null;
    if (req.tsig) {
      const algorithm = algorithmOf(req.tsig.algorithm);
      if (!algorithm) throw new DomainError('axfr_tsig_invalid', { server, reason: `the algorithm ${req.tsig.algorithm} is not offered` });
      const key: TsigKey = { name: req.tsig.name.replace(/\.$/, ''), algorithm, secret: Buffer.from(req.tsig.secret, 'base64') };
      const signed = signRequest(query, key, { now: nowSeconds() });
      query = signed.message;
      verifier = new TsigStreamVerifier(key, signed.mac);
    }

    const socket: Socket = connect({ host: address, port: req.port });
    let timedOut = false;
    const timer = setTimeout(
      () => {
        timedOut = true;
        socket.destroy();
      },
      Math.max(1, req.timeoutMs - (Date.now() - started)),
    );
    try {
      await new Promise<void>((resolve, reject) => {
        socket.once('connect', resolve);
        socket.once('error', reject);
      }).catch((err: NodeJS.ErrnoException) => {
        throw timedOut ? timeout() : new DomainError('axfr_unreachable', { server, reason: err.code ?? err.message });
      });
      const frame = Buffer.alloc(2);
      frame.writeUInt16BE(query.length);
      socket.write(Buffer.concat([frame, query]));

      let buffered: Buffer = Buffer.alloc(0);
      let bytes = 0;
      let soas = 0;
      let messages = 0;
      try {
        for await (const chunk of socket) {
          bytes += (chunk as Buffer).length;
          if (bytes > req.maxBytes) throw new DomainError('import_too_large', { limit: req.maxBytes });
          buffered = buffered.length === 0 ? (chunk as Buffer) : Buffer.concat([buffered, chunk as Buffer]);
          while (buffered.length >= 2 && buffered.length >= 2 + buffered.readUInt16BE(0)) {
            const len = buffered.readUInt16BE(0);
            const raw = buffered.subarray(2, 2 + len);
            buffered = buffered.subarray(2 + len);
            let msg: dnsPacket.Packet;
            try {
              msg = dnsPacket.decode(raw);
            } catch {
              throw new DomainError('axfr_failed', { server, rcode: 'a malformed message' });
            }
            const rcode = (msg as { rcode?: string }).rcode ?? 'NOERROR';
            if (rcode !== 'NOERROR') {
              // A server that refuses our key says why in its (unsigned) TSIG: BADKEY, BADSIG, BADTIME.
              const t = verifier ? parseTsig(Buffer.from(raw)) : null;
              if (t?.kind === 'tsig' && t.tsig.error !== 0)
                throw new DomainError('axfr_tsig_invalid', { server, reason: TSIG_ERROR_NAME[t.tsig.error] ?? String(t.tsig.error) });
              throw new DomainError(RCODE_REFUSED.has(rcode) ? 'axfr_refused' : 'axfr_failed', { server, rcode });
            }
            if (msg.id !== id) throw new DomainError('axfr_failed', { server, rcode: 'an answer to another query' });
            if (verifier) {
              const v = verifier.verify(Buffer.from(raw), nowSeconds());
              if (!v.ok) throw new DomainError('axfr_tsig_invalid', { server, reason: tsigReason(v) });
            }
            messages++;
            let text = '';
            for (const a of msg.answers ?? []) {
              if (a.type === 'SOA' && a.name.toLowerCase() === req.zone) soas++;
              else if (soas === 0) throw new DomainError('axfr_incomplete', { server, reason: 'no-opening-soa' });
              // The closing SOA repeats the opening one: not a record of its own.
              if (soas === 2) break;
              text += presentRecord(a);
            }
            if (soas === 0 && (msg.answers ?? []).length === 0 && messages === 1)
              throw new DomainError('axfr_incomplete', { server, reason: 'no-opening-soa' });
            if (soas >= 2) {
              const end = verifier?.finish();
              if (end && !end.ok) throw new DomainError('axfr_tsig_invalid', { server, reason: end.reason });
            }
            if (text !== '') yield text;
            if (soas >= 2) return;
          }
        }
      } catch (err) {
        if (timedOut) throw timeout();
        if (err instanceof DomainError) throw err;
        throw new DomainError('axfr_unreachable', { server, reason: (err as NodeJS.ErrnoException).code ?? (err as Error).message });
      }
      if (timedOut) throw timeout();
      throw new DomainError('axfr_incomplete', { server, reason: 'no-closing-soa' });
    } finally {
      clearTimeout(timer);
      socket.destroy();
    }
  }
}
