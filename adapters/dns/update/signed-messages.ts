import type { ResolveTsigKey } from '../../../core/access/resolve-tsig-key.use-case.js';
import type { CredentialThrottle } from '../../../core/accounts/credential-throttle.js';
import { isDomainError } from '../../../core/kernel/errors.js';
import type { ApplyDnsUpdate } from '../../../core/dns/update/apply-dns-update.use-case.js';
import type { AuthorizeTransfer } from '../../../core/dns/update/authorize-transfer.use-case.js';
import type { Environment } from '../../../core/kernel/environment.js';
import {
  failureResponse,
  parseTsig,
  signResponse,
  TSIG_ERROR,
  TsigStreamSigner,
  TSIG_ERROR_NAME,
  verifyRequest,
  type ParsedTsig,
  type TsigKey,
} from '../tsig.js';
import { parseUpdate } from './update-message.js';
import { OPCODE, RCODE } from '../embedded/wire.js';

/** The core use cases a signed DNS message reaches (as the HTTP routes reach theirs). */
export interface SignedDnsUseCases {
  readonly tsigKeys: Pick<ResolveTsigKey, 'execute' | 'firstUse'>;
  readonly update: Pick<ApplyDnsUpdate, 'execute' | 'arrive'>;
  readonly transfer: Pick<AuthorizeTransfer, 'execute'>;
  /** The one limiter of credential checks (passwords, TOTP codes — and TSIG MACs): per address and per key name. */
  readonly throttle: Pick<CredentialThrottle, 'admit' | 'succeeded' | 'failed'>;
  /**
   * The key's rate limit: the token bucket its API calls spend (in this process), one token per UPDATE and
   * per signed transfer, none when refused.
   */
  readonly keyRate: KeyRateLimit;
}

export interface KeyRateDecision {
  readonly allowed: boolean;
  readonly retryAfterSeconds: number;
}

export interface KeyRateLimit {
  /** A promise where the bucket is another process's (a DNS cluster worker asks its primary). */
  takeForKey(keyId: string): KeyRateDecision | Promise<KeyRateDecision>;
}

export type Transport = 'udp' | 'tcp';

/** What the nameserver offers: its ordinary answer to an (unsigned) query. */
export interface UnsignedAnswerer {
  answerUnsigned(packet: Buffer, transport: Transport, peer: string): Buffer[];
  /** AXFR/IXFR whose request the key authorised (the address allow-list is not asked). */
  transferAuthorised(packet: Buffer, transport: Transport, peer: string): Buffer[];
}

