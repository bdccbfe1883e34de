import { OverlayMap } from '../../../core/dns/zone/names-overlay.js';
import type { RecordSet, RecordType } from '../../../core/dns/zone/record-set.js';
import type { Zone } from '../../../core/dns/zone/zone.js';
import {
  additionalParts,
  CompactNodes,
  compactNodes,
  cutGlue,
  encodeRecordSet,
  inZone,
  nsecOf,
  signNode,
  type CompiledZone,
  type EncodedRecordSet,
  type NodeSigner,
  type Part,
  type ZoneNode,
} from './compiled-zone.js';
import { canonicalCompare, canonicalLabels, openKey, RR, withTtl, type SignatureCache } from './dnssec.js';
import { encodedSet, nameWire, RECORD_TYPE_CODES, T, type EncodedSet } from './wire.js';

/**
 * Publishing a new version of a zone by changing the version compiled last, not by compiling it again
 * (issues 22 and 24): a plan's commit changes a few record sets of a zone of 100 000, and a whole compile
 * (encoding every record, the names, cuts, glue, additional data, and for a signed zone the NSEC chain and
 * every signature looked up) costs seconds where the change costs milliseconds.
 *
 * The new version is found by walking the zone's list of record sets beside the last one (the store's next
 * version shares every untouched set, in place: one comparison each), and built copy-on-write: the names map is
 * an overlay over the last one (OverlayMap), every name touched is a copy, and the last version, which
 * queries and the IXFR journal may still hold, is never changed. Only what the change reaches is redone:
 * the touched names' sets, the empty non-terminals above names that came or went, the glue of cuts and
 * the additional data of NS, MX and SRV sets that name a touched name, and in a signed zone the NSEC of
 * the touched names and of their neighbours in the chain, their RRSIGs (through the zone's one
 * SignatureCache, so the one-signer rule holds: README "DNSSEC: one signer"), and the SOA's.
 *
 * Anything else gives up (null) and the caller compiles the whole zone: more than MAX_CHANGES changed sets
 * or more than 1 % of the zone, a list reordered, a zone cut that appears or goes (every name below it changes its place in
 * the chain), another signing key or window, a missing SOA, duplicate sets, or names not in normal form.
 * The result is the zone a whole compile of the same version makes (test/dns/incremental-publish.test.ts
 * compares them after random changes), but for the order of names in the names map (a new name comes
 * last), which shows only as the order of records in an AXFR.
 */

/** Above this many changed record sets (or 1 % of the zone, whichever is less, but at least MIN_LIMIT) the zone is compiled whole. */
export const MAX_CHANGES = 1000;
const MIN_LIMIT = 64;

/** What the updater keeps of the version compiled last (never read by queries; changed in place once a new version is built). */
export interface ZoneSource {
  compiled: CompiledZone;
  /** The record sets of that version, as given, by name (a name's only set, or its sets by type: most names hold one). */
  readonly byName: Map<string, RecordSet | Map<RecordType, RecordSet>>;
  size: number;
  /** How many child names (in the names map) each name has. */
  readonly children: Map<string, number>;
  /** In-zone target names → the owners and types of the NS, MX and SRV sets that name them (stale entries are harmless). */
  readonly referrers: Map<string, Array<readonly [string, number]>>;
  readonly signingKey: string | null;
  /** The record sets of that version as listed. */
  list: readonly RecordSet[];
}

/** The names an incrementally built version changed, by the version it was built from (for the IXFR journal). */
export const changedNames = new WeakMap<CompiledZone, { readonly from: CompiledZone; readonly names: ReadonlySet<string> }>();

const parentOf = (name: string): string => name.slice(name.indexOf('.') + 1);

const DNSSEC_TYPES = new Set<number>([RR.NSEC, RR.RRSIG, RR.DNSKEY, RR.CDS, RR.CDNSKEY]);
const isData = (type: number): boolean => !DNSSEC_TYPES.has(type);

