import { createHash } from 'node:crypto';
import { isRecordType, type RecordSet } from '../../../core/dns/zone/record-set.js';
import type { ZoneSigning, ZoneSigningKey } from '../../../core/dns/zone/zone-signing.js';
import type { Zone } from '../../../core/dns/zone/zone.js';
import {
  canonicalCompare,
  canonicalLabels,
  dnskeyRdata,
  keySets,
  openKey,
  RR,
  SignatureCache,
  signRrset,
  type OpenKey,
  type SigningJob,
  typeBitmap,
  withTtl,
} from './dnssec.js';
import { encodeValue, normaliseName, RdataError, soaFields } from './rdata.js';
import { encodedSet, internSet, nameWire, RECORD_TYPE_CODES, T, type EncodedSet } from './wire.js';

/** An RRset placed in a message section under an owner name. */
export interface Part {
  /** Owner, lower case without trailing dot; when it is a suffix of the query name it becomes a pointer. */
  readonly owner: string;
  /** The owner's pre-encoded wire form (null: encode it when the answer is built — synthesized owners). */
  readonly ownerWire: Buffer | null;
  readonly set: EncodedSet;
  /** Glue that must fit, or the answer is truncated (RFC 9471: in-domain glue of a referral). */
  readonly required?: boolean;
}

/** A name in the zone; an empty non-terminal has no sets but exists (RFC 4592 §2.2.2). */
export interface ZoneNode {
  readonly name: string;
  readonly wire: Buffer;
  readonly sets: Map<number, EncodedSet>;
  /** The sets in the zone's order: ANY answers with the first, AXFR sends them all. */
  readonly order: EncodedSet[];
  /** NS below the apex: a zone cut (RFC 1034 §4.2.1). */
  cut: boolean;
  /** For a cut: its NS set then the glue for in-zone targets, ready for a referral. */
  glue: Part[];
  /** Signed zones: the RRSIGs over each of this name's RRsets, by the type they cover. */
  sigs?: Map<number, EncodedSet>;
}

/** The NSEC chain of a signed zone, in canonical order (RFC 4034 §6.1), for finding the record that covers a name. */
export interface NsecChain {
  readonly labels: ReadonlyArray<readonly string[]>;
  readonly nodes: readonly ZoneNode[];
}

/** A published zone, compiled so that a query does no scanning: one map lookup per name tried. */
export interface CompiledZone {
  readonly apex: string;
  readonly labels: number;
  readonly serial: number;
  readonly nodes: ReadonlyMap<string, ZoneNode>;
  readonly apexNode: ZoneNode;
  readonly soa: EncodedSet;
  /** The SOA for negative answers: TTL = min(SOA TTL, MINIMUM) (RFC 2308 §3). */
  readonly negativeSoa: EncodedSet;
  readonly recordCount: number;
  /** The SOA EXPIRE field, for the EDNS EXPIRE option (RFC 7314). */
  readonly expire: number;
  /** For NS, MX and SRV sets: the A/AAAA sets of their in-zone targets, for the additional section. */
  readonly additional: ReadonlyMap<EncodedSet, readonly Part[]>;
  /** Signed (DNSSEC): the NSEC chain, and the RRSIG over the SOA at the negative TTL. Null when unsigned. */
  readonly dnssec: { readonly chain: NsecChain; readonly negativeSoaSig: EncodedSet } | null;
}

/**
 * How a zone is signed when it carries `signing`: the opener of its sealed keys (the signer alone has one),
 * and the zone's signatures (the last compile's, and those read from the store).
 */
export interface CompileOptions {
  readonly openKey?: (sealed: string) => string;
  readonly signatures?: SignatureCache;
}

/** Signs laid-out signatures in bulk (sign-pool.ts: worker threads); without one, they are signed in this thread. */
export type BulkSigner = (jobs: readonly SigningJob[]) => Promise<void>;

/** TTL of the DNSKEY, CDS and CDNSKEY sets (Knot's default dnskey-ttl is the SOA TTL; ours is an hour too). */
export const DNSKEY_TTL = 3600;

/** RFC 4034 Appendix B: the key tag of a DNSKEY RDATA. */
export const keyTag = (rdata: Buffer): number => {
  let ac = 0;
  for (let i = 0; i < rdata.length; i++) ac += i & 1 ? rdata[i]! : rdata[i]! << 8;
  ac += (ac >> 16) & 0xffff;
  return ac & 0xffff;
};

