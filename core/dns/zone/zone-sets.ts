import { OverlayMap } from './names-overlay.js';
import type { RecordSet, RecordType } from './record-set.js';

/** A zone's names → types → record sets. */
export type NameIndex = ReadonlyMap<string, ReadonlyMap<RecordType, RecordSet>>;

/** Past this many changed names since the last flat index (and past 1/8 of the zone), the next version is flattened. */
const MIN_OVERLAY = 256;

/** The names → types → sets map of a list of record sets. */
export const indexSets = (sets: Iterable<RecordSet>): Map<string, Map<RecordType, RecordSet>> => {
  const names = new Map<string, Map<RecordType, RecordSet>>();
  // Stored zones come ordered by name: the sets of one name follow each other, one lookup serves them all.
  let lastName: string | null = null;
  let last: Map<RecordType, RecordSet> | undefined;
  for (const s of sets) {
    let types = s.name === lastName ? last : names.get(s.name);
    if (!types) names.set(s.name, (types = new Map()));
    types.set(s.type, s);
    lastName = s.name;
    last = types;
  }
  return names;
};

/**
 * A zone's record sets at one version, indexed once by name and type: what a plan is built and checked on.
 * Immutable. The next version after a commit (`with`) shares every untouched set and name with this one —
 * an overlay over a flat index, so a one-change commit to a zone of 100k sets costs as much as the change;
 * the overlay is flattened once it holds more than an eighth of the zone's names.
 *
 * Iteration order is the index's: a stored zone read from the store comes ordered by name and type, and
 * changed names keep their place (a new name goes to the end), exactly as in the plan builder's view of
 * the zone after a plan.
 */
export class ZoneSets {
  private list: readonly RecordSet[] | null;

  private constructor(
    readonly names: NameIndex,
    /** The number of record sets. */
    readonly size: number,
    list: readonly RecordSet[] | null,
  ) {
    this.list = list;
  }

  /** The sets of a zone as listed (ordered by name, then type, as the store gives them); the list is kept, not copied. */
  static of(sets: readonly RecordSet[]): ZoneSets {
    return new ZoneSets(indexSets(sets), sets.length, sets);
  }

  get(name: string, type: RecordType): RecordSet | undefined {
    return this.names.get(name)?.get(type);
  }

  forEach(visit: (set: RecordSet) => void): void {
    if (this.list) {
      for (const s of this.list) visit(s);
      return;
    }
    for (const types of this.names.values()) for (const s of types.values()) visit(s);
  }

  /** Every set, in index order (listed once, on first use). */
  toArray(): readonly RecordSet[] {
    if (this.list === null) {
      const out: RecordSet[] = [];
      this.forEach((s) => out.push(s));
      this.list = out;
    }
    return this.list;
  }

  /**
   * The next version: `deletes` removed, then `upserts` set (created or replaced). Costs as much as the change
   * (plus, now and then, one flattening of the index).
   */
  with(upserts: readonly RecordSet[], deletes: ReadonlyArray<{ name: string; type: RecordType }>): ZoneSets {
    const base = this.names;
    const names =
      base instanceof OverlayMap && base.changed > Math.max(MIN_OVERLAY, base.size >> 3)
        ? new Map(base)
        : base instanceof OverlayMap
          ? base.clone()
          : new OverlayMap(base);
    let size = this.size;
    for (const d of deletes) {
      const types = names.get(d.name);
      if (!types?.has(d.type)) continue;
      const copy = new Map(types);
      copy.delete(d.type);
      size--;
      if (copy.size === 0) names.delete(d.name);
      else names.set(d.name, copy);
    }
    for (const s of upserts) {
      const types = names.get(s.name);
      const copy = new Map(types ?? []);
      if (!copy.has(s.type)) size++;
      copy.set(s.type, s);
      names.set(s.name, copy);
    }
    return new ZoneSets(names, size, null);
  }
}

/** Up to this many sets replaced, each is found by a scan for its object (cheaper than a lookup per set of the list). */
const FEW = 16;

/**
 * A zone's list of record sets after committed changes, each the sets it wrote and the names and types it
 * removed, in commit order: every untouched set is the same object at the same place, a replaced set takes its
 * predecessor's place, and a new name and type goes to the end (the order a DNS server's incremental build
 * reads a small change from: adapters/dns/embedded/incremental.ts). `find`, the list's set of a name and type
 * when the caller holds an index of it, finds the sets replaced without a key looked up for each set of the
 * list (at 100,000 sets, hashing every name costs tens of milliseconds; comparing objects, one). Null when
 * `find` names a set the list does not hold (an index of another version): the caller reads the zone whole.
 */
export const afterChanges = (
  list: readonly RecordSet[],
  changes: ReadonlyArray<{
    readonly upserts: readonly RecordSet[];
    readonly deletes: ReadonlyArray<{ readonly name: string; readonly type: RecordType }>;
  }>,
  find?: (name: string, type: RecordType) => RecordSet | undefined,
): RecordSet[] | null => {
  // name → type → the set it ends as, or null: removed.
  const last = new Map<string, Map<RecordType, RecordSet | null>>();
  const at = (name: string): Map<RecordType, RecordSet | null> => {
    let types = last.get(name);
    if (!types) last.set(name, (types = new Map()));
    return types;
  };
  for (const c of changes) {
    for (const d of c.deletes) at(d.name).set(d.type, null);
    for (const s of c.upserts) at(s.name).set(s.type, s);
  }
  let names: NameIndex | null = null;
  const old = find ?? ((name: string, type: RecordType) => (names ??= indexSets(list)).get(name)?.get(type));
  // The sets of the list replaced (by their successor) or removed (null), and the new ones.
  const replaced = new Map<RecordSet, RecordSet | null>();
  const added: RecordSet[] = [];
  for (const [name, types] of last)
    for (const [type, next] of types) {
      const was = old(name, type);
      if (was) replaced.set(was, next);
      else if (next) added.push(next);
    }
  // A copy of the list with the new sets at its end, changed in place: one allocation of the final size (a
  // list grown set by set, or copied twice, costs more than the rest at 100,000 sets).
  const out: Array<RecordSet | null> = (list as Array<RecordSet | null>).concat(added);
  let removed = false;
  if (replaced.size <= FEW) {
    for (const [old, next] of replaced) {
      const i = out.indexOf(old);
      if (i < 0 || i >= list.length) return null; // `find` answered for another list
      out[i] = next;
      if (!next) removed = true;
    }
  } else {
    let found = 0;
    for (let i = 0; i < list.length; i++) {
      const next = replaced.get(out[i]!);
      if (next === undefined) continue;
      found++;
      out[i] = next;
      if (!next) removed = true;
    }
    if (found !== replaced.size) return null;
  }
  if (removed) {
    let w = 0;
    for (let i = 0; i < out.length; i++) if (out[i]) out[w++] = out[i]!;
    out.length = w;
  }
  return out as RecordSet[];
};
