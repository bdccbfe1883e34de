import dnsPacket from 'dns-packet';
import type { CompiledZone, Part } from './compiled-zone.js';
import type { Resolution } from './resolve.js';
import {
  FLAG,
  labelText,
  layoutOfTail,
  MAX_TCP_MESSAGE,
  MAX_UDP_PAYLOAD,
  NameWriter,
  OPCODE,
  RCODE,
  T,
  wireName,
  wireNameAt,
  type WireName,
} from './wire.js';
import { RR } from './dnssec.js';
import { recordsWellFormed } from './record-walk.js';

/**
 * Query parsing and answer assembly. dns-packet decodes the query (a packet it cannot decode is
 * malformed) and encodes every record (at publish, see wire.ts); a hand walk (scan) checks the OPT
 * record strictly. This file lays a message out: header, the question copied from the query byte for
 * byte (so its case comes back as sent, RFC 4343), every name compressed (RFC 1035 §4.1.4, NameWriter
 * in wire.ts: owners and the names inside NS, CNAME, SOA, MX and PTR data point at earlier names, the
 * question's included), pre-encoded record data, and the OPT record with NSID, EXPIRE and EDE options.
 */

export interface Edns {
  /** The requester's UDP payload size (RFC 6891 §6.2.3; values below 512 count as 512). */
  readonly payload: number;
  readonly version: number;
  /** DNSSEC OK, copied back (RFC 3225 §3). */
  readonly dnssecOk: boolean;
  /** The query asked for our NSID (RFC 5001 §2.1: an empty NSID option). */
  readonly nsid: boolean;
  /** The query carried an EXPIRE option (RFC 7314 §2). */
  readonly expire: boolean;
}

export interface Query {
  readonly id: number;
  readonly flags: number;
  /** The question as sent: name, type and class. */
  readonly question: Buffer;
  /** The name, lower case, without trailing dot; a label with octets outside printable ASCII, a dot or a backslash is written \DDD so it never matches our names. */
  readonly name: string;
  /** Suffixes of the name, longest first, and the offset of each in the message (for pointers). */
  readonly suffixes: readonly string[];
  readonly offsets: readonly number[];
  readonly qtype: number;
  readonly qclass: number;
  readonly edns: Edns | null;
  /** IXFR: the requester's serial, from the SOA in the authority section (RFC 1995 §3). */
  readonly clientSerial: number | null;
}

export type Parsed = { kind: 'query'; query: Query } | { kind: 'reply'; reply: Buffer } | { kind: 'drop' };

/** Extended DNS Error codes we send (RFC 8914 §4). */
export const EDE = { PROHIBITED: 18, NOT_AUTHORITATIVE: 20, NOT_SUPPORTED: 21 } as const;

/** What a reply's OPT record carries besides the size, version and DO (RFC 6891 §6.1.2). */
export interface OptExtras {
  /** Our NSID (RFC 5001), sent when the query asked for it; null: not configured. */
  readonly nsid?: Buffer | null;
  /** RFC 7314: the zone's SOA EXPIRE, sent when the query carried an EXPIRE option. */
  readonly expire?: number;
  /** RFC 8914: an Extended DNS Error code. */
  readonly ede?: number;
}

const NO_EXTRAS: OptExtras = {};

/** A packet walked by hand far enough to answer it (see scan). */
interface Scan {
  /** Every section walked without running past the end, and at most one OPT, with whole options. */
  readonly ok: boolean;
  /** End of the first question when it is one uncompressed name + type + class; 0 otherwise. */
  readonly questionEnd: number;
  readonly edns: Edns | null;
  readonly clientSerial: number | null;
}

const BROKEN: Scan = { ok: false, questionEnd: 0, edns: null, clientSerial: null };

/** The offset after a (possibly compressed) name at `off`, or -1. */
const skipName = (buf: Buffer, off: number): number => {
  for (let octets = 1; ;) {
    const len = buf[off];
    if (len === undefined) return -1;
    if (len === 0) return off + 1;
    if ((len & 0xc0) === 0xc0) return off + 2 <= buf.length ? off + 2 : -1;
    if (len > 63) return -1;
    octets += len + 1;
    if (octets > 255) return -1;
    off += 1 + len;
  }
};

/** The offset after an uncompressed name at `off`, or -1. */
const plainNameEnd = (buf: Buffer, off: number): number => {
  for (;;) {
    const len = buf[off];
    if (len === undefined || len > 63) return -1;
    if (len === 0) return off + 1;
    off += 1 + len;
  }
};