/** DS RDATA with a SHA-256 digest (RFC 4034 §5.1.4, RFC 4509): key tag, algorithm, 2, digest of owner ‖ DNSKEY RDATA. */
export const dsRdata = (apexWire: Buffer, k: Pick<ZoneSigningKey, 'flags' | 'algorithm' | 'publicKey'>): Buffer => {
  const rdata = dnskeyRdata(k);
  const digest = createHash('sha256').update(apexWire).update(rdata).digest();
  const head = Buffer.alloc(4);
  head.writeUInt16BE(keyTag(rdata), 0);
  head[2] = k.algorithm;
  head[3] = 2;
  return Buffer.concat([head, digest]);
};

export const inZone = (name: string, apex: string): boolean => name === apex || name.endsWith(`.${apex}`);

/** A record set of the zone encoded: its owner (normalised), the set, and for the SOA what negative answers need. */
export interface EncodedRecordSet {
  readonly name: string;
  readonly set: EncodedSet;
  readonly soa: { readonly serial: number; readonly expire: number; readonly negative: EncodedSet } | null;
}

/** A record set's records encoded (type code, owner normalised, duplicates dropped), before it is made an EncodedSet. */
interface EncodedTails {
  readonly name: string;
  readonly type: number;
  readonly tails: Buffer[];
  readonly targets: string[];
}

/** A record set's owner (normalised) and type code, once what it is apart from its values is checked; throws the reason it is not served. */
const setHead = (rs: RecordSet, apex: string): { name: string; type: number } => {
  if (!isRecordType(rs.type)) throw new Error(`type ${String(rs.type)} is not served`);
  const name = normaliseName(rs.name);
  if (!inZone(name, apex)) throw new Error(`owner is outside the zone ${apex}`);
  if (!Number.isInteger(rs.ttl) || rs.ttl < 0 || rs.ttl > 2147483647) throw new Error(`TTL ${rs.ttl} is not 0–2147483647`);
  if (rs.values.length === 0) throw new Error('no values');
  const type = RECORD_TYPE_CODES[rs.type]!;
  if (type === T.SOA && (name !== apex || rs.values.length !== 1)) throw new Error('SOA belongs at the apex, once');
  return { name, type };
};

/** Encodes the records of one record set of the zone `apex`; throws (with the reason it is not served) when it cannot be. */
const encodeTails = (rs: RecordSet, apex: string): EncodedTails => {
  const { name, type } = setHead(rs, apex);
  const tails: Buffer[] = [];
  const targets: string[] = [];
  const seen = new Set<string>();
  for (const v of rs.values) {
    const enc = encodeValue(rs.type, rs.ttl, v);
    const key = enc.tail.toString('latin1');
    if (seen.has(key)) continue; // RFC 2181 §5: an RRset holds no duplicates
    seen.add(key);
    tails.push(enc.tail);
    if (enc.target !== undefined) targets.push(enc.target);
  }
  return { name, type, tails, targets };
};

/** The EncodedSet of encoded records (not the SOA): shared with other zones holding the same set where it may be. */
const dataSet = (type: number, ttl: number, tails: readonly Buffer[], targets: readonly string[], apex: string): EncodedSet => {
  const withTargets = type === T.NS || type === T.CNAME || type === T.DNAME || type === T.MX || type === T.SRV;
  const set = encodedSet(type, ttl, tails, withTargets ? targets : undefined);
  // Shared with other zones holding the same set, unless it names a name of this zone: such a set keys
  // this zone's additional data (by identity, incremental.ts), so it stays this zone's own. A PTR set names
  // a host of its own (a catalog's member, a reverse zone's host): seldom another zone's, so not shared either.
  return type === T.PTR || (withTargets && targets.some((t) => inZone(t, apex))) ? set : internSet(set);
};

/** Encodes one record set of the zone `apex`; throws (with the reason it is not served) when it cannot be. */
export const encodeRecordSet = (rs: RecordSet, apex: string): EncodedRecordSet => {
  const { name, type, tails, targets } = encodeTails(rs, apex);
  if (type !== T.SOA) return { name, set: dataSet(type, rs.ttl, tails, targets, apex), soa: null };
  const set = encodedSet(type, rs.ttl, tails);
  const f = soaFields(rs.values[0]!);
  const ttl = Math.min(rs.ttl, f.minimum);
  return {
    name,
    set,
    soa: { serial: f.serial, expire: f.expire, negative: encodedSet(T.SOA, ttl, [encodeValue('SOA', ttl, rs.values[0]!).tail]) },
  };
};

