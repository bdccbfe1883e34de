import type { CheckResult } from '../plans/plan.js';
import type { RecordType } from '../zone/record-set.js';
import type { Rule, ZoneView } from './rule.js';
import { result } from './rule.js';
import { ancestorWhere, ownersOf } from './delegations.js';

const meta = { id: 'below-dname', severity: 'error' } as const;

/** The results at one name; `above` finds the DNAME it is below (or null). */
const checkName = (
  name: string,
  types: ReadonlyMap<RecordType, unknown>,
  above: (name: string) => string | null,
  out: CheckResult[],
): void => {
  const d = above(name);
  if (d === null) return;
  for (const type of types.keys()) {
    out.push(
      result(
        meta,
        name,
        type,
        `${name} is below the DNAME at ${d}; nothing may exist below a DNAME.`,
        `${name} лежить під DNAME на ${d}; під DNAME не може бути жодних записів.`,
      ),
    );
  }
};

/** The DNAME above `name`: the apex's, or the nearest one between. */
const dnameAbove =
  (zone: ZoneView, apexDname: boolean, isDname: (name: string) => boolean) =>
  (name: string): string | null =>
    apexDname && name !== zone.origin ? zone.origin : ancestorWhere(name, zone.origin, isDname);

/** Nothing below a DNAME: it redirects the whole subtree, so names below it cannot hold data (RFC 6672 §2.4). */
export const belowDname: Rule = {
  ...meta,
  rfc: 'RFC 6672 §2.4',
  scope: 'zone',
  check(zone) {
    const dnames = ownersOf(zone, 'DNAME');
    dnames.delete(zone.origin);
    const apexDname = zone.names.get(zone.origin)?.has('DNAME') ?? false;
    if (dnames.size === 0 && !apexDname) return [];
    const above = dnameAbove(zone, apexDname, (n) => dnames.has(n));
    const out: CheckResult[] = [];
    for (const [name, types] of zone.names) checkName(name, types, above, out);
    return out;
  },
  checkNames(zone, names) {
    const apexDname = zone.names.get(zone.origin)?.has('DNAME') ?? false;
    const above = dnameAbove(zone, apexDname, (n) => zone.names.get(n)?.has('DNAME') ?? false);
    const out: CheckResult[] = [];
    for (const name of names) {
      const types = zone.names.get(name);
      if (types) checkName(name, types, above, out);
    }
    return out;
  },
  // A result depends on the name's records and on DNAME at its ancestors (the apex's reaches every name).
  affected(delta) {
    const out: string[] = [];
    for (const name of delta.namesChanging('DNAME')) {
      if (name === delta.origin) return 'all';
      for (const n of delta.namesAtOrBelow(name)) out.push(n);
    }
    return out;
  },
};
