/**
 * TSIG (RFC 8945): HMAC-signed DNS messages, for UPDATE (RFC 2136), signed queries and AXFR/IXFR.
 *
 * Hand-written: dns-packet (which the rest of the DNS code uses for wire forms) has no TSIG support —
 * it decodes a TSIG RR as opaque bytes and cannot compute or check a MAC. So this file works on the raw
 * message: it finds the TSIG RR (the last record of the additional section, §5.1), rebuilds the digest
 * input of §4.3 and compares MACs in constant time (`timingSafeEqual`). Only hmac-sha256 and hmac-sha512 are offered (RFC 8945 §6: MUST/RECOMMENDED);
 * hmac-md5 and hmac-sha1 answer BADKEY, as an unknown algorithm does (§5.2.1).
 *
 * Times are whole seconds since the epoch, passed in by the caller (no clock read here).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export type TsigAlgorithm = 'hmac-sha256' | 'hmac-sha512';
export const TSIG_ALGORITHMS: readonly TsigAlgorithm[] = ['hmac-sha256', 'hmac-sha512'];

/** Output length of each algorithm's HMAC in octets. */
const MAC_LENGTH: Record<TsigAlgorithm, number> = { 'hmac-sha256': 32, 'hmac-sha512': 64 };
const HASH: Record<TsigAlgorithm, string> = { 'hmac-sha256': 'sha256', 'hmac-sha512': 'sha512' };

export const TYPE_TSIG = 250;
const CLASS_ANY = 255;
/** RFC 8945 §10 recommends a fudge of 300 seconds. */
export const DEFAULT_FUDGE = 300;

/** TSIG error codes (RFC 8945 §3, IANA "DNS RCODEs"); carried in the TSIG RR's Error field. */
export const TSIG_ERROR = {
  NOERROR: 0,
  BADSIG: 16,
  BADKEY: 17,
  BADTIME: 18,
  BADTRUNC: 22,
} as const;
export type TsigError = (typeof TSIG_ERROR)[keyof typeof TSIG_ERROR];
export const TSIG_ERROR_NAME: Record<number, string> = { 0: 'NOERROR', 16: 'BADSIG', 17: 'BADKEY', 18: 'BADTIME', 22: 'BADTRUNC' };

const RCODE_FORMERR = 1;
const RCODE_NOTAUTH = 9;

export interface TsigKey {
  /** The key's DNS name, without a trailing dot; compared case-insensitively. */
  readonly name: string;
  readonly algorithm: TsigAlgorithm;
  readonly secret: Buffer;
}

/** A TSIG RR as read from a message. */
export interface TsigRecord {
  /** Key name, lower case, no trailing dot. */
  readonly keyName: string;
  /** Algorithm name, lower case, no trailing dot (e.g. `hmac-sha256`). */
  readonly algorithmName: string;
  readonly timeSigned: number;
  readonly fudge: number;
  readonly mac: Buffer;
  readonly originalId: number;
  readonly error: number;
  readonly otherData: Buffer;
}

export interface ParsedTsig {
  readonly tsig: TsigRecord;
  /** The message as it was before signing: without the TSIG RR, ARCOUNT one less, ID = Original ID (§4.3.1). */
  readonly unsigned: Buffer;
}

export const algorithmOf = (name: string): TsigAlgorithm | null => {
  const lower = name.toLowerCase().replace(/\.$/, '');
  return (TSIG_ALGORITHMS as readonly string[]).includes(lower) ? (lower as TsigAlgorithm) : null;
};

export const canonicalName = (name: string): string => name.toLowerCase().replace(/\.$/, '');

/** Uncompressed wire form of a name in canonical (lower-case) form, as the digest needs (§4.3.3). */
const nameWire = (name: string): Buffer => {
  const n = canonicalName(name);
  const labels = n === '' ? [] : n.split('.').map((l) => Buffer.from(l, 'latin1'));
  return Buffer.concat([...labels.flatMap((l) => [Buffer.from([l.length]), l]), Buffer.from([0])]);
};

/** Reads a (possibly compressed) name as lower-case text without the trailing dot; throws if malformed. */
const readName = (msg: Buffer, offset: number): string => {
  const labels: string[] = [];
  let o = offset;
  for (let hops = 0; hops < 64;) {
    if (o >= msg.length) throw new RangeError('name runs off the message');
    const len = msg[o]!;
    if (len === 0) return labels.join('.').toLowerCase();
    if ((len & 0xc0) === 0xc0) {
      if (o + 1 >= msg.length) throw new RangeError('name runs off the message');
      o = ((len & 0x3f) << 8) | msg[o + 1]!;
      hops++;
      continue;
    }
    if ((len & 0xc0) !== 0 || o + 1 + len > msg.length) throw new RangeError('bad label');
    labels.push(msg.toString('latin1', o + 1, o + 1 + len));
    o += 1 + len;
  }
  throw new RangeError('compression loop');
};

