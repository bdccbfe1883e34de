import dnsPacket from 'dns-packet';
import type { RecordType } from '../../../core/dns/zone/record-set.js';

/** RR type codes this server deals in (RFC 1035 §3.2.2, RFC 3596, 2782, 6672, 7208, 8659, 1995, 5936). */
export const T = {
  A: 1,
  NS: 2,
  CNAME: 5,
  SOA: 6,
  PTR: 12,
  HINFO: 13,
  MX: 15,
  TXT: 16,
  AAAA: 28,
  SRV: 33,
  DNAME: 39,
  OPT: 41,
  DS: 43,
  SPF: 99,
  IXFR: 251,
  AXFR: 252,
  ANY: 255,
  CAA: 257,
} as const;

/** The type code of each record type a zone may hold. */
export const RECORD_TYPE_CODES: Readonly<Record<RecordType, number>> = {
  A: T.A,
  AAAA: T.AAAA,
  CNAME: T.CNAME,
  MX: T.MX,
  NS: T.NS,
  TXT: T.TXT,
  SRV: T.SRV,
  CAA: T.CAA,
  SOA: T.SOA,
  DNAME: T.DNAME,
  PTR: T.PTR,
  SPF: T.SPF,
};

export const CLASS_IN = 1;
export const CLASS_ANY = 255;

/** Response codes: RFC 1035 §4.1.1, RFC 2136 §2.2 (YXDOMAIN … NOTZONE), RFC 6891 §9 (BADVERS). */
export const RCODE = {
  NOERROR: 0,
  FORMERR: 1,
  SERVFAIL: 2,
  NXDOMAIN: 3,
  NOTIMP: 4,
  REFUSED: 5,
  YXDOMAIN: 6,
  YXRRSET: 7,
  NXRRSET: 8,
  NOTAUTH: 9,
  NOTZONE: 10,
  BADVERS: 16,
} as const;
export const OPCODE = { QUERY: 0, NOTIFY: 4, UPDATE: 5 } as const;

export const FLAG = { QR: 0x8000, AA: 0x0400, TC: 0x0200, RD: 0x0100, CD: 0x0010 } as const;

/** Largest DNS message over UDP we send to EDNS clients: the DNS Flag Day 2020 value. */
export const MAX_UDP_PAYLOAD = 1232;
/** RFC 1035 §4.2.1: without EDNS a UDP answer fits 512 octets. */
export const CLASSIC_UDP_PAYLOAD = 512;
export const MAX_TCP_MESSAGE = 65535;

/**
 * An RRset encoded once, when its zone is published: each record's wire form without its owner name
 * (type, class, TTL, RDLENGTH, RDATA — the "tail"), so an answer is the owner (a name or a 2-octet
 * compression pointer into the question) followed by a tail, with no encoding per query.
 */
export interface EncodedSet {
  readonly type: number;
  readonly ttl: number;
  readonly tails: readonly Buffer[];
  /** Octets of all tails together. */
  readonly size: number;
  /** For NS, CNAME, DNAME, MX and SRV: the target names (lower case, no trailing dot), for glue and chasing. */
  readonly targets?: readonly string[];
  /** For NS, CNAME, SOA, MX and PTR: each record cut up for name compression (NameWriter). */
  readonly layouts?: readonly RecordLayout[];
}

export const encodedSet = (type: number, ttl: number, tails: readonly Buffer[], targets?: readonly string[]): EncodedSet => {
  let size = 0;
  for (const t of tails) size += t.length;
  const layouts = COMPRESSIBLE.has(type) ? tails.map((t) => layoutOf(type, t)) : undefined;
  const set: EncodedSet = targets ? { type, ttl, tails, size, targets } : { type, ttl, tails, size };
  return layouts ? { ...set, layouts } : set;
};

/** The label text of octets start–end: lower case; octets outside printable ASCII, a dot or a backslash as \DDD. */
export const labelText = (buf: Buffer, start: number, end: number): string => {
  let plain = true;
  for (let i = start; i < end; i++) {
    const c = buf[i]!;
    if (c < 0x21 || c > 0x7e || c === 0x2e || c === 0x5c) {
      plain = false;
      break;
    }
  }
  if (plain) return buf.toString('latin1', start, end).toLowerCase();
  let s = '';
  for (let i = start; i < end; i++) {
    const c = buf[i]!;
    s += c < 0x21 || c > 0x7e || c === 0x2e || c === 0x5c ? `\\${String(c).padStart(3, '0')}` : String.fromCharCode(c).toLowerCase();
  }
  return s;
};

/**
 * A name ready for compression (RFC 1035 §4.1.4): its labels' wire forms (length octet and text) and,
 * for each label, the key of the suffix that starts there (labelText of each label, joined by dots —
 * the same keys message.ts makes for the question's suffixes, so a name can point into the question).
 */
