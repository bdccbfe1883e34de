import { isRecordType, type RecordSet } from '../../../core/dns/zone/record-set.js';
import type { Zone } from '../../../core/dns/zone/zone.js';
import { encodeValue, normaliseName, soaFields } from './rdata.js';
import { encodedSet, nameWire, T, type EncodedSet } from './wire.js';

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
}

const TYPE_CODES: Record<string, number> = {
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

export const inZone = (name: string, apex: string): boolean => name === apex || name.endsWith(`.${apex}`);

/**
 * Compiles a zone. A zone without an apex SOA cannot answer negatively or be transferred, so it
 * throws; a record set that cannot be encoded is skipped and reported through `skip` (the plan checks
 * should have refused it; one bad record must not take the whole zone off the air).
 */
export const compileZone = (zone: Zone, skip: (reason: string, set: RecordSet) => void): CompiledZone => {
  const apex = normaliseName(zone.domain);
  if (apex === '') throw new TypeError('nameserver: a zone needs a domain below the root');
  const nodes = new Map<string, ZoneNode>();
  const node = (name: string): ZoneNode => {
    let n = nodes.get(name);
    if (!n) {
      n = { name, wire: nameWire(name), sets: new Map(), order: [], cut: false, glue: [] };
      nodes.set(name, n);
    }
    return n;
  };
  const apexNode = node(apex);
  let soa: EncodedSet | undefined;
  let negativeSoa: EncodedSet | undefined;
  let serial = zone.serial;
  let expire = 0;
  let recordCount = 0;

  for (const rs of zone.recordSets) {
    try {
      if (!isRecordType(rs.type)) throw new Error(`type ${String(rs.type)} is not served`);
      const name = normaliseName(rs.name);
      if (!inZone(name, apex)) throw new Error(`owner is outside the zone ${apex}`);
      if (!Number.isInteger(rs.ttl) || rs.ttl < 0 || rs.ttl > 2147483647) throw new Error(`TTL ${rs.ttl} is not 0–2147483647`);
      if (rs.values.length === 0) throw new Error('no values');
      const type = TYPE_CODES[rs.type]!;
      if (type === T.SOA && (name !== apex || rs.values.length !== 1)) throw new Error('SOA belongs at the apex, once');
      if (nodes.get(name)?.sets.has(type)) throw new Error('a second record set of this name and type');
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
      const withTargets = type === T.NS || type === T.CNAME || type === T.DNAME || type === T.MX || type === T.SRV;
      const set = encodedSet(type, rs.ttl, tails, withTargets ? targets : undefined);
      const target = node(name); // only now: a set that failed to encode leaves no name behind
      target.sets.set(type, set);
      target.order.push(set);
      recordCount += tails.length;
      if (type === T.SOA) {
        const f = soaFields(rs.values[0]!);
        serial = f.serial;
        expire = f.expire;
        soa = set;
        const ttl = Math.min(rs.ttl, f.minimum);
        negativeSoa = encodedSet(T.SOA, ttl, [encodeValue('SOA', ttl, rs.values[0]!).tail]);
      }
    } catch (e) {
      skip(e instanceof Error ? e.message : String(e), rs);
    }
  }
  if (!soa || !negativeSoa) throw new TypeError(`nameserver: zone ${apex} has no SOA at its apex`);

  // Empty non-terminals: every name between the apex and an owner exists (RFC 4592 §2.2.2), which
  // also stops a wildcard above it from matching names below it.
  for (const name of [...nodes.keys()]) {
    let n = name;
    while (n !== apex) {
      n = n.slice(n.indexOf('.') + 1);
      if (nodes.has(n)) break;
      node(n);
    }
  }

  // Zone cuts and their referral data: the NS set, then glue (A/AAAA of in-zone NS targets).
  for (const n of nodes.values()) {
    const ns = n.sets.get(T.NS);
    if (n === apexNode || !ns) continue;
    n.cut = true;
    n.glue.push({ owner: n.name, ownerWire: n.wire, set: ns });
    for (const t of ns.targets ?? []) {
      if (!inZone(t, apex)) continue;
      const g = nodes.get(t);
      if (!g) continue;
      const inDomain = inZone(t, n.name);
      for (const type of [T.A, T.AAAA]) {
        const s = g.sets.get(type);
        if (s) n.glue.push({ owner: g.name, ownerWire: g.wire, set: s, required: inDomain });
      }
    }
  }

  // Additional-section data (RFC 1035 §3.3.9, RFC 2782; Knot does the same): for every NS, MX and SRV set,
  // the A and AAAA sets of the targets that are names of this zone, in target order.
  const additional = new Map<EncodedSet, Part[]>();
  for (const n of nodes.values()) {
    for (const set of n.order) {
      if (set.type !== T.NS && set.type !== T.MX && set.type !== T.SRV) continue;
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
      if (parts.length > 0) additional.set(set, parts);
    }
  }

  return { apex, labels: apex.split('.').length, serial, nodes, apexNode, soa, negativeSoa, recordCount, expire, additional };
};