const uint48 = (seconds: number): Buffer => {
  const b = Buffer.alloc(6);
  b.writeUInt16BE(Math.floor(seconds / 2 ** 32) & 0xffff, 0);
  b.writeUInt32BE((seconds % 2 ** 32) >>> 0, 2);
  return b;
};
const u16 = (v: number): Buffer => {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(v & 0xffff, 0);
  return b;
};

/** Skips a (possibly compressed) name; returns the offset after it, or -1 if it runs off the message. */
const skipName = (msg: Buffer, offset: number): number => {
  let o = offset;
  for (let guard = 0; guard < 128; guard++) {
    if (o >= msg.length) return -1;
    const len = msg[o]!;
    if (len === 0) return o + 1;
    if ((len & 0xc0) === 0xc0) return o + 2 <= msg.length ? o + 2 : -1;
    if ((len & 0xc0) !== 0) return -1;
    o += 1 + len;
  }
  return -1;
};

/** Offset of the start of the last additional record, or -1 if the message is malformed or has none. */
const lastRecordOffset = (msg: Buffer): number => {
  if (msg.length < 12) return -1;
  const qd = msg.readUInt16BE(4);
  const rrs = msg.readUInt16BE(6) + msg.readUInt16BE(8) + msg.readUInt16BE(10);
  if (msg.readUInt16BE(10) === 0) return -1;
  let o = 12;
  for (let i = 0; i < qd; i++) {
    o = skipName(msg, o);
    if (o < 0 || o + 4 > msg.length) return -1;
    o += 4;
  }
  let last = -1;
  for (let i = 0; i < rrs; i++) {
    last = o;
    o = skipName(msg, o);
    if (o < 0 || o + 10 > msg.length) return -1;
    o += 10 + msg.readUInt16BE(o + 8);
    if (o > msg.length) return -1;
  }
  return o === msg.length ? last : -1;
};

export type ParseOutcome =
  { readonly kind: 'none' } | { readonly kind: 'formerr'; readonly reason: string } | ({ readonly kind: 'tsig' } & ParsedTsig);

/**
 * Finds and reads the TSIG RR. A TSIG anywhere but last in the additional section, or a malformed one,
 * is FORMERR (§5.1); a message without one is `none`.
 */
export const parseTsig = (msg: Buffer): ParseOutcome => {
  if (msg.length < 12) return { kind: 'formerr', reason: 'short message' };
  const start = lastRecordOffset(msg);
  if (start < 0) {
    return msg.readUInt16BE(10) === 0
      ? { kind: 'none' }
      : hasTsigAnywhere(msg)
        ? { kind: 'formerr', reason: 'malformed message' }
        : { kind: 'none' };
  }
  const afterName = skipName(msg, start);
  const type = msg.readUInt16BE(afterName);
  if (type !== TYPE_TSIG) return hasTsigAnywhere(msg) ? { kind: 'formerr', reason: 'TSIG is not the last record' } : { kind: 'none' };
  try {
    const keyName = readName(msg, start);
    const klass = msg.readUInt16BE(afterName + 2);
    const ttl = msg.readUInt32BE(afterName + 4);
    if (klass !== CLASS_ANY || ttl !== 0) return { kind: 'formerr', reason: 'TSIG class must be ANY and TTL 0' };
    const rdlength = msg.readUInt16BE(afterName + 8);
    const rd = afterName + 10;
    const end = rd + rdlength;
    // The algorithm name must not be compressed (§4.2); read it only within the RDATA.
    const algEnd = skipName(msg, rd);
    if (algEnd < 0 || algEnd > end) return { kind: 'formerr', reason: 'bad algorithm name' };
    for (let o = rd; o < algEnd - 1; o += msg[o]! + 1)
      if ((msg[o]! & 0xc0) !== 0) return { kind: 'formerr', reason: 'compressed algorithm name' };
    const algorithmName = readName(msg, rd);
    let o = algEnd;
    if (o + 10 > end) return { kind: 'formerr', reason: 'short TSIG RDATA' };
    const timeSigned = msg.readUInt16BE(o) * 2 ** 32 + msg.readUInt32BE(o + 2);
    const fudge = msg.readUInt16BE(o + 6);
    const macSize = msg.readUInt16BE(o + 8);
    o += 10;
    if (o + macSize + 6 > end) return { kind: 'formerr', reason: 'short TSIG RDATA' };
    const mac = Buffer.from(msg.subarray(o, o + macSize));
    o += macSize;
    const originalId = msg.readUInt16BE(o);
    const error = msg.readUInt16BE(o + 2);
    const otherLen = msg.readUInt16BE(o + 4);
    o += 6;
    if (o + otherLen !== end) return { kind: 'formerr', reason: 'TSIG RDATA length mismatch' };
    const otherData = Buffer.from(msg.subarray(o, end));
    const unsigned = Buffer.from(msg.subarray(0, start));
    unsigned.writeUInt16BE(originalId, 0);
    unsigned.writeUInt16BE(msg.readUInt16BE(10) - 1, 10);
    return { kind: 'tsig', unsigned, tsig: { keyName, algorithmName, timeSigned, fudge, mac, originalId, error, otherData } };
  } catch {
    return { kind: 'formerr', reason: 'malformed TSIG' };
  }
};

