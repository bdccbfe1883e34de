import net from 'node:net';
import type { Prerequisite, UpdateOperation } from '../../../core/dns/update/dns-update.js';

/**
 * Reading an UPDATE message (RFC 2136 §2) into the core's terms. dns-packet cannot: it decodes RDATA by
 * type and so misreads the empty RDATA of class ANY and NONE records (§2.4, §2.5). Names come back lower
 * case without the trailing dot; RDATA as zone-file presentation text (TXT: the plain text, its strings
 * joined), as a plan takes values.
 */

const CLASS_IN = 1;
const CLASS_NONE = 254;
const CLASS_ANY = 255;
const TYPE_ANY = 255;
const TYPE_SOA = 6;
const TYPE_OPT = 41;
/** More records than this in one UPDATE is refused: no client needs it, and the plan checks are per set. */
export const MAX_UPDATE_RECORDS = 1000;

const TYPE_NAMES: Record<number, string> = {
  1: 'A',
  2: 'NS',
  5: 'CNAME',
  6: 'SOA',
  12: 'PTR',
  15: 'MX',
  16: 'TXT',
  28: 'AAAA',
  33: 'SRV',
  39: 'DNAME',
  99: 'SPF',
  257: 'CAA',
};
export const typeName = (t: number): string => TYPE_NAMES[t] ?? `TYPE${t}`;

export type ParsedUpdate =
  | { readonly ok: true; readonly zone: string; readonly prerequisites: Prerequisite[]; readonly updates: UpdateOperation[] }
  | { readonly ok: false; readonly rcode: 'FORMERR' | 'NOTAUTH' | 'REFUSED'; readonly reason: string };

const bad = (reason: string): ParsedUpdate => ({ ok: false, rcode: 'FORMERR', reason });

/** A (possibly compressed) name at `off`: its text and the offset after it. */
export const readName = (msg: Buffer, off: number): { name: string; end: number } => {
  const labels: string[] = [];
  let end = -1;
  let o = off;
  for (let hops = 0; hops < 64;) {
    if (o >= msg.length) throw new RangeError('name runs off the message');
    const len = msg[o]!;
    if (len === 0) {
      if (end < 0) end = o + 1;
      const name = labels.join('.');
      if (name.length > 253) throw new RangeError('name too long');
      return { name, end };
    }
    if ((len & 0xc0) === 0xc0) {
      if (o + 1 >= msg.length) throw new RangeError('name runs off the message');
      if (end < 0) end = o + 2;
      o = ((len & 0x3f) << 8) | msg[o + 1]!;
      hops++;
      continue;
    }
    if (len > 63 || o + 1 + len > msg.length) throw new RangeError('bad label');
    const raw = msg.subarray(o + 1, o + 1 + len);
    // A label with a dot, a backslash or octets outside printable ASCII never names one of our records.
    let text = '';
    for (const c of raw)
      text += c > 0x20 && c < 0x7f && c !== 0x2e && c !== 0x5c ? String.fromCharCode(c) : `\\${String(c).padStart(3, '0')}`;
    labels.push(text.toLowerCase());
    o += 1 + len;
  }
  throw new RangeError('compression loop');
};

const fqdn = (n: string): string => (n === '' ? '.' : `${n}.`);

const characterStrings = (rd: Buffer): Buffer[] => {
  const out: Buffer[] = [];
  for (let o = 0; o < rd.length;) {
    const l = rd[o]!;
    if (o + 1 + l > rd.length) throw new RangeError('TXT string runs past RDATA');
    out.push(rd.subarray(o + 1, o + 1 + l));
    o += 1 + l;
  }
  return out;
};

const quote = (b: Buffer): string => `"${b.toString('utf8').replace(/["\\]/g, (c) => `\\${c}`)}"`;

/** RDATA in presentation form; `msg`/`start` let names inside it follow compression pointers. */
const presentation = (type: number, msg: Buffer, start: number, length: number): string => {
  const rd = msg.subarray(start, start + length);
  const nameAt = (o: number) => readName(msg, start + o);
  switch (type) {
    case 1:
      if (length !== 4) throw new RangeError('A RDATA is 4 octets');
      return [...rd].join('.');
    case 28: {
      if (length !== 16) throw new RangeError('AAAA RDATA is 16 octets');
      const words: string[] = [];
      for (let i = 0; i < 16; i += 2) words.push(rd.readUInt16BE(i).toString(16));
      const text = words.join(':');
      if (!net.isIPv6(text)) throw new RangeError('bad AAAA');
      return text;
    }
    case 2:
    case 5:
    case 12:
    case 39:
      return fqdn(nameAt(0).name);
    case 15:
      return `${rd.readUInt16BE(0)} ${fqdn(nameAt(2).name)}`;
    case 33:
      return `${rd.readUInt16BE(0)} ${rd.readUInt16BE(2)} ${rd.readUInt16BE(4)} ${fqdn(nameAt(6).name)}`;
    case 16:
    case 99:
      return Buffer.concat(characterStrings(rd)).toString('utf8');
    case 257: {
      const tagLen = rd[1]!;
      if (2 + tagLen > rd.length) throw new RangeError('bad CAA');
      return `${rd[0]} ${rd.subarray(2, 2 + tagLen).toString('latin1')} ${quote(rd.subarray(2 + tagLen))}`;
    }
    default:
      return `\\# ${length} ${rd.toString('hex')}`;
  }
};