/**
 * Values checked lately (checkZone), by type, TTL and value: the record's tail as latin1 (what tells two
 * records of a set apart), or why it is not served. An account's zones mostly hold the same values (the
 * service's nameservers, SOA fields), so each is encoded once, not once a zone. Cleared when full.
 */
const checkedValues = new Map<string, { readonly tail: string } | { readonly refused: string }>();
const CHECKED_VALUES_LIMIT = 4096;

/** Lets go of the values checked (a DNS server, once it has loaded every zone: later publishes are few). */
export const forgetCheckedValues = (): void => checkedValues.clear();

/** encodeValue's tail as latin1, or the RdataError it throws, remembered (checkedValues). */
const checkedValue = (type: RecordSet['type'], ttl: number, value: string): string => {
  const key = `${type}\u0000${ttl}\u0000${value}`;
  let held = checkedValues.get(key);
  if (held === undefined) {
    try {
      held = { tail: encodeValue(type, ttl, value).tail.toString('latin1') };
    } catch (e) {
      if (!(e instanceof RdataError)) throw e;
      held = { refused: e.message };
    }
    if (checkedValues.size >= CHECKED_VALUES_LIMIT) checkedValues.clear();
    checkedValues.set(key, held);
  }
  if ('refused' in held) throw new RdataError(held.refused);
  return held.tail;
};

/**
 * What encodeTails checks of a record set, through checkedValue: its owner (normalised), type code and the
 * number of distinct records; throws what encodeTails throws.
 */
const checkTails = (rs: RecordSet, apex: string): { name: string; type: number; records: number } => {
  const { name, type } = setHead(rs, apex);
  if (rs.values.length === 1) {
    checkedValue(rs.type, rs.ttl, rs.values[0]!);
    return { name, type, records: 1 };
  }
  const seen = new Set<string>();
  for (const v of rs.values) seen.add(checkedValue(rs.type, rs.ttl, v));
  return { name, type, records: seen.size };
};

/**
 * What publishing a zone to be held dormant needs of its compile, without compiling it: its apex, serial and
 * record count, each set checked and encoded as compileZone does (the same sets skipped, in the same order,
 * through `skip`; the same TypeError without an apex SOA). No node, map or shared set is made.
 */
export const checkZone = (
  zone: Zone,
  skip: (reason: string, set: RecordSet) => void,
): { apex: string; serial: number; recordCount: number } => {
  const apex = normaliseName(zone.domain);
  if (apex === '') throw new TypeError('nameserver: a zone needs a domain below the root');
  const seen = new Set<string>();
  let serial = zone.serial;
  let recordCount = 0;
  let soa = false;
  for (const rs of zone.recordSets) {
    try {
      const enc = checkTails(rs, apex);
      const key = `${enc.name}\u0000${enc.type}`;
      if (seen.has(key)) throw new Error('a second record set of this name and type');
      if (enc.type === T.SOA) {
        const f = soaFields(rs.values[0]!);
        serial = f.serial;
        soa = true;
      }
      seen.add(key);
      recordCount += enc.records;
    } catch (e) {
      skip(e instanceof Error ? e.message : String(e), rs);
    }
  }
  if (!soa) throw new TypeError(`nameserver: zone ${apex} has no SOA at its apex`);
  return { apex, serial, recordCount };
};

/** A cut's referral data: its NS set, then the A/AAAA sets of its in-zone NS targets (in-domain ones required, RFC 9471). */
export const cutGlue = (n: ZoneNode, nodes: ReadonlyMap<string, ZoneNode>, apex: string): Part[] => {
  const ns = n.sets.get(T.NS)!;
  const glue: Part[] = [{ owner: n.name, ownerWire: n.wire, set: ns }];
  for (const t of ns.targets ?? []) {
    if (!inZone(t, apex)) continue;
    const g = nodes.get(t);
    if (!g) continue;
    const inDomain = inZone(t, n.name);
    for (const type of [T.A, T.AAAA]) {
      const s = g.sets.get(type);
      if (s) glue.push({ owner: g.name, ownerWire: g.wire, set: s, required: inDomain });
    }
  }
  return glue;
};

