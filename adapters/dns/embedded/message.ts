import dnsPacket from 'dns-packet';
import type { CompiledZone, Part } from './compiled-zone.js';
import type { Resolution } from './resolve.js';
import { codec, FLAG, MAX_UDP_PAYLOAD, nameWire, OPCODE, RCODE } from './wire.js';

/**
 * Query parsing and answer assembly. dns-packet decodes the query (a packet it cannot decode is
 * malformed) and encodes every record (at publish, see wire.ts); this file only lays a message out:
 * header, the question copied from the query byte for byte (so its case comes back as sent, RFC 4343),
 * owner names as compression pointers into that question where they are a suffix of it (RFC 1035
 * §4.1.4), pre-encoded record tails, and the OPT record.
 */

export interface Edns {
  /** The requester's UDP payload size (RFC 6891 §6.2.3; values below 512 count as 512). */
  readonly payload: number;
  readonly version: number;
  /** DNSSEC OK, copied back (RFC 3225 §3). */
  readonly dnssecOk: boolean;
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

/** A header-only answer (FORMERR, NOTIMP): the query's ID, opcode and RD, nothing else (RFC 1035 §4.1.1). */
const headerOnly = (buf: Buffer, rcode: number): Buffer => {
  const out = Buffer.alloc(12);
  out.writeUInt16BE(buf.readUInt16BE(0), 0);
  out.writeUInt16BE(FLAG.QR | (buf.readUInt16BE(2) & 0x7900) | rcode, 2); // opcode + RD
  return out;
};

const reply = (buf: Buffer, rcode: number): Parsed => ({ kind: 'reply', reply: headerOnly(buf, rcode) });

const plainLabel = (buf: Buffer, start: number, end: number): boolean => {
  for (let i = start; i < end; i++) {
    const c = buf[i]!;
    if (c < 0x21 || c > 0x7e || c === 0x2e || c === 0x5c) return false;
  }
  return true;
};

const labelText = (buf: Buffer, start: number, end: number): string => {
  if (plainLabel(buf, start, end)) return buf.toString('latin1', start, end).toLowerCase();
  let s = '';
  for (let i = start; i < end; i++) {
    const c = buf[i]!;
    s += c < 0x21 || c > 0x7e || c === 0x2e || c === 0x5c ? `\\${String(c).padStart(3, '0')}` : String.fromCharCode(c).toLowerCase();
  }
  return s;
};

/**
 * Reads one query. Fewer than 12 octets or a response (QR set) is dropped: nothing to answer, and
 * answering answers invites loops. Another opcode gets NOTIMP. A packet without exactly one question,
 * that dns-packet cannot decode, with a compressed or oversized question name, or with a broken OPT
 * gets FORMERR.
 */
export const parseQuery = (buf: Buffer): Parsed => {
  if (buf.length < 12) return { kind: 'drop' };
  const flags = buf.readUInt16BE(2);
  if (flags & FLAG.QR) return { kind: 'drop' };
  if (((flags >> 11) & 0xf) !== OPCODE.QUERY) return reply(buf, RCODE.NOTIMP);
  if (buf.readUInt16BE(4) !== 1) return reply(buf, RCODE.FORMERR);
  // Counts the packet cannot hold (a record takes at least 11 octets) are refused before decoding:
  // dns-packet sizes arrays by them and spends ~1 ms on such a packet, a cheap way to load us.
  if (5 + 11 * (buf.readUInt16BE(6) + buf.readUInt16BE(8) + buf.readUInt16BE(10)) > buf.length - 12) return reply(buf, RCODE.FORMERR);
  let packet: dnsPacket.DecodedPacket;
  try {
    packet = dnsPacket.decode(buf);
  } catch {
    return reply(buf, RCODE.FORMERR);
  }

  // The question name, walked by hand for its raw labels and their offsets.
  const labels: string[] = [];
  const offsets: number[] = [];
  let off = 12;
  let wire = 1;
  for (;;) {
    const len = buf[off];
    if (len === undefined || len > 63) return reply(buf, RCODE.FORMERR); // no pointer in a query's question
    if (len === 0) break;
    wire += len + 1;
    if (wire > 255 || off + 1 + len > buf.length) return reply(buf, RCODE.FORMERR);
    offsets.push(off);
    labels.push(labelText(buf, off + 1, off + 1 + len));
    off += 1 + len;
  }
  off += 1;
  if (off + 4 > buf.length) return reply(buf, RCODE.FORMERR);
  const suffixes = new Array<string>(labels.length);
  for (let i = labels.length - 1; i >= 0; i--) suffixes[i] = i === labels.length - 1 ? labels[i]! : `${labels[i]!}.${suffixes[i + 1]!}`;

  let edns: Edns | null = null;
  let clientSerial: number | null = null;
  for (const rr of packet.additionals ?? []) {
    if (rr.type !== 'OPT') continue;
    const opt = rr as dnsPacket.OptAnswer & { udpPayloadSize: number; ednsVersion: number; flags: number };
    if (edns || rr.name !== '.') return reply(buf, RCODE.FORMERR); // RFC 6891 §6.1.1: one OPT, owner root
    edns = { payload: Math.max(512, opt.udpPayloadSize), version: opt.ednsVersion, dnssecOk: (opt.flags & 0x8000) !== 0 };
  }
  for (const rr of packet.authorities ?? []) {
    if (rr.type === 'SOA') clientSerial = ((rr as dnsPacket.SoaAnswer).data.serial ?? 0) >>> 0;
  }
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
      edns,
      clientSerial,
    },
  };
};

