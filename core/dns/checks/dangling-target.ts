import type { CheckResult } from '../plans/plan.js';
import type { RecordSet, RecordType } from '../zone/record-set.js';
import { isAtOrBelow, parentName } from '../zone/names.js';
import type { Rule, ZoneView } from './rule.js';
import { result } from './rule.js';
import { ancestorIn, ancestorWhere, delegationPoints, isCut, owns, ownersOf } from './delegations.js';

const TYPES: readonly RecordType[] = ['CNAME', 'MX', 'SRV'];

const meta = { id: 'dangling-target', severity: 'warning' } as const;

/** Some wildcard `*.<ancestor>` in the zone covers the name (RFC 4592 §3.3.1, simplified to "exists"). */
const wildcardCovers = (zone: ZoneView, name: string, wanted: (types: ReadonlyMap<RecordType, unknown>) => boolean): boolean => {
  let at = parentName(name);
  while (at !== null && isAtOrBelow(at, zone.origin)) {
    const w = zone.names.get(`*.${at}`);
    if (w) return wanted(w);
    at = at === zone.origin ? null : parentName(at);
  }
  return false;
};

const hasAddress = (types: ReadonlyMap<RecordType, unknown>) => types.has('A') || types.has('AAAA') || types.has('CNAME');

/** `elsewhere(t)`: the target is at or below a delegation or a DNAME, so its data lives elsewhere. */
const checkSet = (zone: ZoneView, set: RecordSet, elsewhere: (t: string) => boolean, out: CheckResult[]): void => {
  const { name, type } = set;
  for (const t of zone.targets(set)) {
    if (!isAtOrBelow(t, zone.origin) || elsewhere(t)) continue;
    const at = zone.names.get(t);
    const ok =
      type === 'CNAME'
        ? at !== undefined || wildcardCovers(zone, t, () => true)
        : at
          ? hasAddress(at)
          : wildcardCovers(zone, t, hasAddress);
    if (ok) continue;
    out.push(
      type === 'CNAME'
        ? result(
            meta,
            name,
            type,
            `The CNAME target ${t} is inside the zone but has no records.`,
            `Ціль CNAME ${t} лежить у зоні, але не має жодних записів.`,
          )
        : result(
            meta,
            name,
            type,
            `The ${type} target ${t} is inside the zone but has no A or AAAA record.`,
            `Ціль ${type} ${t} лежить у зоні, але не має запису A чи AAAA.`,
          ),
    );
  }
};

/**
 * Warning: a CNAME, MX or SRV target inside the zone that has nothing to answer with — no records at all
 * for a CNAME, no A/AAAA for the others (RFC 1034 §3.6.2; RFC 2181 §10.3; RFC 1912 §2.4). Targets below a
 * delegation or a DNAME live elsewhere and are skipped; NS targets in the zone are `glue-present`'s (an error).
 */
export const danglingTarget: Rule = {
  ...meta,
  rfc: 'RFC 1034 §3.6.2; RFC 2181 §10.3',
  scope: 'zone',
  check(zone) {
    const out: CheckResult[] = [];
    // Every delegation point and DNAME, once (most zones have none: then nothing is walked).
    const cuts = delegationPoints(zone);
    const dnames = ownersOf(zone, 'DNAME');
    const elsewhere = (t: string) =>
      cuts.has(t) || ancestorIn(t, cuts, zone.origin) !== null || dnames.has(t) || ancestorIn(t, dnames, zone.origin) !== null;
    for (const type of TYPES) for (const set of zone.ofType(type)) checkSet(zone, set, elsewhere, out);
    return out;
  },
  checkNames(zone, names) {
    const out: CheckResult[] = [];
    // The same test by lookups: no walk over the zone.
    const cut = (at: string) => isCut(zone, at);
    const dname = (at: string) => owns(zone, at, 'DNAME');
    const elsewhere = (t: string) =>
      cut(t) || ancestorWhere(t, zone.origin, cut) !== null || dname(t) || ancestorWhere(t, zone.origin, dname) !== null;
    for (const type of TYPES) {
      for (const name of names) {
        const set = zone.get(name, type);
        if (set) checkSet(zone, set, elsewhere, out);
      }
    }
    return out;
  },
  // A result depends on the owner's set and, for each target: the target's records, NS and DNAME at the
  // target and its ancestors, and the wildcards above it. One appears elsewhere only at what points at a
  // name left without A, AAAA and CNAME (a target that keeps one of them answers), or at or below a changed
  // delegation, DNAME or wildcard.
  affected(delta) {
    const out = delta.referrers(delta.changedWithout('A', 'AAAA', 'CNAME'));
    const add = (names: Iterable<string>) => {
      for (const n of names) out.add(n);
    };
    for (const name of delta.changedNames) {
      const types = delta.changedTypes(name);
      if ((types.has('NS') && name !== delta.origin) || types.has('DNAME')) add(delta.referrersAtOrBelow(name));
      if (name.startsWith('*.')) add(delta.referrersAtOrBelow(name.slice(2)));
    }
    return out;
  },
};