/** For an NS, MX or SRV set: the A and AAAA sets of its targets that are names of the zone, in target order (null: none). */
export const additionalParts = (set: EncodedSet, nodes: ReadonlyMap<string, ZoneNode>, apex: string): Part[] | null => {
  if (set.type !== T.NS && set.type !== T.MX && set.type !== T.SRV) return null;
  const parts: Part[] = [];
  const seen = new Set<string>();
  for (const t of set.targets ?? []) {
    if (seen.has(t) || !inZone(t, apex)) continue;
    seen.add(t);
    const g = nodes.get(t);
    if (!g) continue;
    for (const type of [T.A, T.AAAA]) {
      const s = g.sets.get(type);
      if (s) parts.push({ owner: g.name, ownerWire: g.wire, set: s });
    }
  }
  return parts.length > 0 ? parts : null;
};

/**
 * When the names of an unsigned zone are held compactly (CompactNodes): at least `minNames` names, and
 * leaves among them at least `minShare` (tests lower both to run the compact form through small zones).
 */
export const compaction = { minNames: 512, minShare: 0.5 };

/** The types a compact leaf may hold: sets that name no target (targets feed glue, additional data and CNAME chasing). */
const LEAF_TYPES: ReadonlySet<number> = new Set([T.A, T.AAAA, T.TXT, T.PTR, T.CAA, T.SPF]);

/**
 * The names of a large unsigned zone, held compactly: a name that holds one set of a LEAF_TYPES type and
 * nothing else (no cut, glue or signatures) — a catalog zone's members (RFC 9432: one PTR each), a
 * reverse zone's PTRs, most names of a zone of many hosts — is kept as its records' wire octets in one
 * buffer for the whole zone (~100 octets a name with its key, against ~2.5 KB as a ZoneNode with its
 * maps, arrays, buffers and layouts), and made into a ZoneNode again when asked. Every other name is held as
 * compiled. It reads as the Map of ZoneNodes it was made from: the same names in the same order, and each
 * node as compiled (the same name, wire form, set, records and layouts), though a new object each time it is
 * read (nothing keys a leaf's node or set by identity: additional data and glue hold the sets they were
 * made with, and DNSSEC, whose chain does, is never compact). Never changed: the incremental build lays an
 * OverlayMap over it.
 */
export class CompactNodes implements ReadonlyMap<string, ZoneNode> {
  constructor(
    /** Every name in order: a ZoneNode, or a leaf's index into `starts`. */
    private readonly held: ReadonlyMap<string, ZoneNode | number>,
    /** The leaves' records (tails), one after another. */
    private readonly data: Buffer,
    /** Where each leaf's records start in `data`, and (the last) where the last one ends. */
    private readonly starts: Uint32Array,
  ) {}

  /** How many names are held as leaves (for tests and benches). */
  get leaves(): number {
    return this.starts.length - 1;
  }

  get size(): number {
    return this.held.size;
  }

  has(name: string): boolean {
    return this.held.has(name);
  }

  get(name: string): ZoneNode | undefined {
    const v = this.held.get(name);
    return typeof v === 'number' ? this.leaf(name, v) : v;
  }

  /** A leaf as the ZoneNode it was made from: its records copied out (a journal or a reply must not hold `data`). */
  private leaf(name: string, i: number): ZoneNode {
    const data = this.data;
    const start = this.starts[i]!;
    const end = this.starts[i + 1]!;
    const tails: Buffer[] = [];
    for (let o = start; o < end;) {
      const len = 10 + data.readUInt16BE(o + 8);
      const tail = Buffer.allocUnsafe(len); // Node's shared pool, as encodeTail's
      data.copy(tail, 0, o, o + len);
      tails.push(tail);
      o += len;
    }
    const set = encodedSet(data.readUInt16BE(start), data.readUInt32BE(start + 4), tails);
    return { name, wire: nameWire(name), sets: new Map([[set.type, set]]), order: [set], cut: false, glue: [] };
  }

  /** The names held as nodes (not leaves), in order: a leaf holds no NS, MX or SRV set, nor a cut or signatures. */
  *nodesOnly(): Generator<ZoneNode> {
    for (const v of this.held.values()) if (typeof v !== 'number') yield v;
  }

  *entries(): MapIterator<[string, ZoneNode]> {
    for (const [name, v] of this.held) yield [name, typeof v === 'number' ? this.leaf(name, v) : v];
  }

  keys(): MapIterator<string> {
    return this.held.keys();
  }

  *values(): MapIterator<ZoneNode> {
    for (const [, node] of this.entries()) yield node;
  }

