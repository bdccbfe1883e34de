import type { RecordType } from '../zone/record-set.js';
import { isAtOrBelow, parentName } from '../zone/names.js';
import type { ZoneView } from './rule.js';

/** Names below the apex that own NS records: delegation points (zone cuts, RFC 1034 §4.2.1). */
export const delegationPoints = (zone: ZoneView): Set<string> => {
  const cuts = new Set<string>();
  for (const { name } of zone.ofType('NS')) if (name !== zone.origin) cuts.add(name);
  return cuts;
};

/** `name` is a delegation point: below the apex, with NS records. */
export const isCut = (zone: ZoneView, name: string): boolean => name !== zone.origin && (zone.names.get(name)?.has('NS') ?? false);

/** `name` owns a set of `type`. */
export const owns = (zone: ZoneView, name: string, type: RecordType): boolean => zone.names.get(name)?.has(type) ?? false;

/** Names that own a given type (e.g. DNAME). */
export const ownersOf = (zone: ZoneView, type: RecordType): Set<string> => {
  const out = new Set<string>();
  for (const { name } of zone.ofType(type)) out.add(name);
  return out;
};

/** The nearest strict ancestor of `name` below the apex for which `test` holds, or null. O(depth). */
export const ancestorWhere = (name: string, origin: string, test: (ancestor: string) => boolean): string | null => {
  let at = parentName(name);
  while (at !== null && at !== origin && isAtOrBelow(at, origin)) {
    if (test(at)) return at;
    at = parentName(at);
  }
  return null;
};

/** The nearest strict ancestor of `name` (below the apex) that is in `points`, or null. O(depth). */
export const ancestorIn = (name: string, points: ReadonlySet<string>, origin: string): string | null =>
  points.size === 0 ? null : ancestorWhere(name, origin, (at) => points.has(at));

/** Every NS target in the zone (glue candidates). */
export const nsTargets = (zone: ZoneView): Set<string> => {
  const out = new Set<string>();
  for (const ns of zone.ofType('NS')) for (const t of zone.targets(ns)) out.add(t);
  return out;
};