/** Bytes of an OPT RR we answer with, encoded by dns-packet once per variant. */
const optCache = new Map<number, Buffer>();
const optRecord = (extendedRcode: number, dnssecOk: boolean): Buffer => {
  const key = (extendedRcode << 1) | (dnssecOk ? 1 : 0);
  let b = optCache.get(key);
  if (!b) {
    b = codec.answer.encode({
      name: '.',
      type: 'OPT',
      udpPayloadSize: MAX_UDP_PAYLOAD,
      extendedRcode,
      ednsVersion: 0,
      flags: dnssecOk ? 0x8000 : 0,
      options: [],
    });
    optCache.set(key, b);
  }
  return b;
};

const POINTERS = Array.from({ length: 12 + 256 }, (_, off) => Buffer.from([0xc0 | (off >> 8), off & 0xff]));

const ownerBytes = (q: Query, p: Part): Buffer => {
  const i = q.suffixes.indexOf(p.owner);
  if (i !== -1) return POINTERS[q.offsets[i]!]!;
  return p.ownerWire ?? nameWire(p.owner);
};

interface Laid {
  readonly owner: Buffer;
  readonly part: Part;
}

const sizeOf = (l: Laid): number => l.owner.length * l.part.set.tails.length + l.part.set.size;
const count = (ls: readonly Laid[]): number => ls.reduce((n, l) => n + l.part.set.tails.length, 0);

/** The UDP size limit for this query (RFC 6891 §6.2.5), capped at 1232; TCP takes up to 65535. */
export const udpLimit = (q: Query): number => (q.edns ? Math.min(q.edns.payload, MAX_UDP_PAYLOAD) : 512);

/**
 * Lays out an answer within `limit` octets. Answer and authority must fit whole, or the reply carries
 * only the question (and OPT) with TC set (RFC 2181 §9, RFC 1035 §4.2.1): the client retries over
 * TCP. Additional records go in while they fit; glue that the referral needs and that does not fit
 * sets TC too (RFC 9471).
 */