  forEach(fn: (value: ZoneNode, key: string, map: ReadonlyMap<string, ZoneNode>) => void, thisArg?: unknown): void {
    for (const [name, node] of this.entries()) fn.call(thisArg, node, name, this);
  }

  [Symbol.iterator](): MapIterator<[string, ZoneNode]> {
    return this.entries();
  }
}

/** Whether a node can be held as a compact leaf: one set of a leaf type, each record at the set's TTL, and nothing else. */
const isLeaf = (n: ZoneNode): boolean => {
  if (n.cut || n.glue.length > 0 || n.sigs || n.order.length !== 1 || n.sets.size !== 1) return false;
  const set = n.order[0]!;
  if (!LEAF_TYPES.has(set.type) || set.targets !== undefined || set.tails.length === 0 || n.sets.get(set.type) !== set) return false;
  for (const t of set.tails)
    if (t.readUInt16BE(0) !== set.type || t.readUInt32BE(4) !== set.ttl >>> 0 || t.length !== 10 + t.readUInt16BE(8)) return false;
  return set.ttl >= 0 && set.ttl <= 0x7fffffff;
};

/**
 * The names of an unsigned zone as it holds them: compact (CompactNodes) from `compaction.minNames` names
 * on when enough of them are leaves (`compaction.minShare`, half), else a Map (`nodes` itself when it is one). The apex is never a
 * leaf (it holds the SOA).
 */
export const compactNodes = (nodes: ReadonlyMap<string, ZoneNode>, apex: string): Map<string, ZoneNode> | CompactNodes => {
  const plain = (): Map<string, ZoneNode> => (nodes instanceof Map ? (nodes as Map<string, ZoneNode>) : new Map(nodes));
  if (nodes.size < compaction.minNames) return plain();
  let leaves = 0;
  let octets = 0;
  for (const n of nodes.values()) {
    if (n.name === apex || !isLeaf(n)) continue;
    leaves++;
    octets += n.order[0]!.size;
  }
  if (leaves === 0 || leaves < nodes.size * compaction.minShare) return plain();
  const held = new Map<string, ZoneNode | number>();
  const data = Buffer.allocUnsafeSlow(octets);
  const starts = new Uint32Array(leaves + 1);
  let i = 0;
  let at = 0;
  for (const [name, n] of nodes) {
    if (name === apex || name !== n.name || !isLeaf(n) || i === leaves) {
      held.set(name, n);
      continue;
    }
    starts[i] = at;
    for (const t of n.order[0]!.tails) at += t.copy(data, at);
    held.set(name, i++);
  }
  starts[i] = at;
  return i === leaves ? new CompactNodes(held, data, starts) : plain();
};

/** The additional data of a zone that has none (most: NS, MX and SRV naming hosts elsewhere), shared; never written. */
const NO_ADDITIONAL: Map<EncodedSet, Part[]> = new Map();

/**
 * Compiles a zone. A zone without an apex SOA cannot answer negatively or be transferred, so it
 * throws; a record set that cannot be encoded is skipped and reported through `skip` (the plan checks
 * should have refused it; one bad record must not take the whole zone off the air).
 */