/** True when some record other than the last one is a TSIG (walk tolerant of trailing garbage). */
const hasTsigAnywhere = (msg: Buffer): boolean => {
  const qd = msg.readUInt16BE(4);
  const rrs = msg.readUInt16BE(6) + msg.readUInt16BE(8) + msg.readUInt16BE(10);
  let o = 12;
  for (let i = 0; i < qd; i++) {
    o = skipName(msg, o);
    if (o < 0) return false;
    o += 4;
  }
  for (let i = 0; i < rrs; i++) {
    o = skipName(msg, o);
    if (o < 0 || o + 10 > msg.length) return false;
    if (msg.readUInt16BE(o) === TYPE_TSIG) return true;
    o += 10 + msg.readUInt16BE(o + 8);
  }
  return false;
};

interface Variables {
  readonly keyName: string;
  readonly algorithmName: string;
  readonly timeSigned: number;
  readonly fudge: number;
  readonly error: number;
  readonly otherData: Buffer;
}

/** TSIG variables of the digest (§4.3.3). */
const variablesWire = (v: Variables): Buffer =>
  Buffer.concat([
    nameWire(v.keyName),
    u16(CLASS_ANY),
    Buffer.from([0, 0, 0, 0]),
    nameWire(v.algorithmName),
    uint48(v.timeSigned),
    u16(v.fudge),
    u16(v.error),
    u16(v.otherData.length),
    v.otherData,
  ]);

/** TSIG timers only: the digest's tail for every message of a stream after the first (§5.3.1). */
const timersWire = (timeSigned: number, fudge: number): Buffer => Buffer.concat([uint48(timeSigned), u16(fudge)]);

const hmac = (key: TsigKey, parts: readonly Buffer[]): Buffer => {
  const h = createHmac(HASH[key.algorithm], key.secret);
  for (const p of parts) h.update(p);
  return h.digest();
};

const priorMac = (mac: Buffer): Buffer => Buffer.concat([u16(mac.length), mac]);

/** Appends a TSIG RR to `message` (whose ID is the Original ID) and bumps ARCOUNT. */
const appendTsig = (message: Buffer, v: Variables & { readonly mac: Buffer; readonly originalId: number }): Buffer => {
  const rdata = Buffer.concat([
    nameWire(v.algorithmName),
    uint48(v.timeSigned),
    u16(v.fudge),
    u16(v.mac.length),
    v.mac,
    u16(v.originalId),
    u16(v.error),
    u16(v.otherData.length),
    v.otherData,
  ]);
  const rr = Buffer.concat([nameWire(v.keyName), u16(TYPE_TSIG), u16(CLASS_ANY), Buffer.from([0, 0, 0, 0]), u16(rdata.length), rdata]);
  const out = Buffer.concat([message, rr]);
  out.writeUInt16BE(message.readUInt16BE(10) + 1, 10);
  return out;
};

export interface SignOptions {
  /** Seconds since the epoch. */
  readonly now: number;
  readonly fudge?: number;
}