/**
 * Walks every section of a packet by hand (dns-packet reads it too, see parseQuery, but is lenient where
 * RFC 6891 is not): the first question's end, the OPT record (RFC 6891 §6.1.1: at most one, owner the
 * root; §6.1.2: options are whole TLVs inside the RDATA, or the packet is malformed) and an IXFR's SOA
 * serial in the authority section (RFC 1995 §3).
 */
const scan = (buf: Buffer): Scan => {
  const qd = buf.readUInt16BE(4);
  const an = buf.readUInt16BE(6);
  const ns = buf.readUInt16BE(8);
  const ar = buf.readUInt16BE(10);
  let off = 12;
  let questionEnd = 0;
  for (let i = 0; i < qd; i++) {
    const nameEnd = skipName(buf, off);
    if (nameEnd === -1 || nameEnd + 4 > buf.length) return BROKEN;
    if (i === 0 && plainNameEnd(buf, off) === nameEnd) questionEnd = nameEnd + 4;
    off = nameEnd + 4;
  }
  let edns: Edns | null = null;
  let clientSerial: number | null = null;
  for (let i = 0; i < an + ns + ar; i++) {
    const ownerAt = off;
    const nameEnd = skipName(buf, off);
    if (nameEnd === -1 || nameEnd + 10 > buf.length) return BROKEN;
    const type = buf.readUInt16BE(nameEnd);
    const rdStart = nameEnd + 10;
    const rdEnd = rdStart + buf.readUInt16BE(nameEnd + 8);
    if (rdEnd > buf.length) return BROKEN;
    if (type === T.OPT && i >= an + ns) {
      if (edns || buf[ownerAt] !== 0) return BROKEN; // RFC 6891 §6.1.1: one OPT, owner root
      let nsid = false;
      let expire = false;
      for (let o = rdStart; o < rdEnd;) {
        if (o + 4 > rdEnd) return BROKEN;
        const code = buf.readUInt16BE(o);
        const len = buf.readUInt16BE(o + 2);
        if (o + 4 + len > rdEnd) return BROKEN; // an option running past the RDATA (RFC 6891 §6.1.2)
        if (code === 3) nsid = true;
        else if (code === 9) expire = true;
        o += 4 + len;
      }
      const ttl = buf.readUInt32BE(nameEnd + 4);
      edns = {
        payload: Math.max(512, buf.readUInt16BE(nameEnd + 2)),
        version: (ttl >>> 16) & 0xff,
        dnssecOk: (ttl & 0x8000) !== 0,
        nsid,
        expire,
      };
    } else if (type === T.SOA && i >= an && i < an + ns) {
      let o = skipName(buf, rdStart);
      if (o !== -1) o = skipName(buf, o);
      if (o === -1 || o + 20 > rdEnd) return BROKEN;
      clientSerial = buf.readUInt32BE(o);
    }
    off = rdEnd;
  }
  return { ok: true, questionEnd, edns, clientSerial };
};

/** Bytes of an OPT RR we answer with (RFC 6891 §6.1.2): size 1232, version 0, DO copied, and options. */
const optCache = new Map<number, Buffer>();
const optRecord = (extendedRcode: number, dnssecOk: boolean, options: readonly Buffer[] = []): Buffer => {
  const key = (extendedRcode << 1) | (dnssecOk ? 1 : 0);
  if (options.length === 0) {
    const b = optCache.get(key);
    if (b) return b;
  }
  const rdlen = options.reduce((n, o) => n + o.length, 0);
  const b = Buffer.alloc(11 + rdlen);
  b.writeUInt16BE(T.OPT, 1);
  b.writeUInt16BE(MAX_UDP_PAYLOAD, 3);
  b[5] = extendedRcode;
  b.writeUInt16BE(dnssecOk ? 0x8000 : 0, 7);
  b.writeUInt16BE(rdlen, 9);
  let at = 11;
  for (const o of options) at += o.copy(b, at);
  if (options.length === 0) optCache.set(key, b);
  return b;
};

const option = (code: number, data: Buffer): Buffer => {
  const b = Buffer.alloc(4 + data.length);
  b.writeUInt16BE(code, 0);
  b.writeUInt16BE(data.length, 2);
  data.copy(b, 4);
  return b;
};

/** The OPT record answering an EDNS query (RFC 6891 §7: a reply to a query with OPT has OPT, whatever its rcode). */
const optFor = (edns: Edns, rcode: number, extras: OptExtras): Buffer => {
  const options: Buffer[] = [];
  if (edns.nsid && extras.nsid) options.push(option(3, extras.nsid));
  if (edns.expire && extras.expire !== undefined) {
    const v = Buffer.alloc(4);
    v.writeUInt32BE(extras.expire >>> 0, 0);
    options.push(option(9, v));
  }
  if (extras.ede !== undefined) {
    const v = Buffer.alloc(2);
    v.writeUInt16BE(extras.ede, 0);
    options.push(option(15, v));
  }
  return optRecord(rcode >> 4, edns.dnssecOk, options);
};