export const compileZone = (zone: Zone, skip: (reason: string, set: RecordSet) => void, options: CompileOptions = {}): CompiledZone => {
  const apex = normaliseName(zone.domain);
  if (apex === '') throw new TypeError('nameserver: a zone needs a domain below the root');
  // Every name in the zone's order: its node, or (a large unsigned zone: CompactNodes) a leaf's records by
  // their index in `leaves`, made into a node only if the name turns out to hold more (then null there).
  const held = new Map<string, ZoneNode | number>();
  const leaves: Array<readonly Buffer[] | null> = [];
  const packing = !zone.signing && zone.recordSets.length >= compaction.minNames;
  const node = (name: string): ZoneNode => {
    let n = held.get(name);
    if (typeof n === 'number') {
      // A leaf given a second set: the node it would have been from the start.
      const tails = leaves[n]!;
      leaves[n] = null;
      const set = dataSet(tails[0]!.readUInt16BE(0), tails[0]!.readUInt32BE(4), tails, [], apex);
      n = { name, wire: nameWire(name), sets: new Map([[set.type, set]]), order: [set], cut: false, glue: [] };
      held.set(name, n);
    } else if (!n) {
      n = { name, wire: nameWire(name), sets: new Map(), order: [], cut: false, glue: [] };
      held.set(name, n);
    }
    return n;
  };
  const has = (name: string, type: number): boolean => {
    const n = held.get(name);
    return typeof n === 'number' ? leaves[n]![0]!.readUInt16BE(0) === type : n !== undefined && n.sets.has(type);
  };
  const apexNode = node(apex);
  let soa: EncodedSet | undefined;
  let negativeSoa: EncodedSet | undefined;
  let serial = zone.serial;
  let expire = 0;
  let recordCount = 0;

  for (const rs of zone.recordSets) {
    try {
      if (packing) {
        const enc = encodeTails(rs, apex);
        if (has(enc.name, enc.type)) throw new Error('a second record set of this name and type');
        if (LEAF_TYPES.has(enc.type) && enc.name !== apex && !held.has(enc.name)) {
          held.set(enc.name, leaves.length);
          leaves.push(enc.tails);
          recordCount += enc.tails.length;
          continue;
        }
        if (enc.type !== T.SOA) {
          const set = dataSet(enc.type, rs.ttl, enc.tails, enc.targets, apex);
          const target = node(enc.name);
          target.sets.set(set.type, set);
          target.order.push(set);
          recordCount += set.tails.length;
          continue;
        }
      }
      const enc = encodeRecordSet(rs, apex);
      if (has(enc.name, enc.set.type)) throw new Error('a second record set of this name and type');
      const target = node(enc.name); // only now: a set that failed to encode leaves no name behind
      target.sets.set(enc.set.type, enc.set);
      target.order.push(enc.set);
      recordCount += enc.set.tails.length;
      if (enc.soa) {
        serial = enc.soa.serial;
        expire = enc.soa.expire;
        soa = enc.set;
        negativeSoa = enc.soa.negative;
      }
    } catch (e) {
      skip(e instanceof Error ? e.message : String(e), rs);
    }
  }
  if (!soa || !negativeSoa) throw new TypeError(`nameserver: zone ${apex} has no SOA at its apex`);

  // Empty non-terminals: every name between the apex and an owner exists (RFC 4592 §2.2.2), which
  // also stops a wildcard above it from matching names below it.
  for (const name of [...held.keys()]) {
    let n = name;
    while (n !== apex) {
      n = n.slice(n.indexOf('.') + 1);
      if (held.has(n)) break;
      node(n);
    }
  }

  // The leaves packed (CompactNodes) when there are enough of them, else made nodes as any other name.
  let count = 0;
  let octets = 0;
  for (const tails of leaves) {
    if (!tails) continue;
    count++;
    for (const t of tails) octets += t.length;
  }
  let nodes: ReadonlyMap<string, ZoneNode>;
  if (count > 0 && held.size >= compaction.minNames && count >= held.size * compaction.minShare) {
    const data = Buffer.allocUnsafeSlow(octets);
    const starts = new Uint32Array(count + 1);
    let i = 0;
    let at = 0;
    for (const [name, n] of held) {
      if (typeof n !== 'number') continue;
      starts[i] = at;
      for (const t of leaves[n]!) at += t.copy(data, at);
      held.set(name, i++);
    }
    starts[i] = at;
    nodes = new CompactNodes(held, data, starts);
  } else {
    for (const [name, n] of held) if (typeof n === 'number') node(name);
    nodes = held as Map<string, ZoneNode>;
  }
  leaves.length = 0;

  // Zone cuts and their referral data: the NS set, then glue (A/AAAA of in-zone NS targets). A leaf is never a cut.
  for (const n of held.values()) {
    if (typeof n === 'number' || n === apexNode || !n.sets.has(T.NS)) continue;
    n.cut = true;
    n.glue = cutGlue(n, nodes, apex);
  }

  // Additional-section data (RFC 1035 §3.3.9, RFC 2782; Knot does the same): for every NS, MX and SRV set,
  // the A and AAAA sets of the targets that are names of this zone, in target order.
  let additional: Map<EncodedSet, Part[]> = NO_ADDITIONAL;
  for (const n of held.values()) {
    if (typeof n === 'number') continue; // a leaf holds no NS, MX or SRV
    for (const set of n.order) {
      const parts = additionalParts(set, nodes, apex);
      if (!parts) continue;
      if (additional === NO_ADDITIONAL) additional = new Map();
      additional.set(set, parts);
    }
  }

  const base = { apex, labels: apex.split('.').length, serial, nodes, apexNode, soa, negativeSoa, expire, additional };
  if (!zone.signing) return { ...base, recordCount, dnssec: null };
  if (!options.openKey && !options.signatures)
    throw new TypeError(`nameserver: zone ${apex} is signed, but this server cannot open signing keys`);
  // Signed: never packed (`packing`), so `held` holds nodes alone.
  const signed = signZone(
    apex,
    apexNode,
    held as Map<string, ZoneNode>,
    negativeSoa,
    zone.signing,
    options.openKey ?? null,
    options.signatures ?? null,
  );
  const dnssec = { chain: signed.chain, negativeSoaSig: signed.negativeSoaSig() };
  const compiled: CompiledZone = { ...base, recordCount: recordCount + signed.records, dnssec };
  // Laid out, not signed yet (compileZoneAsync): the negative SOA's signature is copied once the SOA's is.
  if (options.signatures?.deferred) unfinished.set(compiled, () => (dnssec.negativeSoaSig = signed.negativeSoaSig()));
  return compiled;
};