/** Signs a request (§4.3.1, §4.3.3): MAC over the message and the TSIG variables. Returns the signed message and its MAC. */
export const signRequest = (message: Buffer, key: TsigKey, opts: SignOptions): { message: Buffer; mac: Buffer } => {
  const v: Variables = {
    keyName: key.name,
    algorithmName: key.algorithm,
    timeSigned: opts.now,
    fudge: opts.fudge ?? DEFAULT_FUDGE,
    error: 0,
    otherData: Buffer.alloc(0),
  };
  const mac = hmac(key, [message, variablesWire(v)]);
  return { message: appendTsig(message, { ...v, mac, originalId: message.readUInt16BE(0) }), mac };
};

export interface ResponseSignOptions extends SignOptions {
  /** The TSIG error to report (BADTIME carries the server's time in Other Data, §5.2.3). */
  readonly error?: number;
  readonly otherData?: Buffer;
}

/**
 * Signs a response (§4.3.2): MAC over the request's MAC, the response and the TSIG variables.
 * `request` is the request's TSIG as parsed; its key name, algorithm and Original ID are echoed.
 */
export const signResponse = (
  message: Buffer,
  key: TsigKey,
  requestMac: Buffer,
  opts: ResponseSignOptions,
): { message: Buffer; mac: Buffer } => {
  const v: Variables = {
    keyName: key.name,
    algorithmName: key.algorithm,
    timeSigned: opts.now,
    fudge: opts.fudge ?? DEFAULT_FUDGE,
    error: opts.error ?? 0,
    otherData: opts.otherData ?? Buffer.alloc(0),
  };
  const mac = hmac(key, [priorMac(requestMac), message, variablesWire(v)]);
  return { message: appendTsig(message, { ...v, mac, originalId: message.readUInt16BE(0) }), mac };
};

/**
 * An unsigned error TSIG for BADKEY and BADSIG answers (§5.2.1, §5.2.2: "MUST NOT" be signed; MAC size 0),
 * echoing the request's key name, algorithm and time.
 */
export const unsignedErrorTsig = (message: Buffer, request: TsigRecord, error: number, now: number): Buffer =>
  appendTsig(message, {
    keyName: request.keyName,
    algorithmName: request.algorithmName,
    timeSigned: now,
    fudge: request.fudge,
    error,
    otherData: Buffer.alloc(0),
    mac: Buffer.alloc(0),
    originalId: message.readUInt16BE(0),
  });

/** Constant-time MAC comparison; lengths are compared first (they are public). */
const macEqual = (a: Buffer, b: Buffer): boolean => a.length === b.length && timingSafeEqual(a, b);

export type VerifyResult =
  | { readonly ok: true; readonly key: TsigKey; readonly tsig: TsigRecord; readonly unsigned: Buffer }
  | {
      readonly ok: false;
      /** DNS rcode of the answer: NOTAUTH for a TSIG failure, FORMERR for a malformed TSIG (§5.2). */
      readonly rcode: number;
      /** TSIG error for the answer's TSIG RR (BADKEY, BADSIG, BADTIME, BADTRUNC), 0 with FORMERR. */
      readonly error: number;
      readonly reason: string;
      /** The request's TSIG, when it could be read (to echo in the answer). */
      readonly tsig?: TsigRecord;
      /** The key, when it was found and the MAC was right (BADTIME and BADTRUNC answers are signed with it). */
      readonly key?: TsigKey;
    };

export interface VerifyOptions {
  /** Seconds since the epoch. */
  readonly now: number;
}

const checkMacLength = (mac: Buffer, algorithm: TsigAlgorithm): { rcode: number; error: number; reason: string } | null => {
  const full = MAC_LENGTH[algorithm];
  // §5.2.2.1: longer than the hash output, or shorter than max(10, half), is FORMERR.
  if (mac.length > full || mac.length < Math.max(10, full / 2))
    return { rcode: RCODE_FORMERR, error: 0, reason: 'MAC length out of range' };
  // A shorter (truncated) MAC is allowed by the RFC above a local minimum; ours is the full length.
  if (mac.length < full) return { rcode: RCODE_NOTAUTH, error: TSIG_ERROR.BADTRUNC, reason: 'truncated MAC refused' };
  return null;
};

/**
 * Verifies a signed request (§5.2): key and algorithm (BADKEY), MAC (BADSIG), truncation (BADTRUNC),
 * time window (BADTIME). The digest covers the unsigned message as the client built it.
 * `lookupKey` finds a key by its canonical name; a key whose algorithm differs from the request's is BADKEY.
 */