export interface SignedLog {
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** RFC 8914 info codes: Other, Prohibited, Not Authoritative. */
const EDE_OTHER = 0;
const EDE_PROHIBITED = 18;
const EDE_NOT_AUTHORITATIVE = 20;
/** The widest time window we accept, whatever fudge a client asks for (RFC 8945 §10 recommends 300 s). */
export const MAX_FUDGE = 300;

const ednsOf = (msg: Buffer): boolean => {
  // An OPT record anywhere in the additional section (the TSIG, if any, was removed).
  try {
    const ar = msg.readUInt16BE(10);
    if (ar === 0) return false;
    const total = msg.readUInt16BE(4) + msg.readUInt16BE(6) + msg.readUInt16BE(8) + ar;
    let o = 12;
    const skip = (at: number): number => {
      for (;;) {
        const l = msg[at]!;
        if (l === undefined) throw new RangeError();
        if (l === 0) return at + 1;
        if ((l & 0xc0) === 0xc0) return at + 2;
        at += 1 + l;
      }
    };
    for (let i = 0; i < msg.readUInt16BE(4); i++) o = skip(o) + 4;
    for (let i = msg.readUInt16BE(4); i < total; i++) {
      o = skip(o);
      if (msg.readUInt16BE(o) === 41) return true;
      o += 10 + msg.readUInt16BE(o + 8);
    }
  } catch {
    return false;
  }
  return false;
};

/** End of the first question or zone when it is an uncompressed name + type + class; 0 otherwise. */
const questionEnd = (msg: Buffer): number => {
  if (msg.length < 12 || msg.readUInt16BE(4) < 1) return 0;
  let o = 12;
  for (;;) {
    const l = msg[o];
    if (l === undefined || l > 63) return 0;
    if (l === 0) return o + 5 <= msg.length ? o + 5 : 0;
    o += 1 + l;
  }
};

/** The question's name (uncompressed, checked by questionEnd), lower case, without the trailing dot. */
const readZoneName = (msg: Buffer, qEnd: number): string => {
  const labels: string[] = [];
  for (let o = 12; o < qEnd - 5; o += 1 + msg[o]!) labels.push(msg.toString('latin1', o + 1, o + 1 + msg[o]!).toLowerCase());
  return labels.join('.');
};

/**
 * A reply with no records: the request's ID, opcode and RD, its zone/question copied back, the rcode,
 * TC when asked, and an OPT with an Extended DNS Error (RFC 8914) when the request had EDNS (RFC 6891 §7:
 * never an OPT to a client that sent none).
 */
export const bareReply = (request: Buffer, rcode: number, opts: { ede?: { code: number; text: string }; tc?: boolean } = {}): Buffer => {
  const qEnd = questionEnd(request);
  const question = qEnd > 0 ? request.subarray(12, qEnd) : Buffer.alloc(0);
  let opt = Buffer.alloc(0);
  if (ednsOf(request)) {
    const text = Buffer.from(opts.ede?.text ?? '', 'utf8').subarray(0, 300);
    const option = opts.ede ? Buffer.alloc(4 + 2 + text.length) : Buffer.alloc(0);
    if (opts.ede) {
      option.writeUInt16BE(15, 0);
      option.writeUInt16BE(2 + text.length, 2);
      option.writeUInt16BE(opts.ede.code, 4);
      text.copy(option, 6);
    }
    opt = Buffer.alloc(11 + option.length);
    opt.writeUInt16BE(41, 1);
    opt.writeUInt16BE(1232, 3);
    opt[5] = rcode >> 4;
    opt.writeUInt16BE(option.length, 9);
    option.copy(opt, 11);
  }
  const out = Buffer.alloc(12 + question.length + opt.length);
  out.writeUInt16BE(request.readUInt16BE(0), 0);
  out.writeUInt16BE(0x8000 | (request.readUInt16BE(2) & 0x7900) | (opts.tc ? 0x0200 : 0) | (rcode & 0xf), 2);
  out.writeUInt16BE(question.length > 0 ? 1 : 0, 4);
  out.writeUInt16BE(opt.length > 0 ? 1 : 0, 10);
  question.copy(out, 12);
  opt.copy(out, 12 + question.length);
  return out;
};

/**
 * Signed DNS messages (RFC 8945) and DNS UPDATE (RFC 2136) for our nameserver: the TSIG name resolves
 * to a key (its credential), the MAC and time are checked, a message seen before is refused (the
 * replay memory is in the store, shared by every DNS worker), and then an UPDATE goes to the core's
 * ApplyDnsUpdate and a QUERY gets the nameserver's ordinary answer, signed. Every answer to a verified
 * message is signed (§5.3); BADKEY and BADSIG answers are not (§5.2). Log lines carry the key name
 * and the reason, never a secret or a MAC.
 */
/** A message whose TSIG verified: what answering it needs. */
interface VerifiedMessage {
  readonly unsigned: Buffer;
  /** The API key the TSIG credential belongs to. */
  readonly apiKey: Parameters<SignedDnsUseCases['update']['execute']>[0];
  readonly key: TsigKey;
  readonly transport: Transport;
  readonly peer: string;
  readonly server: UnsignedAnswerer;
  readonly sign: (reply: Buffer) => Buffer;
  readonly parsed: ParsedTsig;
  readonly now: number;
}

export class SignedMessages {
  constructor(
    private readonly uc: SignedDnsUseCases,
    private readonly opts: { readonly serves: Environment | null; readonly log: SignedLog; readonly nowSeconds?: () => number },
  ) {}