/** Compiled zones whose signatures compileZoneAsync is still making, and what completes each once they are made. */
const unfinished = new WeakMap<CompiledZone, () => void>();

/**
 * compileZone, with the new signatures of a signed zone made in bulk by `bulk` (worker threads) rather than
 * one by one in this thread. The jobs go to `bulk` in parts as the compile lays them out, so that the
 * threads sign while this one goes on compiling; the rest once it is done.
 */
export const compileZoneAsync = async (
  zone: Zone,
  skip: (reason: string, set: RecordSet) => void,
  options: CompileOptions,
  bulk: BulkSigner | null,
): Promise<CompiledZone> => {
  const cache = options.signatures;
  if (!zone.signing || !cache || !options.openKey || !bulk) return compileZone(zone, skip, options);
  const signing: Array<Promise<void>> = [];
  cache.deferred = true;
  cache.flush = (jobs) => signing.push(bulk(jobs));
  try {
    let compiled: CompiledZone;
    try {
      compiled = compileZone(zone, skip, options);
    } catch (err) {
      void Promise.allSettled(signing); // what was sent is signed into RRSIGs no one serves
      throw err;
    }
    cache.flush = null;
    signing.push(bulk(cache.jobs));
    cache.jobs = [];
    await Promise.all(signing);
    unfinished.get(compiled)?.();
    unfinished.delete(compiled);
    return compiled;
  } finally {
    cache.deferred = false;
    cache.flush = null;
  }
};

/** The NSEC of a chain member (RFC 4034 §4): the next member, and its types (at a cut NS and DS alone), RRSIG and NSEC. */
export const nsecOf = (n: ZoneNode, next: ZoneNode, ttl: number): EncodedSet => {
  const types: number[] = [RR.RRSIG, RR.NSEC];
  if (n.cut) types.push(T.NS, ...(n.sets.has(T.DS) ? [T.DS] : []));
  else for (const t of n.sets.keys()) if (t !== RR.NSEC && t !== RR.RRSIG) types.push(t);
  const bitmap = typeBitmap(types);
  const tail = Buffer.allocUnsafe(10 + next.wire.length + bitmap.length);
  tail.writeUInt16BE(RR.NSEC, 0);
  tail.writeUInt16BE(1, 2);
  tail.writeUInt32BE(ttl >>> 0, 4);
  tail.writeUInt16BE(next.wire.length + bitmap.length, 8);
  next.wire.copy(tail, 10);
  bitmap.copy(tail, 10 + next.wire.length);
  return encodedSet(RR.NSEC, ttl, [tail]);
};

/** What signing a zone's names needs: its keys (opened, on the signer), the window, and the signature cache. */
export interface NodeSigner {
  readonly apex: string;
  readonly apexWire: Buffer;
  readonly keys: readonly OpenKey[];
  readonly tags: readonly number[];
  readonly algorithms: readonly number[];
  readonly signing: ZoneSigning;
  readonly cache: SignatureCache | null;
}

/**
 * Signs the RRsets of a chain member whose order ends with its NSEC (at a cut only DS and NSEC): sets its
 * `sigs` and appends the name's RRSIG records as one set (for zone transfers and RRSIG queries). Returns
 * how many RRSIG records it holds.
 */