export interface WireName {
  readonly labels: readonly Buffer[];
  readonly keys: readonly string[];
}

/** A WireName from an uncompressed name at `off` in `buf`, and where the name ends. */
export const wireNameAt = (buf: Buffer, off: number): { name: WireName; end: number } => {
  const labels: Buffer[] = [];
  const texts: string[] = [];
  for (;;) {
    const len = buf[off]!;
    if (len === 0) break;
    labels.push(buf.subarray(off, off + 1 + len));
    texts.push(labelText(buf, off + 1, off + 1 + len));
    off += 1 + len;
  }
  const keys = new Array<string>(texts.length);
  for (let i = texts.length - 1; i >= 0; i--) keys[i] = i === texts.length - 1 ? texts[i]! : `${texts[i]!}.${keys[i + 1]!}`;
  return { name: { labels, keys }, end: off + 1 };
};

/** The WireName of a presentation name (lower case, no trailing dot; '' is the root). */
export const wireName = (name: string): WireName => wireNameAt(nameWire(name), 0).name;

/**
 * Types whose RDATA names may be compressed: the RFC 1035 types (RFC 3597 §4). SRV (RFC 2782) and
 * DNAME (RFC 6672 §2.5) targets are never compressed.
 */
const COMPRESSIBLE = new Set<number>([2, 5, 6, 12, 15]);

/**
 * A record of a compressible type, cut up for layout: type, class and TTL (8 octets), then the RDATA as
 * raw pieces and names; the RDLENGTH is written when the record is laid out.
 */
export interface RecordLayout {
  readonly head: Buffer;
  readonly pieces: ReadonlyArray<Buffer | WireName>;
}

/**
 * The layout of a record given only its tail (type read from it): for records that come without their
 * set (the IXFR journal), so transfers compress RDATA names too. Cached per tail buffer.
 */
const tailLayouts = new WeakMap<Buffer, RecordLayout | null>();
export const layoutOfTail = (tail: Buffer): RecordLayout | undefined => {
  let l = tailLayouts.get(tail);
  if (l === undefined) {
    const type = tail.readUInt16BE(0);
    l = COMPRESSIBLE.has(type) ? layoutOf(type, tail) : null;
    tailLayouts.set(tail, l);
  }
  return l ?? undefined;
};

/**
 * How many names and sets the intern tables below hold at most: past it a table starts again empty (what
 * was shared stays shared). Enough for the names every zone of an account points at (its nameservers,
 * the SOA's), which is where sharing pays.
 */
const INTERN_LIMIT = 4096;

/**
 * RDATA names ready for compression, shared by every record that holds the same name (the same octets):
 * a SOA or NS of each of 10 000 zones names the same two or three hosts, and a WireName is a dozen objects.
 */
const internedNames = new Map<string, WireName>();

/** wireNameAt, the name shared with every other record holding the same octets (immutable). */
const internedNameAt = (buf: Buffer, off: number): { name: WireName; end: number } => {
  let end = off;
  while (buf[end]! !== 0) end += 1 + buf[end]!;
  end++;
  const key = buf.toString('latin1', off, end);
  let name = internedNames.get(key);
  if (!name) {
    if (internedNames.size >= INTERN_LIMIT) internedNames.clear();
    // Its own copy of the octets: a view into this tail would keep the tail's whole allocation alive.
    name = wireNameAt(Buffer.from(buf.subarray(off, end)), 0).name;
    internedNames.set(key, name);
  }
  return { name, end };
};

const layoutOf = (type: number, tail: Buffer): RecordLayout => {
  const head = tail.subarray(0, 8);
  const start = 10;
  const pieces: Array<Buffer | WireName> = [];
  let off = start;
  if (type === T.MX) {
    pieces.push(tail.subarray(off, off + 2));
    off += 2;
  }
  // A PTR's target is its own (a catalog's member, a host of a reverse zone): shared with no other record, so not interned.
  const first = type === T.PTR ? wireNameAt(tail, off) : internedNameAt(tail, off);
  pieces.push(first.name);
  off = first.end;
  if (type === T.SOA) {
    const second = internedNameAt(tail, off);
    pieces.push(second.name, tail.subarray(second.end));
  }
  return { head, pieces };
};

/** Zone data sets by content (small ones): one EncodedSet for every zone holding the same set (the same NS, say). */
const internedSets = new Map<string, EncodedSet>();
/** Sets larger than this (all tails together) are not shared: the key would cost what sharing saves. */
const INTERN_MAX_OCTETS = 512;

/**
 * The set itself, or an equal one already made (same type, TTL and records, octet for octet): EncodedSets
 * are never changed once made, so zones may share them.
 */