  /** An UPDATE (signed or not), or any message carrying a TSIG: ours to answer. */
  wants(packet: Buffer): boolean {
    if (packet.length < 12 || packet[2]! & 0x80) return false;
    const opcode = (packet[2]! >> 3) & 0xf;
    if (opcode === OPCODE.UPDATE) return true;
    return packet.readUInt16BE(10) > 0 && parseTsig(packet).kind !== 'none';
  }

  /** TC, so the client asks again over TCP (RFC 2136 §3.8 clients retry TCP on truncation). */
  truncated(packet: Buffer): Buffer {
    // An UPDATE answered NOERROR would read as applied to a client that does not retry (nsupdate without -v).
    if (packet.length >= 12 && ((packet[2]! >> 3) & 0xf) === OPCODE.UPDATE) {
      return bareReply(packet, RCODE.REFUSED, {
        tc: true,
        ede: { code: EDE_PROHIBITED, text: 'send UPDATE over TCP to this server (nsupdate -v)' },
      });
    }
    return bareReply(packet, RCODE.NOERROR, { tc: true });
  }

  private now(): number {
    return this.opts.nowSeconds ? this.opts.nowSeconds() : Math.floor(Date.now() / 1000);
  }

  async handle(packet: Buffer, transport: Transport, peer: string, server: UnsignedAnswerer): Promise<Buffer[]> {
    const log = this.opts.log;
    const parsed = parseTsig(packet);
    const opcode = (packet[2]! >> 3) & 0xf;
    if (parsed.kind === 'formerr') return [bareReply(packet, RCODE.FORMERR, { ede: { code: EDE_OTHER, text: `TSIG: ${parsed.reason}` } })];
    if (parsed.kind === 'none') {
      if (opcode !== OPCODE.UPDATE) return server.answerUnsigned(packet, transport, peer);
      // Records that cannot be walked hide any TSIG: a format error (RFC 8945 §5.2), not a missing signature.
      const body = parseUpdate(packet);
      if (!body.ok && body.rcode !== 'NOTAUTH') return [bareReply(packet, RCODE.FORMERR, { ede: { code: EDE_OTHER, text: body.reason } })];
      log.info({ peer, transport }, 'unsigned DNS UPDATE refused');
      return [
        bareReply(packet, RCODE.REFUSED, {
          ede: { code: EDE_PROHIBITED, text: "unsigned UPDATE refused: sign it with your key's TSIG credential" },
        }),
      ];
    }
    const now = this.now();
    // Waits as every credential check does, but only a failed check is counted: one HMAC is cheap, and a
    // client's own signed messages in flight must not lock it out (core/accounts/credential-throttle.ts).
    let check: Awaited<ReturnType<SignedDnsUseCases['throttle']['admit']>>;
    try {
      check = await this.uc.throttle.admit(peer, `tsig:${parsed.tsig.keyName}`, 'on_failure');
    } catch (err) {
      if (!isDomainError(err) || err.code !== 'too_many_attempts') throw err;
      log.info({ peer, transport, tsig_key: parsed.tsig.keyName }, 'TSIG check throttled');
      const wait = (err.params as { retry_after?: number }).retry_after ?? 1;
      return [
        bareReply(parsed.unsigned, RCODE.REFUSED, {
          ede: { code: EDE_PROHIBITED, text: `too many failed TSIG checks; retry in ${wait} s` },
        }),
      ];
    }
    const found = await this.uc.tsigKeys.execute(parsed.tsig.keyName);
    const tsigKey: TsigKey | undefined = found.ok
      ? { name: found.name, algorithm: found.algorithm, secret: Buffer.from(found.secret, 'base64') }
      : undefined;
    const verified = verifyRequest(parsed, (n) => (tsigKey && n === tsigKey.name ? tsigKey : undefined), { now });
    const unsigned = parsed.unsigned;
    if (verified.ok) await this.uc.throttle.succeeded(check);
    else await this.uc.throttle.failed(check, null);
    if (!verified.ok) {
      const why = !found.ok ? `key ${found.reason}` : verified.reason;
      log.info(
        { peer, transport, tsig_key: parsed.tsig.keyName, tsig_error: TSIG_ERROR_NAME[verified.error] ?? verified.error, reason: why },
        'TSIG check failed',
      );
      const reply = bareReply(unsigned, verified.rcode, {
        ede: { code: EDE_OTHER, text: `TSIG ${TSIG_ERROR_NAME[verified.error] ?? 'FORMERR'}: ${why}` },
      });
      return [failureResponse(reply, verified, now)];
    }
    const key = verified.key;
    const sign = (reply: Buffer): Buffer => signResponse(reply, key, parsed.tsig.mac, { now, fudge: parsed.tsig.fudge }).message;
    if (Math.abs(now - parsed.tsig.timeSigned) > MAX_FUDGE) {
      const reply = bareReply(unsigned, RCODE.NOTAUTH, {
        ede: { code: EDE_OTHER, text: `TSIG BADTIME: more than ${MAX_FUDGE} s from our clock` },
      });
      return [
        failureResponse(
          reply,
          { ok: false, rcode: RCODE.NOTAUTH, error: TSIG_ERROR.BADTIME, reason: 'fudge', tsig: parsed.tsig, key },
          now,
        ),
      ];
    }
    if (!found.ok) return []; // unreachable: a verified MAC needs a found key
    // A verified UPDATE is announced to its zone's group commit at once, so a commit starting meanwhile waits
    // for it (the replay claim and the key's checks below are store round trips); released when it joins or is answered.
    const zoneQ = opcode === OPCODE.UPDATE ? questionEnd(unsigned) : 0;
    const arrived = zoneQ > 0 ? this.uc.update.arrive(found.key, readZoneName(unsigned, zoneQ)) : undefined;
    try {
      return await this.verified({ unsigned, apiKey: found.key, key, transport, peer, server, sign, parsed, now }, opcode, arrived);
    } finally {
      arrived?.();
    }
  }