/**
 * An answer with no records to a packet we do not parse further (FORMERR, NOTIMP): the query's ID,
 * opcode and RD (RFC 1035 §4.1.1); its question when it was one plain name; and an OPT when the query
 * had a well-formed one (RFC 6891 §7).
 */
const headerReply = (buf: Buffer, rcode: number, s: Scan, extras: OptExtras, questionEnd: number): Buffer => {
  const question = questionEnd > 12 ? buf.subarray(12, questionEnd) : null;
  const opt = s.ok && s.edns ? optFor(s.edns, rcode, extras) : null;
  const out = Buffer.alloc(12 + (question?.length ?? 0) + (opt?.length ?? 0));
  out.writeUInt16BE(buf.readUInt16BE(0), 0);
  out.writeUInt16BE(FLAG.QR | (buf.readUInt16BE(2) & 0x7900) | (rcode & 0xf), 2); // opcode + RD
  out.writeUInt16BE(question ? 1 : 0, 4);
  out.writeUInt16BE(opt ? 1 : 0, 10);
  let at = 12;
  if (question) at += question.copy(out, at);
  if (opt) opt.copy(out, at);
  return out;
};

const DROP: Parsed = { kind: 'drop' };

/**
 * Reads one query. As Knot does, a packet without a readable header and question is dropped, not
 * answered: fewer than 12 octets, a response (QR set: answering answers invites loops), more than one
 * question, a question that is cut short, compressed or has an oversized label or name, or no question
 * and octets that are no records. Such a packet is noise or spoofed, and a FORMERR to each would make
 * us a free reflector. Past a good question: another opcode gets NOTIMP; records the packet cannot
 * hold, a packet dns-packet cannot decode, or a broken OPT (two of them, an owner other than the root,
 * an option running past the RDATA) gets FORMERR with the question. Every reply carries an OPT when the
 * query had a well-formed one.
 */
export const parseQuery = (buf: Buffer, extras: OptExtras = NO_EXTRAS): Parsed => {
  if (buf.length < 12) return DROP;
  const flags = buf.readUInt16BE(2);
  if (flags & FLAG.QR) return DROP;
  const qd = buf.readUInt16BE(4);
  const an = buf.readUInt16BE(6);
  const ns = buf.readUInt16BE(8);
  const ar = buf.readUInt16BE(10);
  let questionEnd = 12;
  if (qd > 1) return DROP;
  if (qd === 1) {
    const nameEnd = plainNameEnd(buf, 12);
    if (nameEnd === -1 || nameEnd - 12 > 255 || nameEnd + 4 > buf.length) return DROP;
    questionEnd = nameEnd + 4;
  } else if (buf.length > 12 && !recordsWellFormed(buf, 12, an, ns, ar)) return DROP;
  // Counts the packet cannot hold (a record takes at least 11 octets) are refused before decoding:
  // dns-packet sizes arrays by them and spends ~1 ms on such a packet, a cheap way to load us.
  if (11 * (an + ns + ar) > buf.length - questionEnd) {
    return { kind: 'reply', reply: headerReply(buf, RCODE.FORMERR, BROKEN, extras, questionEnd) };
  }
  const s = scan(buf);
  const reply = (rcode: number, sc: Scan = s): Parsed => ({ kind: 'reply', reply: headerReply(buf, rcode, sc, extras, questionEnd) });
  if (((flags >> 11) & 0xf) !== OPCODE.QUERY) return reply(RCODE.NOTIMP);
  if (!s.ok) return reply(RCODE.FORMERR);
  if (buf.readUInt16BE(4) !== 1) return reply(RCODE.FORMERR);
  try {
    dnsPacket.decode(buf);
  } catch {
    return reply(RCODE.FORMERR);
  }

  // The question name, walked by hand for its raw labels and their offsets.
  const labels: string[] = [];
  const offsets: number[] = [];
  let off = 12;
  let wire = 1;
  for (;;) {
    const len = buf[off];
    if (len === undefined || len > 63) return reply(RCODE.FORMERR); // no pointer in a query's question
    if (len === 0) break;
    wire += len + 1;
    if (wire > 255 || off + 1 + len > buf.length) return reply(RCODE.FORMERR);
    offsets.push(off);
    labels.push(labelText(buf, off + 1, off + 1 + len));
    off += 1 + len;
  }
  off += 1;
  if (off + 4 > buf.length) return reply(RCODE.FORMERR);
  // Every record after the question well formed: no OPT outside additional, no stray trailing octets.
  if (!recordsWellFormed(buf, off + 4, buf.readUInt16BE(6), buf.readUInt16BE(8), buf.readUInt16BE(10))) return reply(RCODE.FORMERR);
  const suffixes = new Array<string>(labels.length);
  for (let i = labels.length - 1; i >= 0; i--) suffixes[i] = i === labels.length - 1 ? labels[i]! : `${labels[i]!}.${suffixes[i + 1]!}`;

  return {
    kind: 'query',
    query: {
      id: buf.readUInt16BE(0),
      flags,
      question: buf.subarray(12, off + 4),
      name: suffixes[0] ?? '',
      suffixes,
      offsets,
      qtype: buf.readUInt16BE(off),
      qclass: buf.readUInt16BE(off + 2),
      edns: s.edns,
      clientSerial: s.clientSerial === null ? null : s.clientSerial >>> 0,
    },
  };
};