export const buildReply = (q: Query, r: Resolution, limit: number): Buffer => {
  const opt = q.edns ? optRecord(r.rcode >> 4, q.edns.dnssecOk) : null;
  let answer = r.answer.map((part) => ({ owner: ownerBytes(q, part), part }));
  let authority = r.authority.map((part) => ({ owner: ownerBytes(q, part), part }));
  const additional: Laid[] = [];
  let size = 12 + q.question.length + (opt ? opt.length : 0);
  for (const l of answer) size += sizeOf(l);
  for (const l of authority) size += sizeOf(l);
  let tc = false;
  if (size > limit) {
    tc = true;
    answer = [];
    authority = [];
    size = 12 + q.question.length + (opt ? opt.length : 0);
  } else {
    for (const part of r.additional) {
      const l = { owner: ownerBytes(q, part), part };
      const s = sizeOf(l);
      if (size + s <= limit) {
        additional.push(l);
        size += s;
      } else if (part.required) tc = true;
    }
  }

  const out = Buffer.allocUnsafe(size);
  out.writeUInt16BE(q.id, 0);
  out.writeUInt16BE(
    FLAG.QR | (q.flags & 0x7800) | (r.aa ? FLAG.AA : 0) | (tc ? FLAG.TC : 0) | (q.flags & FLAG.RD) | (q.flags & FLAG.CD) | (r.rcode & 0xf),
    2,
  );
  out.writeUInt16BE(1, 4);
  out.writeUInt16BE(count(answer), 6);
  out.writeUInt16BE(count(authority), 8);
  out.writeUInt16BE(count(additional) + (opt ? 1 : 0), 10);
  let at = 12 + q.question.copy(out, 12);
  for (const section of [answer, authority, additional]) {
    for (const l of section) {
      for (const tail of l.part.set.tails) {
        at += l.owner.copy(out, at);
        at += tail.copy(out, at);
      }
    }
  }
  if (opt) at += opt.copy(out, at);
  return out;
};

/** An answer with no records: REFUSED, NOTAUTH, FORMERR for AXFR over UDP, BADVERS (RFC 6891 §6.1.3). */
export const bareReply = (q: Query, rcode: number, aa = false): Buffer =>
  buildReply(q, { rcode, aa, answer: [], authority: [], additional: [] }, Number.MAX_SAFE_INTEGER);

/** Target size of one AXFR message; several are sent (RFC 5936 §2.2). */
const TRANSFER_MESSAGE = 16 * 1024;

/**
 * A whole zone as AXFR messages (also the AXFR-style IXFR answer, RFC 1995 §4): the SOA, every other
 * record, the SOA again (RFC 5936 §2.2). The question is in the first message only.
 */
export const transferMessages = (q: Query, zone: CompiledZone): Buffer[] => {
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

  const messages: Buffer[] = [];
  let chunk: Buffer[] = [];
  let n = 0;
  let size = 12 + q.question.length;
  const flush = (): void => {
    const header = Buffer.alloc(12);
    header.writeUInt16BE(q.id, 0);
    header.writeUInt16BE(FLAG.QR | FLAG.AA | (q.flags & FLAG.RD), 2);
    const first = messages.length === 0;
    header.writeUInt16BE(first ? 1 : 0, 4);
    header.writeUInt16BE(n, 6);
    messages.push(Buffer.concat([header, ...(first ? [q.question] : []), ...chunk]));
    chunk = [];
    n = 0;
    size = 12;
  };
  for (const [owner, tail] of records) {
    const s = owner!.length + tail!.length;
    if (n > 0 && size + s > TRANSFER_MESSAGE) flush();
    chunk.push(owner!, tail!);
    size += s;
    n++;
  }
  flush();
  return messages;
};

/** The single-SOA answer: an IXFR from a secondary that is current, or any IXFR over UDP (RFC 1995 §2, §4). */
export const soaOnly = (q: Query, zone: CompiledZone): Buffer =>
  buildReply(q, { rcode: RCODE.NOERROR, aa: true, answer: [{ owner: zone.apex, ownerWire: zone.apexNode.wire, set: zone.soa }], authority: [], additional: [] }, Number.MAX_SAFE_INTEGER);