interface Rr {
  readonly name: string;
  readonly type: number;
  readonly klass: number;
  readonly ttl: number;
  readonly rdStart: number;
  readonly rdLength: number;
}

/**
 * Parses an UPDATE without its TSIG (tsig.ts removes it first). One zone of type SOA and class IN
 * (§3.1.1); records of the prerequisite and update sections checked per §3.2 and §3.4.1.3.
 */
export const parseUpdate = (msg: Buffer): ParsedUpdate => {
  if (msg.length < 12) return bad('short message');
  const zo = msg.readUInt16BE(4);
  const pr = msg.readUInt16BE(6);
  const up = msg.readUInt16BE(8);
  const ad = msg.readUInt16BE(10);
  if (zo !== 1) return bad('the zone section must hold exactly one zone');
  if (pr + up > MAX_UPDATE_RECORDS) return { ok: false, rcode: 'REFUSED', reason: `more than ${MAX_UPDATE_RECORDS} records in one update` };
  try {
    const z = readName(msg, 12);
    if (z.end + 4 > msg.length) return bad('short zone section');
    if (msg.readUInt16BE(z.end) !== TYPE_SOA) return bad('the zone type must be SOA');
    if (msg.readUInt16BE(z.end + 2) !== CLASS_IN) return { ok: false, rcode: 'NOTAUTH', reason: 'only class IN zones are served' };
    const zone = z.name;
    let o = z.end + 4;
    const rrs: Rr[] = [];
    for (let i = 0; i < pr + up + ad; i++) {
      const n = readName(msg, o);
      if (n.end + 10 > msg.length) return bad('record runs off the message');
      const rdLength = msg.readUInt16BE(n.end + 8);
      const rr: Rr = {
        name: n.name,
        type: msg.readUInt16BE(n.end),
        klass: msg.readUInt16BE(n.end + 2),
        ttl: msg.readUInt32BE(n.end + 4),
        rdStart: n.end + 10,
        rdLength,
      };
      o = n.end + 10 + rdLength;
      if (o > msg.length) return bad('record runs off the message');
      rrs.push(rr);
    }
    if (o !== msg.length) return bad('octets after the last record');
    const prerequisites: Prerequisite[] = [];
    for (const rr of rrs.slice(0, pr)) {
      // §3.2: TTL 0; class ANY/NONE with empty RDATA, or the zone's class with RDATA.
      if (rr.ttl !== 0) return bad('a prerequisite must have TTL 0');
      const type = typeName(rr.type);
      if (rr.klass === CLASS_ANY) {
        if (rr.rdLength !== 0) return bad('class ANY prerequisite with RDATA');
        prerequisites.push(rr.type === TYPE_ANY ? { kind: 'name-in-use', name: rr.name } : { kind: 'rrset-exists', name: rr.name, type });
      } else if (rr.klass === CLASS_NONE) {
        if (rr.rdLength !== 0) return bad('class NONE prerequisite with RDATA');
        prerequisites.push(
          rr.type === TYPE_ANY ? { kind: 'name-not-in-use', name: rr.name } : { kind: 'rrset-not-exists', name: rr.name, type },
        );
      } else if (rr.klass === CLASS_IN) {
        if (rr.type === TYPE_ANY) return bad('class IN prerequisite of type ANY');
        prerequisites.push({ kind: 'rrset-equals', name: rr.name, type, values: [presentation(rr.type, msg, rr.rdStart, rr.rdLength)] });
      } else return bad('prerequisite of an unknown class');
    }
    const updates: UpdateOperation[] = [];
    for (const rr of rrs.slice(pr, pr + up)) {
      const type = typeName(rr.type);
      // §3.4.1.3: meta types and classes other than the zone's, ANY and NONE are format errors.
      if (rr.type === TYPE_OPT || (rr.type >= 128 && rr.type <= 255 && !(rr.type === TYPE_ANY && rr.klass === CLASS_ANY)))
        return bad(`update of meta type ${type}`);
      if (rr.klass === CLASS_IN) {
        updates.push({ kind: 'add', name: rr.name, type, ttl: rr.ttl, value: presentation(rr.type, msg, rr.rdStart, rr.rdLength) });
      } else if (rr.klass === CLASS_ANY) {
        if (rr.ttl !== 0 || rr.rdLength !== 0) return bad('class ANY update with TTL or RDATA');
        updates.push(rr.type === TYPE_ANY ? { kind: 'delete-name', name: rr.name } : { kind: 'delete-rrset', name: rr.name, type });
      } else if (rr.klass === CLASS_NONE) {
        if (rr.ttl !== 0) return bad('class NONE update with a TTL');
        updates.push({ kind: 'delete-value', name: rr.name, type, value: presentation(rr.type, msg, rr.rdStart, rr.rdLength) });
      } else return bad('update of an unknown class');
    }
    return { ok: true, zone, prerequisites, updates };
  } catch (err) {
    return bad(`malformed: ${(err as Error).message}`);
  }
};