/** Owner names of zone nodes as WireNames, made once per node buffer. */
const ownerNames = new WeakMap<Buffer, WireName>();

const ownerName = (q: Query, p: Part): WireName => {
  const i = q.suffixes.indexOf(p.owner);
  if (i !== -1) return { labels: [], keys: q.suffixes.slice(i, i + 1) }; // a pointer into the question
  if (!p.ownerWire) return wireName(p.owner);
  let n = ownerNames.get(p.ownerWire);
  if (!n) {
    n = wireNameAt(p.ownerWire, 0).name;
    ownerNames.set(p.ownerWire, n);
  }
  return n;
};

/** The one writer of this process (messages are laid out one at a time, synchronously). */
const writer = new NameWriter();

/** Lays a section's parts out; returns the number of records. */
const writePart = (q: Query, p: Part): number => {
  const owner = ownerName(q, p);
  const { tails, layouts } = p.set;
  for (let i = 0; i < tails.length; i++) writer.record(owner, tails[i]!, layouts?.[i]);
  return tails.length;
};

/** The UDP size limit for this query (RFC 6891 §6.2.5), capped at 1232; TCP takes up to 65535. */
export const udpLimit = (q: Query): number => (q.edns ? Math.min(q.edns.payload, MAX_UDP_PAYLOAD) : 512);

/**
 * Lays out an answer within `limit` octets, names compressed (RFC 1035 §4.1.4). Answer and authority
 * must fit whole, or the reply carries only the question (and OPT) with TC set (RFC 2181 §9, RFC 1035
 * §4.2.1): the client retries over TCP. Additional record sets go in while they fit, each whole or not
 * at all; glue that the referral needs and that does not fit sets TC too (RFC 9471).
 */
export const buildReply = (q: Query, r: Resolution, limit: number, extras: OptExtras = NO_EXTRAS): Buffer => {
  const opt = q.edns ? optFor(q.edns, r.rcode, r.ede === undefined ? extras : { ...extras, ede: r.ede }) : null;
  const budget = limit - (opt ? opt.length : 0);
  const w = writer;
  w.start(q.suffixes, q.offsets);
  w.at = 12;
  w.raw(q.question);
  const afterQuestion = w.mark();
  let an = 0;
  let ns = 0;
  let ar = 0;
  let tc = false;
  for (const p of r.answer) an += writePart(q, p);
  for (const p of r.authority) ns += writePart(q, p);
  if (w.at > budget) {
    tc = true;
    an = 0;
    ns = 0;
    w.rollback(afterQuestion);
  } else {
    // An RRSIG follows the set it covers: it goes only if that set went (RFC 4035 §3.1.1 lets a set go without it).
    let lastWent = true;
    for (const p of r.additional) {
      if (p.set.type === RR.RRSIG && !lastWent) continue;
      const before = w.mark();
      const n = writePart(q, p);
      lastWent = w.at <= budget;
      if (lastWent) ar += n;
      else {
        w.rollback(before);
        if (p.required) tc = true;
      }
    }
  }
  if (opt) w.raw(opt);
  const out = Buffer.allocUnsafe(w.at);
  w.buf.copy(out, 0, 0, w.at);
  out.writeUInt16BE(q.id, 0);
  out.writeUInt16BE(
    FLAG.QR | (q.flags & 0x7800) | (r.aa ? FLAG.AA : 0) | (tc ? FLAG.TC : 0) | (q.flags & FLAG.RD) | (q.flags & FLAG.CD) | (r.rcode & 0xf),
    2,
  );
  out.writeUInt16BE(1, 4);
  out.writeUInt16BE(an, 6);
  out.writeUInt16BE(ns, 8);
  out.writeUInt16BE(ar + (opt ? 1 : 0), 10);
  return out;
};

