import type { CheckResult } from '../plans/plan.js';
import type { RecordType } from '../zone/record-set.js';
import type { Rule, ZoneView } from './rule.js';
import { result } from './rule.js';
import { ancestorWhere, delegationPoints, isCut, nsTargets } from './delegations.js';

const meta = { id: 'delegation-only-glue', severity: 'error' } as const;

/** The results at one name: `cut` says whether a name is a delegation point, `isGlue` whether some NS set points at it. */
const checkName = (
  zone: ZoneView,
  name: string,
  types: ReadonlyMap<RecordType, unknown>,
  cut: (name: string) => boolean,
  isGlue: (name: string) => boolean,
  out: CheckResult[],
): void => {
  if (cut(name)) {
    for (const type of types.keys()) {
      if (type === 'NS') continue;
      out.push(
        result(
          meta,
          name,
          type,
          `${name} is delegated (it has NS records), so its ${type} records would be hidden by the delegation; keep them in the child zone.`,
          `${name} делеговано (має записи NS), тож його записи ${type} затінить делегування; тримайте їх у дочірній зоні.`,
        ),
      );
    }
  }
  const above = ancestorWhere(name, zone.origin, cut);
  if (above === null) return;
  const glue = isGlue(name);
  for (const type of types.keys()) {
    if (glue && (type === 'A' || type === 'AAAA')) continue;
    out.push(
      result(
        meta,
        name,
        type,
        `${name} is below the delegation ${above}; only glue (A/AAAA of its nameservers) may be there, not ${type}.`,
        `${name} лежить під делегуванням ${above}; там допустимі лише glue-записи (A/AAAA його серверів імен), а не ${type}.`,
      ),
    );
  }
};

/**
 * Nothing but glue below a delegation, and nothing but NS at the delegation point itself: that data
 * belongs to the child zone and the parent is not authoritative for it (RFC 1034 §4.2.1; RFC 2181 §6).
 * Glue is A/AAAA at a name that some NS set in the zone points at.
 */
export const delegationOnlyGlue: Rule = {
  ...meta,
  rfc: 'RFC 1034 §4.2.1; RFC 2181 §6',
  scope: 'zone',
  check(zone) {
    const cuts = delegationPoints(zone);
    if (cuts.size === 0) return [];
    const glue = nsTargets(zone);
    const out: CheckResult[] = [];
    for (const [name, types] of zone.names)
      checkName(
        zone,
        name,
        types,
        (n) => cuts.has(n),
        (n) => glue.has(n),
        out,
      );
    return out;
  },
  checkNames(zone, names) {
    const out: CheckResult[] = [];
    const cut = (n: string) => isCut(zone, n);
    const isGlue = (n: string) => zone.pointingAt(n, 'NS').length > 0;
    for (const name of names) {
      const types = zone.names.get(name);
      if (types) checkName(zone, name, types, cut, isGlue, out);
    }
    return out;
  },
  // A result depends on the name's records, NS at the name and its ancestors, and which NS sets point at it.
  affected(delta) {
    const out = new Set<string>();
    for (const name of delta.namesChanging('NS')) {
      if (name !== delta.origin) for (const n of delta.namesAtOrBelow(name)) out.add(n);
      for (const view of [delta.before, delta.after]) {
        const ns = view.get(name, 'NS');
        if (ns) for (const t of view.targets(ns)) out.add(t);
      }
    }
    return out;
  },
};