const tailCount = (n: ZoneNode | undefined): number => {
  let c = 0;
  if (n) for (const s of n.order) c += s.tails.length;
  return c;
};

const dataCount = (n: ZoneNode | undefined): number => {
  let c = 0;
  if (n) for (const s of n.order) if (isData(s.type)) c++;
  return c;
};

const addReferrers = (referrers: ZoneSource['referrers'], owner: string, set: EncodedSet, apex: string): void => {
  if (set.type !== T.NS && set.type !== T.MX && set.type !== T.SRV) return;
  for (const t of set.targets ?? []) {
    if (!inZone(t, apex)) continue;
    const list = referrers.get(t);
    if (list) list.push([owner, set.type]);
    else referrers.set(t, [[owner, set.type]]);
  }
};

/** The set of `name` and `type` that `byName` holds. */
export const setOf = (byName: ZoneSource['byName'], name: string, type: RecordType): RecordSet | undefined => {
  const held = byName.get(name);
  return held instanceof Map ? held.get(type) : held?.type === type ? held : undefined;
};

/** Holds `rs` as its name's set of its type; false when one was held (`byName` unchanged). */
const putSet = (byName: ZoneSource['byName'], rs: RecordSet, replace: boolean): boolean => {
  const held = byName.get(rs.name);
  if (held === undefined) byName.set(rs.name, rs);
  else if (held instanceof Map) {
    if (held.has(rs.type) && !replace) return false;
    held.set(rs.type, rs);
  } else if (held.type === rs.type) {
    if (!replace) return false;
    byName.set(rs.name, rs);
  } else
    byName.set(
      rs.name,
      new Map([
        [held.type, held],
        [rs.type, rs],
      ]),
    );
  return true;
};

/** Lets go of the set of `name` and `type`; whether one was held. */
const dropSet = (byName: ZoneSource['byName'], name: string, type: RecordType): boolean => {
  const held = byName.get(name);
  if (held === undefined) return false;
  if (!(held instanceof Map)) {
    if (held.type !== type) return false;
    byName.delete(name);
    return true;
  }
  if (!held.delete(type)) return false;
  if (held.size === 1) byName.set(name, held.values().next().value!);
  return true;
};

/** The source of a version compiled whole, for updating it later; null when it cannot be updated (duplicate sets). */
export const sourceOf = (zone: Zone, compiled: CompiledZone): ZoneSource | null => {
  const byName: ZoneSource['byName'] = new Map();
  let size = 0;
  for (const rs of zone.recordSets) {
    if (!putSet(byName, rs, false)) return null;
    size++;
  }
  const children = new Map<string, number>();
  const referrers: ZoneSource['referrers'] = new Map();
  for (const name of compiled.nodes.keys()) {
    if (name === compiled.apex) continue;
    const p = parentOf(name);
    children.set(p, (children.get(p) ?? 0) + 1);
  }
  // A compact zone's leaves hold no NS, MX or SRV set: only its nodes are read (a leaf read is a node made).
  const nodes = compiled.nodes instanceof CompactNodes ? compiled.nodes.nodesOnly() : compiled.nodes.values();
  for (const n of nodes) for (const s of n.order) addReferrers(referrers, n.name, s, compiled.apex);
  return {
    compiled,
    byName,
    size,
    children,
    referrers,
    signingKey: zone.signing ? JSON.stringify(zone.signing) : null,
    list: zone.recordSets,
  };
};

const sameSet = (a: RecordSet, b: RecordSet): boolean => {
  if (a.ttl !== b.ttl || a.values.length !== b.values.length) return false;
  for (let i = 0; i < a.values.length; i++) if (a.values[i] !== b.values[i]) return false;
  return true;
};

const copyNode = (n: ZoneNode): ZoneNode => {
  const copy: ZoneNode = { name: n.name, wire: n.wire, sets: new Map(n.sets), order: [...n.order], cut: n.cut, glue: n.glue };
  if (n.sigs) copy.sigs = n.sigs;
  return copy;
};