/** An answer with no records: REFUSED, NOTAUTH, FORMERR for AXFR over UDP, BADVERS (RFC 6891 §6.1.3); `ede` per RFC 8914. */
export const bareReply = (q: Query, rcode: number, aa = false, extras: OptExtras = NO_EXTRAS): Buffer =>
  buildReply(q, { rcode, aa, answer: [], authority: [], additional: [] }, Number.MAX_SAFE_INTEGER, extras);

/**
 * Largest transfer message (RFC 5936 §2.2: a message takes up to 65535 octets over TCP). Compression
 * pointers reach only the first 16 KiB (RFC 1035 §4.1.4), so names past it are written whole unless a
 * suffix of theirs lies below; still fewer, larger messages cost fewer headers and OPTs.
 */
const TRANSFER_MESSAGE = MAX_TCP_MESSAGE;

/**
 * A whole zone as AXFR messages (also the AXFR-style IXFR answer, RFC 1995 §4): the SOA, every other
 * record, the SOA again (RFC 5936 §2.2). The question is in the first message only.
 */
export const transferMessages = (q: Query, zone: CompiledZone, extras: OptExtras = NO_EXTRAS): Buffer[] => {
  const records: Buffer[][] = [];
  const soaFirst = [zone.apexNode.wire, zone.soa.tails[0]!];
  records.push(soaFirst);
  for (const node of zone.nodes.values()) {
    for (const set of node.order) {
      if (set === zone.soa) continue;
      for (const tail of set.tails) records.push([node.wire, tail]);
    }
  }
  records.push(soaFirst);
  return transferMessagesOf(q, records, { ...extras, expire: zone.expire });
};

/** A node's owner name (wire form) ready for compression, made once per buffer. */
const transferOwner = (wire: Buffer): WireName => {
  let n = ownerNames.get(wire);
  if (!n) {
    n = wireNameAt(wire, 0).name;
    ownerNames.set(wire, n);
  }
  return n;
};

/**
 * Records (owner, tail) as transfer messages of up to 64 KiB, names compressed as in query answers
 * (owners and the names inside NS, CNAME, SOA, MX and PTR data): the question in the first only, an OPT
 * in every one when the query had EDNS (as Knot does; RFC 6891 §7).
 */
export const transferMessagesOf = (q: Query, records: ReadonlyArray<readonly Buffer[]>, extras: OptExtras = NO_EXTRAS): Buffer[] => {
  const opt = q.edns ? optFor(q.edns, RCODE.NOERROR, extras) : null;
  const budget = TRANSFER_MESSAGE - (opt?.length ?? 0);
  const messages: Buffer[] = [];
  const w = writer;
  let n = 0;
  const begin = (): void => {
    const first = messages.length === 0;
    w.start(first ? q.suffixes : [], first ? q.offsets : []);
    w.at = 12;
    if (first) w.raw(q.question);
    n = 0;
  };
  const flush = (): void => {
    if (opt) w.raw(opt);
    const out = Buffer.allocUnsafe(w.at);
    w.buf.copy(out, 0, 0, w.at);
    out.writeUInt16BE(q.id, 0);
    out.writeUInt16BE(FLAG.QR | FLAG.AA | (q.flags & FLAG.RD), 2);
    out.writeUInt16BE(messages.length === 0 ? 1 : 0, 4);
    out.writeUInt16BE(n, 6);
    out.writeUInt16BE(0, 8);
    out.writeUInt16BE(opt ? 1 : 0, 10);
    messages.push(out);
  };
  begin();
  for (const [owner, tail] of records) {
    const name = transferOwner(owner!);
    const layout = layoutOfTail(tail!);
    const before = w.mark();
    w.record(name, tail!, layout);
    if (w.at > budget && n > 0) {
      w.rollback(before);
      flush();
      begin();
      w.record(name, tail!, layout);
    }
    n++;
  }
  flush();
  return messages;
};

/** The single-SOA answer: an IXFR from a secondary that is current, or any IXFR over UDP (RFC 1995 §2, §4). */
export const soaOnly = (q: Query, zone: CompiledZone, extras: OptExtras = NO_EXTRAS): Buffer =>
  buildReply(
    q,
    {
      rcode: RCODE.NOERROR,
      aa: true,
      answer: [{ owner: zone.apex, ownerWire: zone.apexNode.wire, set: zone.soa }],
      authority: [],
      additional: [],
    },
    Number.MAX_SAFE_INTEGER,
    { ...extras, expire: zone.expire },
  );
