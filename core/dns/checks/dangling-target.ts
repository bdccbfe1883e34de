import type { CheckResult } from '../plan.js';
import type { RecordType } from '../record-set.js';
import { isAtOrBelow, parentName } from '../names.js';
import type { Rule, ZoneView } from './rule.js';
import { result } from './rule.js';
import { ancestorIn, delegationPoints, ownersOf } from './delegations.js';

const TYPES: readonly RecordType[] = ['CNAME', 'MX', 'SRV'];

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

/**
 * Warning: a CNAME, MX or SRV target inside the zone that has nothing to answer with — no records at all
 * for a CNAME, no A/AAAA for the others (RFC 1034 §3.6.2; RFC 2181 §10.3; RFC 1912 §2.4). Targets below a
 * delegation or a DNAME live elsewhere and are skipped; NS targets in the zone are `glue-present`'s (an error).
 */
export const danglingTarget: Rule = {
  id: 'dangling-target',
  severity: 'warning',
  rfc: 'RFC 1034 §3.6.2; RFC 2181 §10.3',
  scope: 'zone',
  check(zone) {
    const out: CheckResult[] = [];
    const cuts = delegationPoints(zone);
    const dnames = ownersOf(zone, 'DNAME');
    const hasAddress = (types: ReadonlyMap<RecordType, unknown>) => types.has('A') || types.has('AAAA') || types.has('CNAME');
    for (const type of TYPES) {
      for (const set of zone.ofType(type)) {
        const name = set.name;
        for (const t of zone.targets(set)) {
          if (!isAtOrBelow(t, zone.origin)) continue;
          if (cuts.has(t) || ancestorIn(t, cuts, zone.origin) !== null || dnames.has(t) || ancestorIn(t, dnames, zone.origin) !== null) continue;
          const at = zone.names.get(t);
          const ok = type === 'CNAME' ? at !== undefined || wildcardCovers(zone, t, () => true) : at ? hasAddress(at) : wildcardCovers(zone, t, hasAddress);
          if (ok) continue;
          out.push(
            type === 'CNAME'
              ? result(this, name, type, `The CNAME target ${t} is inside the zone but has no records.`, `Ціль CNAME ${t} лежить у зоні, але не має жодних записів.`)
              : result(
                  this,
                  name,
                  type,
                  `The ${type} target ${t} is inside the zone but has no A or AAAA record.`,
                  `Ціль ${type} ${t} лежить у зоні, але не має запису A чи AAAA.`,
                ),
          );
        }
      }
    }
    return out;
  },
};
