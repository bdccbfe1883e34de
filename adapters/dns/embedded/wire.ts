import dnsPacket from 'dns-packet';

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

export const CLASS_IN = 1;
export const CLASS_ANY = 255;

export const RCODE = { NOERROR: 0, FORMERR: 1, SERVFAIL: 2, NXDOMAIN: 3, NOTIMP: 4, REFUSED: 5, YXDOMAIN: 6, NOTAUTH: 9, BADVERS: 16 } as const;
export const OPCODE = { QUERY: 0, NOTIFY: 4 } as const;

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
  /** For NS, CNAME and DNAME: the target names (lower case, no trailing dot), for glue and chasing. */
  readonly targets?: readonly string[];
}

export const encodedSet = (type: number, ttl: number, tails: readonly Buffer[], targets?: readonly string[]): EncodedSet => {
  let size = 0;
  for (const t of tails) size += t.length;
  return targets ? { type, ttl, tails, size, targets } : { type, ttl, tails, size };
};

/** dns-packet's name and record encoders: exported at run time, missing from @types/dns-packet. */
export const codec = dnsPacket as unknown as {
  readonly name: { encode(name: string): Buffer };
  readonly answer: { encode(record: dnsPacket.Answer | Record<string, unknown>): Buffer };
};

/** The wire form of an absolute name (dns-packet; `''` or `'.'` is the root). */
export const nameWire = (name: string): Buffer => codec.name.encode(name === '' ? '.' : name);

/** Encodes one record with dns-packet and cuts its owner (the root, one octet) off. */
export const encodeTail = (record: dnsPacket.Answer): Buffer => codec.answer.encode({ ...record, name: '.' }).subarray(1);

/** RFC 1982 serial arithmetic: is a before b? */
export const serialBefore = (a: number, b: number): boolean => a !== b && ((a < b && b - a < 2 ** 31) || (a > b && a - b > 2 ** 31));