export const internSet = (set: EncodedSet): EncodedSet => {
  if (set.size > INTERN_MAX_OCTETS) return set;
  let key = '';
  for (const t of set.tails) key += `${t.toString('latin1')}\u0100`;
  const have = internedSets.get(key);
  if (have) return have;
  if (internedSets.size >= INTERN_LIMIT) internedSets.clear();
  internedSets.set(key, set);
  return set;
};

/**
 * Lays records out into one message with name compression (RFC 1035 §4.1.4): every name written is
 * remembered by suffix key at its offset (below 0x4000, the pointer range), and a later name whose
 * suffix is known ends in a pointer there. Hand-written: dns-packet, which encodes our records, does not
 * compress. One writer per process, reused by every message; `mark`/`rollback` undo a record set that
 * does not fit.
 */
export class NameWriter {
  buf: Buffer = Buffer.allocUnsafe(65535 + 4096);
  at = 0;
  /**
   * The suffixes written so far and their offsets, in two arrays searched linearly: a message holds a
   * few dozen at most, and a Map cleared per message cost more (V8 allocates a new table on clear()).
   */
  private readonly keys: string[] = [];
  private readonly offs: number[] = [];
  private known = 0;

  /** Starts a message: nothing written, nothing known but the given suffixes (the question's). */
  start(keys: readonly string[], offsets: readonly number[]): void {
    this.at = 0;
    for (let i = 0; i < keys.length; i++) {
      this.keys[i] = keys[i]!;
      this.offs[i] = offsets[i]!;
    }
    this.known = keys.length;
  }

  private find(key: string): number {
    const keys = this.keys;
    for (let i = 0; i < this.known; i++) if (keys[i] === key) return this.offs[i]!;
    return -1;
  }

  private room(n: number): void {
    if (this.at + n <= this.buf.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.at + n));
    this.buf.copy(bigger, 0, 0, this.at);
    this.buf = bigger;
  }

  raw(b: Buffer): void {
    this.room(b.length);
    this.at += b.copy(this.buf, this.at);
  }

  u16(v: number): void {
    this.room(2);
    this.buf.writeUInt16BE(v, this.at);
    this.at += 2;
  }

  name(n: WireName): void {
    const { labels, keys } = n;
    for (let i = 0; i < keys.length; i++) {
      const ptr = this.find(keys[i]!);
      if (ptr !== -1) {
        this.u16(0xc000 | ptr);
        return;
      }
      if (this.at < 0x4000) {
        this.keys[this.known] = keys[i]!;
        this.offs[this.known] = this.at;
        this.known++;
      }
      this.raw(labels[i]!);
    }
    this.room(1);
    this.buf[this.at++] = 0;
  }

  /** One record: owner, then the tail as encoded, or its layout with names compressed. */
  record(owner: WireName, tail: Buffer, layout: RecordLayout | undefined): void {
    this.name(owner);
    if (!layout) {
      this.raw(tail);
      return;
    }
    this.raw(layout.head);
    const lenAt = this.at;
    this.u16(0);
    for (const p of layout.pieces) {
      if (Buffer.isBuffer(p)) this.raw(p);
      else this.name(p);
    }
    this.buf.writeUInt16BE(this.at - lenAt - 2, lenAt);
  }

  mark(): [number, number] {
    return [this.at, this.known];
  }

  rollback([at, known]: [number, number]): void {
    this.at = at;
    this.known = known;
  }
}

/** dns-packet's name and record encoders: exported at run time, missing from @types/dns-packet. */
export const codec = dnsPacket as unknown as {
  readonly name: { encode(name: string): Buffer };
  readonly answer: { encode(record: dnsPacket.Answer | Record<string, unknown>): Buffer };
};

/** The wire form of an absolute name (dns-packet; `''` or `'.'` is the root). */
export const nameWire = (name: string): Buffer => {
  const own = codec.name.encode(name === '' ? '.' : name);
  const pooled = Buffer.allocUnsafe(own.length); // Node's shared pool, as encodeTail's
  own.copy(pooled);
  return pooled;
};

/**
 * Encodes one record with dns-packet and cuts its owner (the root, one octet) off. The octets are copied
 * into Node's shared allocation pool (Buffer.allocUnsafe, for up to 4 KB): dns-packet gives every record an
 * allocation of its own, which a zone held for as long as it is served, one per record.
 */
export const encodeTail = (record: dnsPacket.Answer): Buffer => {
  const full = codec.answer.encode({ ...record, name: '.' });
  const tail = Buffer.allocUnsafe(full.length - 1);
  full.copy(tail, 0, 1);
  return tail;
};

/** RFC 1982 serial arithmetic: is a before b? */
export const serialBefore = (a: number, b: number): boolean => a !== b && ((a < b && b - a < 2 ** 31) || (a > b && a - b > 2 ** 31));