export const verifyRequest = (parsed: ParsedTsig, lookupKey: (name: string) => TsigKey | undefined, opts: VerifyOptions): VerifyResult => {
  const { tsig, unsigned } = parsed;
  const key = lookupKey(tsig.keyName);
  const algorithm = algorithmOf(tsig.algorithmName);
  if (!key || !algorithm || key.algorithm !== algorithm)
    return { ok: false, rcode: RCODE_NOTAUTH, error: TSIG_ERROR.BADKEY, reason: 'unknown key or algorithm', tsig };
  if (tsig.mac.length === 0 || tsig.mac.length > MAC_LENGTH[algorithm])
    return { ok: false, rcode: RCODE_NOTAUTH, error: TSIG_ERROR.BADSIG, reason: 'bad MAC', tsig };
  const expected = hmac(key, [unsigned, variablesWire(tsig)]);
  if (!macEqual(expected.subarray(0, tsig.mac.length), tsig.mac))
    return { ok: false, rcode: RCODE_NOTAUTH, error: TSIG_ERROR.BADSIG, reason: 'bad MAC', tsig };
  const length = checkMacLength(tsig.mac, algorithm);
  if (length) return { ok: false, ...length, tsig, key };
  if (Math.abs(opts.now - tsig.timeSigned) > tsig.fudge)
    return { ok: false, rcode: RCODE_NOTAUTH, error: TSIG_ERROR.BADTIME, reason: 'time signed outside the fudge window', tsig, key };
  return { ok: true, key, tsig, unsigned };
};

/** Parses and verifies a request in one step; a message without TSIG is reported as `none`. */
export const verifySignedRequest = (
  msg: Buffer,
  lookupKey: (name: string) => TsigKey | undefined,
  opts: VerifyOptions,
): VerifyResult | { readonly ok: 'unsigned' } => {
  const parsed = parseTsig(msg);
  if (parsed.kind === 'none') return { ok: 'unsigned' };
  if (parsed.kind === 'formerr') return { ok: false, rcode: RCODE_FORMERR, error: 0, reason: parsed.reason };
  return verifyRequest(parsed, lookupKey, opts);
};

/**
 * The answer to a request whose TSIG failed (§5.2): BADKEY and BADSIG unsigned, BADTIME and BADTRUNC
 * signed with the key (BADTIME with the server's time in Other Data). `response` is the answer without TSIG
 * (its rcode already NOTAUTH or FORMERR). Without a readable request TSIG, the answer goes unsigned.
 */
export const failureResponse = (response: Buffer, failure: Extract<VerifyResult, { ok: false }>, now: number): Buffer => {
  if (!failure.tsig || failure.error === 0) return response;
  if (failure.key && (failure.error === TSIG_ERROR.BADTIME || failure.error === TSIG_ERROR.BADTRUNC)) {
    const otherData = failure.error === TSIG_ERROR.BADTIME ? uint48(now) : Buffer.alloc(0);
    return signResponse(response, failure.key, failure.tsig.mac, { now, fudge: failure.tsig.fudge, error: failure.error, otherData })
      .message;
  }
  return unsignedErrorTsig(response, failure.tsig, failure.error, now);
};

export type ResponseVerifyResult =
  | { readonly ok: true; readonly mac: Buffer; readonly tsig: TsigRecord }
  | { readonly ok: false; readonly reason: string; readonly error: number };

/** Verifies a signed response to a request of ours that carried `requestMac` (§5.3). */
export const verifyResponse = (msg: Buffer, key: TsigKey, requestMac: Buffer, opts: VerifyOptions): ResponseVerifyResult => {
  const parsed = parseTsig(msg);
  if (parsed.kind !== 'tsig') return { ok: false, reason: parsed.kind === 'none' ? 'response not signed' : parsed.reason, error: 0 };
  const { tsig, unsigned } = parsed;
  if (tsig.keyName !== canonicalName(key.name) || algorithmOf(tsig.algorithmName) !== key.algorithm)
    return { ok: false, reason: 'response signed with another key', error: TSIG_ERROR.BADKEY };
  if (tsig.error !== 0 && tsig.mac.length === 0)
    return { ok: false, reason: `server answered ${TSIG_ERROR_NAME[tsig.error] ?? tsig.error}`, error: tsig.error };
  if (tsig.mac.length !== MAC_LENGTH[key.algorithm]) return { ok: false, reason: 'truncated or oversized MAC', error: TSIG_ERROR.BADTRUNC };
  const expected = hmac(key, [priorMac(requestMac), unsigned, variablesWire(tsig)]);
  if (!macEqual(expected, tsig.mac)) return { ok: false, reason: 'bad MAC', error: TSIG_ERROR.BADSIG };
  if (tsig.error !== 0) return { ok: false, reason: `server answered ${TSIG_ERROR_NAME[tsig.error] ?? tsig.error}`, error: tsig.error };
  if (Math.abs(opts.now - tsig.timeSigned) > tsig.fudge)
    return { ok: false, reason: 'time signed outside the fudge window', error: TSIG_ERROR.BADTIME };
  return { ok: true, mac: tsig.mac, tsig };
};