/** Removes a node's NSEC and RRSIGs (to be made again, or because it left the chain). */
const strip = (n: ZoneNode): void => {
  n.sets.delete(RR.NSEC);
  n.sets.delete(RR.RRSIG);
  const order = n.order as EncodedSet[];
  for (let i = order.length - 1; i >= 0; i--) if (order[i]!.type === RR.NSEC || order[i]!.type === RR.RRSIG) order.splice(i, 1);
  delete n.sigs;
};

/** Where `labels` is in a sorted chain: its index, or -(insertion point) - 1. */
const search = (labels: ReadonlyArray<readonly string[]>, key: readonly string[]): number => {
  let lo = 0;
  let hi = labels.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const c = canonicalCompare(labels[mid]!, key);
    if (c === 0) return mid;
    if (c < 0) lo = mid + 1;
    else hi = mid - 1;
  }
  return -lo - 1;
};

/** The sets changed and removed between two versions, and whether every touched name keeps its sets' order. */
interface Found {
  readonly changed: RecordSet[];
  readonly removed: Array<{ name: string; type: RecordType }>;
  /** Names given a set of a type they did not have. */
  readonly newNames: Set<string>;
  /** False: a set moved in the list, so the touched names' order is read from the zone again. */
  readonly keepOrder: boolean;
}

/** The same set: the same object, or an equal one (a list of new objects, read again from the store). */
const equal = (x: RecordSet, y: RecordSet): boolean => x === y || (x.name === y.name && x.type === y.type && sameSet(x, y));

const keyOf = (s: RecordSet): string => `${s.name}\u0000${s.type}`;

const positions = (list: readonly RecordSet[]): Map<string, number> => {
  const at = new Map<string, number>();
  for (let k = 0; k < list.length; k++) at.set(keyOf(list[k]!), k);
  return at;
};

/**
 * The changes found by walking the new list beside the last one: a set that is the same object at the same
 * place costs one comparison (an equal one, a few). Null when the lists part ways too much (reordered, or
 * many changes): the zone is compiled whole. Sets of one name keep their order unless one moved (keepOrder).
 */
const listDiff = (src: ZoneSource, list: readonly RecordSet[], limit: number): Found | null => {
  const a = src.list;
  const b = list;
  const came: RecordSet[] = [];
  const went: RecordSet[] = [];
  const inPlace = new Map<RecordSet, RecordSet>();
  let i = 0;
  let j = 0;
  // Where each set is listed, by name and type: made only when the walk needs them (below).
  let posA: Map<string, number> | null = null;
  let posB: Map<string, number> | null = null;
  while (i < b.length && j < a.length) {
    const x = b[i]!;
    const y = a[j]!;
    if (equal(x, y)) {
      i++;
      j++;
      continue;
    }
    if (j + 1 < a.length && equal(x, a[j + 1]!)) {
      went.push(y);
      j++;
    } else if (i + 1 < b.length && equal(b[i + 1]!, y)) {
      came.push(x);
      i++;
    } else if (keyOf(x) === keyOf(y)) {
      came.push(x);
      went.push(y);
      inPlace.set(x, y);
      i++;
      j++;
    } else {
      // Several sets came or went side by side (a catalog whose members come in a batch): where each is in
      // the other list says which. Both further on in the other: the list was reordered (compiled whole).
      posA ??= positions(a);
      posB ??= positions(b);
      const yAt = posB.get(keyOf(y));
      const xAt = posA.get(keyOf(x));
      if (yAt === undefined || yAt < i) {
        went.push(y);
        j++;
      } else if (xAt === undefined || xAt < j) {
        came.push(x);
        i++;
      } else return null;
    }
    if (came.length + went.length > 2 * limit) return null;
  }
  while (i < b.length) came.push(b[i++]!);
  while (j < a.length) went.push(a[j++]!);
  if (came.length + went.length > 2 * limit) return null;
  const old = new Map<string, RecordSet>();
  for (const y of went) {
    const k = keyOf(y);
    // Not the version the source holds. Compared by value: a list of new objects each version (read again from
    // the store, a catalog made again) holds, for a name left unchanged, an equal set, not the one kept.
    const kept = setOf(src.byName, y.name, y.type);
    if (old.has(k) || kept === undefined || !equal(kept, y)) return null;
    old.set(k, y);
  }
  const changed: RecordSet[] = [];
  const newNames = new Set<string>();
  const seen = new Set<string>();
  let keepOrder = true;
  for (const x of came) {
    const k = keyOf(x);
    if (seen.has(k)) return null; // a second set of this name and type
    seen.add(k);
    const y = old.get(k);
    if (!y) {
      if (setOf(src.byName, x.name, x.type)) return null; // its name and type are also listed unchanged: a duplicate
      newNames.add(x.name);
      changed.push(x);
      continue;
    }
    // Moved: its name's sets may change order, so the name is done again even when the set is the same.
    const moved = inPlace.get(x) !== y;
    if (moved) keepOrder = false;
    if (moved || !equal(x, y)) changed.push(x);
  }
  const removed: Array<{ name: string; type: RecordType }> = [];
  for (const y of went) if (!seen.has(keyOf(y))) removed.push({ name: y.name, type: y.type });
  if (changed.length + removed.length > limit) return null;
  return { changed, removed, newNames, keepOrder };
};

