import { isIPv4, isIPv6 } from 'node:net';
import type dnsPacket from 'dns-packet';
import type { RecordType } from '../../../core/dns/zone/record-set.js';
import { encodeTail, T } from './wire.js';
import { caaValueBody, splitCaa } from '../../../core/dns/types/caa.js';
import { txtStringOctets, unescapeString } from '../../../core/dns/types/text.js';

/**
 * Presentation values (core/dns/zone/record-set.ts) → wire tails, through dns-packet. The plan checks have
 * already refused bad values; whatever still cannot be encoded throws here, and the compiler skips that
 * record and logs it rather than serve garbage (dns-packet writes a 64-octet label without complaint).
 */

export class RdataError extends Error {}

const fail = (what: string): never => {
  throw new RdataError(what);
};

/**
 * Whether `s` is already a name as normaliseName returns it, seen in one pass without allocating: lower-case
 * letters, digits, hyphens and underscores in labels of 1–63 octets, no trailing dot, ≤ 255 octets on the
 * wire. Most names are (every stored zone's, every name a zone is held by), and are returned as they are.
 */
const isPlainName = (s: string): boolean => {
  const n = s.length;
  // Each octet is one character here, and the wire form is one octet longer than the text plus the root's.
  if (n === 0 || n > 253) return false;
  let label = 0;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c === 46) {
      if (label === 0) return false;
      label = 0;
      continue;
    }
    if (!((c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 45 || c === 95)) return false;
    if (++label > 63) return false;
  }
  return label > 0;
};

/** An absolute name from presentation form: lower case, no trailing dot, labels 1–63 octets, ≤ 255 on the wire. */
export const normaliseName = (raw: string, { allowEscapedDot = false } = {}): string => {
  if (isPlainName(raw)) return raw;
  let s = raw.trim();
  if (s === '.' || s === '') return '';
  if (s.endsWith('.') && !s.endsWith('\\.')) s = s.slice(0, -1);
  if (/\s/.test(s)) fail(`name "${raw}" contains whitespace`);
  const escaped = s.includes('\\');
  if (escaped && !allowEscapedDot) fail(`name "${raw}" contains an escape`);
  // Split on dots that are not escaped (only SOA RNAME may escape one: "first\.last.example.").
  const labels = escaped ? s.split(/(?<!\\)\./) : s.split('.');
  let wire = 1;
  for (const l of labels) {
    const octets = Buffer.byteLength(escaped ? l.replace(/\\\./g, '.') : l);
    if (octets < 1 || octets > 63) fail(`name "${raw}" has a label of ${octets} octets (RFC 1035 §2.3.4: 1–63)`);
    wire += octets + 1;
  }
  if (wire > 255) fail(`name "${raw}" is ${wire} octets on the wire (RFC 1035 §2.3.4: ≤ 255)`);
  return s.toLowerCase();
};

const u16 = (s: string | undefined, what: string): number => {
  const n = Number(s);
  if (s === undefined || !/^\d+$/.test(s) || n > 65535) fail(`${what} "${s}" is not 0–65535`);
  return n;
};

const u32 = (s: string | undefined, what: string): number => {
  const n = Number(s);
  if (s === undefined || !/^\d+$/.test(s) || n > 0xffffffff) fail(`${what} "${s}" is not 0–4294967295`);
  return n;
};

const fields = (value: string, n: number, type: string): string[] => {
  const f = value.trim().split(/\s+/);
  if (f.length !== n) fail(`${type} value "${value}" needs ${n} fields`);
  return f;
};

/** TXT text → its character strings as octets: the one split the export and the size checks use too. */
export const txtStrings = (text: string): Buffer[] => txtStringOctets(text).map((o) => Buffer.from(o.buffer, o.byteOffset, o.byteLength));

/** A CAA value "0 issue \"ca.example; account=1\"" (RFC 8659 §4.1.1), scanned once (no backtracking). */
const caa = (value: string): dnsPacket.CaaData => {
  const m = splitCaa(value);
  if (!m || !/^\d+$/.test(m.flags) || !/^[A-Za-z0-9]+$/.test(m.tag))
    return fail(`CAA value "${value.slice(0, 100)}" is not "flags tag value"`);
  const flags = u16(m.flags, 'CAA flags');
  if (flags > 255) fail(`CAA flags ${flags} are not 0–255`);
  let v = m.value;
  if (v.startsWith('"')) {
    const body = caaValueBody(v);
    if (body === null) return fail(`CAA value ${v.slice(0, 100)} is not a closed quoted string`);
    // dns-packet writes the value as UTF-8: decode the escapes to the text those octets are.
    v = unescapeString(body).text;
  }
  return { flags, tag: m.tag.toLowerCase() as dnsPacket.CaaData['tag'], value: v };
};