  /** A verified message: the replay claim, the key's rate limit, then the UPDATE, query or transfer. */
  private async verified(m: VerifiedMessage, opcode: number, arrived: (() => void) | undefined): Promise<Buffer[]> {
    const { unsigned, apiKey, transport, peer, server, sign, parsed } = m;
    const log = this.opts.log;
    const found = { name: parsed.tsig.keyName, key: apiKey };
    if (!(await this.uc.tsigKeys.firstUse(found.key.id, parsed.tsig.timeSigned, parsed.tsig.mac.toString('hex')))) {
      log.info({ peer, transport, tsig_key: found.name, key_id: found.key.id }, 'replayed signed DNS message refused');
      return [sign(bareReply(unsigned, RCODE.NOTAUTH, { ede: { code: EDE_OTHER, text: 'replayed message: sign each message afresh' } }))];
    }
    const qEnd = opcode === OPCODE.QUERY ? questionEnd(unsigned) : 0;
    const qtype = qEnd > 0 ? unsigned.readUInt16BE(qEnd - 4) : 0;
    const transfer = qtype === 252 || qtype === 251;
    // Counted after the replay check: a recorded message replayed by someone on the path spends nothing.
    if (opcode === OPCODE.UPDATE || transfer) {
      const rate = await this.uc.keyRate.takeForKey(found.key.id);
      if (!rate.allowed) {
        log.info({ peer, transport, tsig_key: found.name, key_id: found.key.id, opcode }, 'signed DNS message rate limited');
        return [
          sign(
            bareReply(unsigned, RCODE.REFUSED, {
              ede: { code: EDE_PROHIBITED, text: `rate_limited: the key's rate limit is spent; retry in ${rate.retryAfterSeconds} s` },
            }),
          ),
        ];
      }
    }
    if (opcode === OPCODE.UPDATE) return [await this.update(unsigned, found.key, transport, peer, sign, parsed, arrived)];
    if (opcode === OPCODE.QUERY) {
      if (transfer) return this.transfer(m, qEnd);
      return server.answerUnsigned(unsigned, transport, peer).slice(0, 1).map(sign);
    }
    return [sign(bareReply(unsigned, RCODE.NOTIMP))];
  }