/** How the updater signs: the opener of the sealed keys (the signer), and the zone's signature cache. */
export interface UpdateSigning {
  readonly openKey: ((sealed: string) => string) | null;
  readonly cache: SignatureCache;
}

/**
 * The next version of the zone, built from the last one (`src`), or null: compile it whole. On success
 * `src` describes the new version. Throws (SignaturesPending on a server that cannot sign) with `src`
 * possibly half changed: the caller forgets it.
 */
export const updateZone = (
  src: ZoneSource,
  zone: Zone,
  skip: (reason: string, set: RecordSet) => void,
  signing: UpdateSigning | null,
): CompiledZone | null => {
  const prev = src.compiled;
  const apex = prev.apex;
  if ((zone.signing ? JSON.stringify(zone.signing) : null) !== src.signingKey) return null;
  if (zone.signing && !signing) return null;

  // 1. What changed, by comparison with the sets compiled last, side by side with the last list (the store's
  // next version shares its untouched sets and keeps their order).
  const limit = Math.min(MAX_CHANGES, Math.max(MIN_LIMIT, Math.floor(src.size / 100)));
  const found = listDiff(src, zone.recordSets, limit);
  if (!found) return null;
  const { changed, removed, newNames } = found;
  let keepOrder = found.keepOrder;

  // 2. The changes by name: the new encoded set, or null (removed, or not servable).
  const byName = new Map<string, Map<RecordType, { rs: RecordSet | null; enc: EncodedRecordSet | null }>>();
  const at = (name: string): Map<RecordType, { rs: RecordSet | null; enc: EncodedRecordSet | null }> => {
    let m = byName.get(name);
    if (!m) byName.set(name, (m = new Map()));
    return m;
  };
  for (const rs of changed) {
    const m = at(rs.name);
    if (m.has(rs.type)) return null; // a second new set of this name and type
    let enc: EncodedRecordSet | null = null;
    try {
      enc = encodeRecordSet(rs, apex);
    } catch (e) {
      skip(e instanceof Error ? e.message : String(e), rs);
    }
    if (enc && enc.name !== rs.name) return null; // not in normal form: the whole compile sorts it out
    m.set(rs.type, { rs, enc });
  }
  for (const r of removed) at(r.name).set(r.type, { rs: null, enc: null });
  for (const name of byName.keys()) if (!inZone(name, apex)) return null;

  let soa = prev.soa;
  let negativeSoa = prev.negativeSoa;
  let serial = prev.serial;
  let expire = prev.expire;
  const soaChange = byName.get(apex)?.get('SOA');
  if (soaChange) {
    if (!soaChange.enc?.soa) return null; // no SOA: the whole compile refuses the zone
    soa = soaChange.enc.set;
    negativeSoa = soaChange.enc.soa.negative;
    serial = soaChange.enc.soa.serial;
    expire = soaChange.enc.soa.expire;
  }

  // 3. The names: copies of those touched, in an overlay over the last version's map.
  const base = prev.nodes;
  // An overlay that has grown is made into a map of its own again: compact, as a whole compile makes it, when unsigned.
  const flatten = (): Map<string, ZoneNode> | OverlayMap<string, ZoneNode> => {
    if (zone.signing) return new Map(base);
    const flat = compactNodes(base, apex);
    return flat instanceof CompactNodes ? new OverlayMap(flat) : flat;
  };
  const nodes: Map<string, ZoneNode> | OverlayMap<string, ZoneNode> =
    base instanceof OverlayMap ? (base.changed > Math.max(256, base.size >> 3) ? flatten() : base.clone()) : new OverlayMap(base);
  const owned = new Map<string, ZoneNode>();
  const touched = new Set<string>();
  const own = (name: string): ZoneNode => {
    let n = owned.get(name);
    if (n) return n;
    const old = nodes.get(name);
    n = old ? copyNode(old) : { name, wire: nameWire(name), sets: new Map(), order: [], cut: false, glue: [] };
    nodes.set(name, n);
    owned.set(name, n);
    touched.add(name);
    return n;
  };
  const childDelta = new Map<string, number>();
  const children = (name: string): number => (src.children.get(name) ?? 0) + (childDelta.get(name) ?? 0);
  const bump = (name: string, by: number): void => void childDelta.set(name, (childDelta.get(name) ?? 0) + by);

  const oldSets = new Map<string, ReadonlyMap<number, EncodedSet>>();
  const nexts = new Map<string, Map<number, EncodedSet>>();
  const gone: string[] = [];
  for (const [name, changes] of byName) {
    const old = base.get(name);
    const data = new Map<number, EncodedSet>();
    if (old) for (const s of old.order) if (isData(s.type)) data.set(s.type, s);
    oldSets.set(name, data);
    const next = new Map(data);
    for (const [type, c] of changes) {
      const code = RECORD_TYPE_CODES[type] as number | undefined;
      if (code === undefined) continue; // not a type we serve: never compiled
      if (c.enc) next.set(code, c.enc.set);
      else next.delete(code);
    }
    if (name !== apex && (old?.cut ?? false) !== next.has(T.NS)) return null; // a cut comes or goes
    if (next.size === 0) {
      if (old && old.order.length > 0) gone.push(name);
      continue;
    }
    nexts.set(name, next);
    // A new set beside others: where it goes among them is where the zone lists it.
    if (next.size > 1 && newNames.has(name)) keepOrder = false;
  }

  // The order of each touched name's sets, as the zone lists them (a whole compile keeps it: ANY answers the first).
  let order: Map<string, RecordType[]> | null = null;
  if (!keepOrder) {
    order = new Map();
    for (const name of nexts.keys()) order.set(name, []);
    for (const rs of zone.recordSets) order.get(rs.name)?.push(rs.type);
  }

  for (const [name, next] of nexts) {
    const old = base.get(name);
    const n = own(name);
    n.sets.clear();
    const list: EncodedSet[] = [];
    const placed = new Set<number>();
    const place = (set: EncodedSet | undefined): void => {
      if (!set || placed.has(set.type)) return;
      list.push(set);
      placed.add(set.type);
    };
    if (order) for (const type of order.get(name)!) place(next.get((RECORD_TYPE_CODES[type] as number | undefined) ?? -1));
    else {
      // Replaced sets keep their place, removed ones leave it, and a name's only set is alone.
      for (const s of oldSets.get(name)!.values()) place(next.get(s.type));
      for (const s of next.values()) place(s);
    }
    if (placed.size !== next.size) return null; // a set the zone does not list: not expected
    if (name === apex && old)
      for (const s of old.order) if (s.type === RR.DNSKEY || s.type === RR.CDS || s.type === RR.CDNSKEY) list.push(s);
    (n.order as EncodedSet[]).length = 0;
    for (const s of list) {
      n.sets.set(s.type, s);
      (n.order as EncodedSet[]).push(s);
    }
    delete n.sigs;
    if (!old) {
      // A new name: the empty non-terminals between it and the apex (RFC 4592 §2.2.2).
      for (let c = name; c !== apex;) {
        const p = parentOf(c);
        bump(p, 1);
        if (nodes.has(p)) break;
        own(p);
        c = p;
      }
    }
  }
  // Names left without sets: an empty non-terminal while a name lies below, else gone (and so may be the ENTs above).
  gone.sort((a, b) => b.split('.').length - a.split('.').length);
  for (const name of gone) {
    if (children(name) > 0) {
      const n = own(name);
      n.sets.clear();
      (n.order as EncodedSet[]).length = 0;
      delete n.sigs;
      continue;
    }
    for (let c = name; c !== apex;) {
      if (!nodes.has(c)) break;
      nodes.delete(c);
      owned.delete(c);
      touched.add(c);
      const p = parentOf(c);
      bump(p, -1);
      if (p === apex || children(p) > 0 || dataCount(nodes.get(p)) > 0) break;
      c = p;
    }
  }

  // 4. Glue and additional data that name a touched name, and those of touched NS, MX and SRV sets.
  const baseAdditional = prev.additional;
  const additional: Map<EncodedSet, readonly Part[]> | OverlayMap<EncodedSet, readonly Part[]> =
    baseAdditional instanceof OverlayMap
      ? baseAdditional.changed > Math.max(256, baseAdditional.size >> 3)
        ? new Map(baseAdditional)
        : baseAdditional.clone()
      : new OverlayMap(baseAdditional);
  const referrers: Array<readonly [string, EncodedSet]> = [];
  const redo = new Map<string, Set<number>>();
  const again = (owner: string, type: number): void => {
    let s = redo.get(owner);
    if (!s) redo.set(owner, (s = new Set()));
    s.add(type);
  };
  for (const name of byName.keys()) {
    const before = oldSets.get(name)!;
    const now = nodes.get(name);
    for (const s of before.values()) if (now?.sets.get(s.type) !== s) additional.delete(s);
    for (const type of [T.NS, T.MX, T.SRV]) {
      const s = now?.sets.get(type);
      if (s && before.get(type) !== s) {
        again(name, type);
        referrers.push([name, s]);
      }
    }
    if (before.get(T.A) !== now?.sets.get(T.A) || before.get(T.AAAA) !== now?.sets.get(T.AAAA)) {
      for (const [owner, type] of src.referrers.get(name) ?? []) again(owner, type);
    }
  }
  for (const [owner, types] of redo) {
    const n = nodes.get(owner);
    if (!n) continue;
    for (const type of types) {
      const set = n.sets.get(type);
      if (!set) continue;
      const parts: Part[] | null = additionalParts(set, nodes, apex);
      if (parts) additional.set(set, parts);
      else additional.delete(set);
      if (type === T.NS && n.cut) own(owner).glue = cutGlue(nodes.get(owner)!, nodes, apex);
    }
  }

  // 5. Signed: the chain where names came or went, the NSEC of touched names and their neighbours, their RRSIGs.
  let dnssec: CompiledZone['dnssec'] = null;
  const apexNode = (): ZoneNode => nodes.get(apex)!;
  if (zone.signing && prev.dnssec && signing) {
    const labels = prev.dnssec.chain.labels.slice();
    const members = prev.dnssec.chain.nodes.slice();
    const below = (name: string): boolean => {
      for (let n = name; n !== apex;) {
        n = parentOf(n);
        if (n !== apex && nodes.get(n)?.cut) return true;
      }
      return false;
    };
    const dirty = new Set<string>();
    for (const name of touched) {
      const n = nodes.get(name);
      const member = n !== undefined && dataCount(n) > 0 && !below(name);
      const key = canonicalLabels(name);
      const i = search(labels, key);
      if (member && i < 0) {
        labels.splice(-i - 1, 0, key);
        members.splice(-i - 1, 0, n);
      } else if (!member && i >= 0) {
        labels.splice(i, 1);
        members.splice(i, 1);
      }
      if (member) dirty.add(name);
      else if (n && owned.has(name)) strip(own(name));
      // The name before it in the chain points at it (or past it, when it went).
      const j = search(labels, key);
      const before = j >= 0 ? j - 1 : -j - 2;
      dirty.add(members[(before + members.length) % members.length]!.name);
    }
    if (!dirty.has(apex)) dirty.add(apex); // the SOA changed
    const keys = signing.openKey ? zone.signing.keys.filter((k) => k.signing).map((k) => openKey(k, signing.openKey!)) : [];
    const signers = zone.signing.keys.filter((k) => k.signing);
    const signer: NodeSigner = {
      apex,
      apexWire: nodes.get(apex)!.wire,
      keys,
      tags: signers.map((k) => k.tag),
      algorithms: signers.map((k) => k.algorithm),
      signing: zone.signing,
      cache: signing.cache,
    };
    const sigKeys = new Set<string>();
    const keysOf = (n: ZoneNode | undefined): void => {
      if (n?.sigs) for (const type of n.sigs.keys()) sigKeys.add(`${n.name}/${type}`);
    };
    for (const name of touched) keysOf(base.get(name));
    for (const name of dirty) keysOf(base.get(name));
    const nsecTtl = negativeSoa.ttl;
    signing.cache.beginPartial();
    try {
      for (const name of dirty) {
        const i = search(labels, canonicalLabels(name));
        if (i < 0) continue; // left the chain after it was marked
        const n = own(name);
        strip(n);
        members[i] = n;
        const nsec = nsecOf(n, members[(i + 1) % members.length]!, nsecTtl);
        n.sets.set(nsec.type, nsec);
        (n.order as EncodedSet[]).push(nsec);
        signNode(n, signer);
        keysOf(n);
      }
      signing.cache.commitPartial(sigKeys, signer.tags);
    } catch (err) {
      signing.cache.abort();
      throw err;
    }
    // Copies made for glue alone keep their NSEC and signatures; the chain holds the copies.
    for (const [name, n] of owned) {
      const i = search(labels, canonicalLabels(name));
      if (i >= 0) members[i] = n;
    }
    const soaSigs = apexNode().sigs!.get(T.SOA)!;
    dnssec = {
      chain: { labels, nodes: members },
      negativeSoaSig: encodedSet(
        RR.RRSIG,
        negativeSoa.ttl,
        soaSigs.tails.map((t) => withTtl(t, negativeSoa.ttl)),
      ),
    };
  } else if (zone.signing || prev.dnssec) return null;

  let recordCount = prev.recordCount;
  for (const name of touched) recordCount += tailCount(nodes.get(name)) - tailCount(base.get(name));

  const compiled: CompiledZone = {
    apex,
    labels: prev.labels,
    serial,
    nodes,
    apexNode: apexNode(),
    soa,
    negativeSoa,
    recordCount,
    expire,
    additional,
    dnssec,
  };

  // 6. The source now describes the new version.
  src.list = zone.recordSets;
  for (const [name, changes] of byName) {
    for (const [type, c] of changes) {
      if (c.rs) {
        if (putSet(src.byName, c.rs, false)) src.size++;
        else putSet(src.byName, c.rs, true);
      } else if (dropSet(src.byName, name, type)) src.size--;
    }
  }
  for (const [name, by] of childDelta) {
    const c = (src.children.get(name) ?? 0) + by;
    if (c === 0) src.children.delete(name);
    else src.children.set(name, c);
  }
  for (const [owner, set] of referrers) addReferrers(src.referrers, owner, set, apex);
  src.compiled = compiled;
  changedNames.set(compiled, { from: prev, names: touched });
  return compiled;
};