const NAME_TYPE_CODES = { NS: T.NS, CNAME: T.CNAME, DNAME: T.DNAME, PTR: T.PTR } as const;

/**
 * The tail of a record whose RDATA is one name (NS, CNAME, DNAME, PTR), `target` as normaliseName gives it
 * (no escapes, no final dot; '' the root): the octets dns-packet's encoder writes, without building its
 * record object and a whole message first — a catalog of 10,000 members is 10,000 PTRs.
 */
export const nameTail = (type: keyof typeof NAME_TYPE_CODES, ttl: number, target: string): Buffer => {
  const length = target === '' ? 1 : Buffer.byteLength(target) + 2;
  const tail = Buffer.allocUnsafe(10 + length);
  tail.writeUInt16BE(NAME_TYPE_CODES[type], 0);
  tail.writeUInt16BE(1, 2); // IN
  tail.writeUInt32BE(ttl >>> 0, 4);
  tail.writeUInt16BE(length, 8);
  let at = 10;
  if (target !== '')
    for (const label of target.split('.')) {
      const n = tail.write(label, at + 1);
      tail[at] = n;
      at += n + 1;
    }
  tail[at] = 0;
  return tail;
};

/** One record's tail (see wire.ts) and, for NS/CNAME/DNAME/PTR/MX/SRV, its target. */
export const encodeValue = (type: RecordType, ttl: number, value: string): { tail: Buffer; target?: string } => {
  const base = { name: '.', ttl, class: 'IN' as const };
  switch (type) {
    case 'A':
      // Addresses are short: a long value is refused before node:net's address patterns see it.
      if (value.length > 64 || !isIPv4(value.trim())) fail(`A value "${value}" is not an IPv4 address`);
      return { tail: encodeTail({ ...base, type: 'A', data: value.trim() }) };
    case 'AAAA':
      if (value.length > 128 || !isIPv6(value.trim())) fail(`AAAA value "${value}" is not an IPv6 address`);
      return { tail: encodeTail({ ...base, type: 'AAAA', data: value.trim() }) };
    case 'NS':
    case 'CNAME':
    case 'DNAME':
    case 'PTR': {
      const target = normaliseName(fields(value, 1, type)[0]!);
      return { tail: nameTail(type, ttl, target), target };
    }
    case 'MX': {
      const [pref, exchange] = fields(value, 2, type);
      const target = normaliseName(exchange!);
      return {
        tail: encodeTail({ ...base, type: 'MX', data: { preference: u16(pref, 'MX preference'), exchange: target || '.' } }),
        target,
      };
    }
    case 'SRV': {
      const [priority, weight, port, rawTarget] = fields(value, 4, type);
      const target = normaliseName(rawTarget!);
      return {
        tail: encodeTail({
          ...base,
          type: 'SRV',
          data: {
            priority: u16(priority, 'SRV priority'),
            weight: u16(weight, 'SRV weight'),
            port: u16(port, 'SRV port'),
            target: target || '.',
          },
        }),
        target,
      };
    }
    case 'CAA':
      return { tail: encodeTail({ ...base, type: 'CAA', data: caa(value) }) };
    case 'SOA': {
      const [mname, rname, serial, refresh, retry, expire, minimum] = fields(value, 7, type);
      return {
        tail: encodeTail({
          ...base,
          type: 'SOA',
          data: {
            mname: normaliseName(mname!) || '.',
            rname: normaliseName(rname!, { allowEscapedDot: true }) || '.',
            serial: u32(serial, 'SOA serial'),
            refresh: u32(refresh, 'SOA refresh'),
            retry: u32(retry, 'SOA retry'),
            expire: u32(expire, 'SOA expire'),
            minimum: u32(minimum, 'SOA minimum'),
          },
        }),
      };
    }
    case 'TXT':
    case 'SPF': {
      const strings = txtStrings(value);
      if (strings.reduce((n, b) => n + b.length + 1, 0) > 65535) fail('TXT value is over 65535 octets of RDATA');
      const tail = encodeTail({ ...base, type: 'TXT', data: strings });
      // SPF (type 99, RFC 7208 §3.1) has TXT's RDATA; dns-packet does not know the type, so patch it.
      if (type === 'SPF') tail.writeUInt16BE(T.SPF, 0);
      return { tail };
    }
    default:
      return fail(`record type ${String(type)} is not served`);
  }
};

/** The SOA fields this server needs (negative TTL, serial for IXFR/NOTIFY). */
export const soaFields = (value: string): { serial: number; minimum: number; expire: number } => {
  const f = fields(value, 7, 'SOA');
  return { serial: u32(f[2], 'SOA serial'), minimum: u32(f[6], 'SOA minimum'), expire: u32(f[5], 'SOA expire') };
};