/**
 * Signs the messages of a multi-message answer (AXFR/IXFR over TCP, §5.3.1). The first message is signed
 * as a response (request MAC, message, all variables); each later one over the prior MAC, the message and
 * the timers only. Every message is signed (the RFC allows up to 99 unsigned between; we never need that).
 */
export class TsigStreamSigner {
  private prior: Buffer;
  private first = true;

  constructor(
    private readonly key: TsigKey,
    requestMac: Buffer,
    private readonly fudge: number = DEFAULT_FUDGE,
  ) {
    this.prior = requestMac;
  }

  sign(message: Buffer, now: number): Buffer {
    if (this.first) {
      this.first = false;
      const out = signResponse(message, this.key, this.prior, { now, fudge: this.fudge });
      this.prior = out.mac;
      return out.message;
    }
    const mac = hmac(this.key, [priorMac(this.prior), message, timersWire(now, this.fudge)]);
    this.prior = mac;
    return appendTsig(message, {
      keyName: this.key.name,
      algorithmName: this.key.algorithm,
      timeSigned: now,
      fudge: this.fudge,
      error: 0,
      otherData: Buffer.alloc(0),
      mac,
      originalId: message.readUInt16BE(0),
    });
  }
}

/**
 * Verifies a multi-message answer (§5.3.1): the first and the last message must be signed, at most 99
 * unsigned messages in a row, each MAC over the prior MAC, the messages since it and the timers.
 * Call `verify` on each message in order, then `finish` once the answer is complete.
 */
export class TsigStreamVerifier {
  private prior: Buffer;
  private first = true;
  private pending: Buffer[] = [];
  private lastSigned = false;

  constructor(
    private readonly key: TsigKey,
    requestMac: Buffer,
  ) {
    this.prior = requestMac;
  }

  verify(msg: Buffer, now: number): ResponseVerifyResult | { readonly ok: true; readonly mac: null } {
    if (this.first) {
      this.first = false;
      const r = verifyResponse(msg, this.key, this.prior, { now });
      if (r.ok) {
        this.prior = r.mac;
        this.lastSigned = true;
      }
      return r;
    }
    const parsed = parseTsig(msg);
    if (parsed.kind === 'formerr') return { ok: false, reason: parsed.reason, error: 0 };
    if (parsed.kind === 'none') {
      if (this.pending.length >= 99) return { ok: false, reason: 'more than 99 unsigned messages in a row', error: 0 };
      this.pending.push(msg);
      this.lastSigned = false;
      return { ok: true, mac: null };
    }
    const { tsig, unsigned } = parsed;
    if (tsig.keyName !== canonicalName(this.key.name) || algorithmOf(tsig.algorithmName) !== this.key.algorithm)
      return { ok: false, reason: 'message signed with another key', error: TSIG_ERROR.BADKEY };
    if (tsig.mac.length !== MAC_LENGTH[this.key.algorithm])
      return { ok: false, reason: 'truncated or oversized MAC', error: TSIG_ERROR.BADTRUNC };
    const expected = hmac(this.key, [priorMac(this.prior), ...this.pending, unsigned, timersWire(tsig.timeSigned, tsig.fudge)]);
    if (!macEqual(expected, tsig.mac)) return { ok: false, reason: 'bad MAC', error: TSIG_ERROR.BADSIG };
    if (Math.abs(now - tsig.timeSigned) > tsig.fudge)
      return { ok: false, reason: 'time signed outside the fudge window', error: TSIG_ERROR.BADTIME };
    this.prior = tsig.mac;
    this.pending = [];
    this.lastSigned = true;
    return { ok: true, mac: tsig.mac, tsig };
  }

  /** The answer is acceptable only if its last message was signed (§5.3.1). */
  finish(): { readonly ok: true } | { readonly ok: false; readonly reason: string } {
    return this.lastSigned ? { ok: true } : { ok: false, reason: 'last message not signed' };
  }
}