  /** Signed AXFR/IXFR (RFC 8945 §5.3.1: every message of the answer signed, each over the one before). */
  private async transfer(m: VerifiedMessage, qEnd: number): Promise<Buffer[]> {
    const { unsigned, apiKey, key, transport, peer, server, sign, parsed, now } = m;
    let zone: string;
    try {
      zone = readZoneName(unsigned, qEnd);
    } catch {
      return [sign(bareReply(unsigned, RCODE.FORMERR))];
    }
    const outcome = await this.uc.transfer.execute(apiKey, zone, { serves: this.opts.serves, peer });
    this.opts.log.info(
      { peer, transport, key_id: apiKey.id, tsig_key: parsed.tsig.keyName, zone, rcode: outcome.rcode, reason: outcome.reason },
      'signed zone transfer',
    );
    if (outcome.rcode !== 'NOERROR') {
      const code = outcome.rcode === 'REFUSED' ? EDE_PROHIBITED : EDE_NOT_AUTHORITATIVE;
      return [sign(bareReply(unsigned, RCODE[outcome.rcode], { ede: { code, text: outcome.reason } }))];
    }
    const signer = new TsigStreamSigner(key, parsed.tsig.mac, parsed.tsig.fudge);
    return server.transferAuthorised(unsigned, transport, peer).map((m) => signer.sign(m, now));
  }

  private async update(
    unsigned: Buffer,
    key: Parameters<SignedDnsUseCases['update']['execute']>[0],
    transport: Transport,
    peer: string,
    sign: (reply: Buffer) => Buffer,
    parsed: ParsedTsig,
    arrived?: () => void,
  ): Promise<Buffer> {
    // A UDP source address can be forged: a key bound to addresses updates over TCP only (TC sends the client there).
    // REFUSED beside TC: a client that does not retry over TCP (nsupdate without -v) must not take it for success.
    if (key.conditions.cidr && transport === 'udp') {
      return sign(
        bareReply(unsigned, RCODE.REFUSED, {
          tc: true,
          ede: { code: EDE_PROHIBITED, text: 'this key updates over TCP only (nsupdate -v)' },
        }),
      );
    }
    const req = parseUpdate(unsigned);
    if (!req.ok) {
      this.opts.log.info({ peer, key_id: key.id, rcode: req.rcode, reason: req.reason }, 'DNS UPDATE refused');
      return sign(
        bareReply(unsigned, RCODE[req.rcode], {
          ede: { code: req.rcode === 'NOTAUTH' ? EDE_NOT_AUTHORITATIVE : EDE_OTHER, text: req.reason },
        }),
      );
    }
    let outcome;
    try {
      outcome = await this.uc.update.execute(key, req, { serves: this.opts.serves, peer, ...(arrived ? { arrived } : {}) });
    } catch (err) {
      this.opts.log.error({ err, peer, key_id: key.id, zone: req.zone }, 'DNS UPDATE failed');
      return sign(bareReply(unsigned, RCODE.SERVFAIL, { ede: { code: EDE_OTHER, text: 'internal error' } }));
    }
    this.opts.log.info(
      {
        peer,
        transport,
        key_id: key.id,
        tsig_key: parsed.tsig.keyName,
        zone: req.zone,
        rcode: outcome.rcode,
        reason: outcome.reason,
        serial: outcome.serial,
      },
      'DNS UPDATE',
    );
    const code = outcome.rcode === 'REFUSED' ? EDE_PROHIBITED : outcome.rcode === 'NOTAUTH' ? EDE_NOT_AUTHORITATIVE : EDE_OTHER;
    return sign(bareReply(unsigned, RCODE[outcome.rcode], outcome.rcode === 'NOERROR' ? {} : { ede: { code, text: outcome.reason } }));
  }
}