export const signNode = (n: ZoneNode, s: NodeSigner): number => {
  const sigs = new Map<number, EncodedSet>();
  const all: Buffer[] = [];
  for (const set of n.order) {
    if (n.cut && set.type !== T.DS && set.type !== RR.NSEC) continue;
    const tails = signRrset(n.wire, s.apexWire, set, s.keys, s.tags, s.algorithms, s.signing, s.cache, `${n.name}/${set.type}`, s.apex);
    sigs.set(set.type, encodedSet(RR.RRSIG, set.ttl, tails));
    all.push(...tails);
  }
  n.sigs = sigs;
  addSet(n, encodedSet(RR.RRSIG, 0, all));
  return all.length;
};

const addSet = (n: ZoneNode, set: EncodedSet): void => {
  n.sets.set(set.type, set);
  n.order.push(set);
};

/**
 * Signs the compiled names in place (RFC 4035 §2): DNSKEY (and CDS/CDNSKEY) at the apex, an NSEC at every
 * authoritative name and delegation point (RFC 4035 §2.3), and RRSIGs over every authoritative RRset —
 * at a delegation point only over DS and NSEC, and nothing below a cut (glue is not signed, §2.2).
 */
const signZone = (
  apex: string,
  apexNode: ZoneNode,
  nodes: Map<string, ZoneNode>,
  negativeSoa: EncodedSet,
  signing: ZoneSigning,
  open: ((sealed: string) => string) | null,
  cache: SignatureCache | null,
): { chain: NsecChain; negativeSoaSig: () => EncodedSet; records: number } => {
  const signers = signing.keys.filter((k) => k.signing);
  if (signers.length === 0) throw new TypeError(`nameserver: zone ${apex} is signed with no signing key`);
  // Only the signer opens the keys; a server without the opener serves stored signatures (dnssec.ts).
  const keys = open ? signers.map((k) => openKey(k, open)) : [];
  const tags = signers.map((k) => k.tag);
  const algorithms = signers.map((k) => k.algorithm);
  cache?.begin();
  try {
    return signNames(apex, apexNode, nodes, negativeSoa, signing, keys, tags, algorithms, cache);
  } catch (err) {
    cache?.abort();
    throw err;
  }
};

const signNames = (
  apex: string,
  apexNode: ZoneNode,
  nodes: Map<string, ZoneNode>,
  negativeSoa: EncodedSet,
  signing: ZoneSigning,
  keys: readonly OpenKey[],
  tags: readonly number[],
  algorithms: readonly number[],
  cache: SignatureCache | null,
): { chain: NsecChain; negativeSoaSig: () => EncodedSet; records: number } => {
  let records = 0;
  const { dnskey, cds, cdnskey } = keySets(signing, DNSKEY_TTL, (k) => dsRdata(apexNode.wire, k));
  for (const s of [dnskey, cds, cdnskey]) {
    if (!s || s.tails.length === 0) continue;
    addSet(apexNode, s);
    records += s.tails.length;
  }

  // Names below a cut are not authoritative (glue, RFC 4035 §2.2): neither chained nor signed.
  const below = (name: string): boolean => {
    for (let n = name; n !== apex;) {
      n = n.slice(n.indexOf('.') + 1);
      if (n !== apex && nodes.get(n)?.cut) return true;
    }
    return false;
  };
  const members: Array<{ labels: string[]; node: ZoneNode }> = [];
  for (const n of nodes.values()) if (n.order.length > 0 && !below(n.name)) members.push({ labels: canonicalLabels(n.name), node: n });
  members.sort((a, b) => canonicalCompare(a.labels, b.labels));

  // RFC 4034 §4, RFC 9077: NSEC TTL is the negative-caching TTL, min(SOA TTL, SOA MINIMUM).
  const nsecTtl = negativeSoa.ttl;
  for (let i = 0; i < members.length; i++) {
    const n = members[i]!.node;
    addSet(n, nsecOf(n, members[(i + 1) % members.length]!.node, nsecTtl));
    records++;
  }

  const signer: NodeSigner = { apex, apexWire: apexNode.wire, keys, tags, algorithms, signing, cache };
  for (const { node: n } of members) records += signNode(n, signer);
  cache?.commit();
  const soaSigs = apexNode.sigs!.get(T.SOA)!;
  const negativeSoaSig = (): EncodedSet =>
    encodedSet(
      RR.RRSIG,
      negativeSoa.ttl,
      soaSigs.tails.map((t) => withTtl(t, negativeSoa.ttl)),
    );
  return { chain: { labels: members.map((m) => m.labels), nodes: members.map((m) => m.node) }, negativeSoaSig, records };
};
