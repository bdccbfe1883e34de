import type { CheckResult } from '../plan.js';
import type { Rule } from './rule.js';
import { result } from './rule.js';
import { ancestorIn, ownersOf } from './delegations.js';

/** Nothing below a DNAME: it redirects the whole subtree, so names below it cannot hold data (RFC 6672 §2.4). */
export const belowDname: Rule = {
  id: 'below-dname',
  severity: 'error',
  rfc: 'RFC 6672 §2.4',
  scope: 'zone',
  check(zone) {
    const dnames = ownersOf(zone, 'DNAME');
    dnames.delete(zone.origin);
    const apexDname = zone.names.get(zone.origin)?.has('DNAME') ?? false;
    if (dnames.size === 0 && !apexDname) return [];
    const out: CheckResult[] = [];
    for (const [name, types] of zone.names) {
      const d = apexDname && name !== zone.origin ? zone.origin : ancestorIn(name, dnames, zone.origin);
      if (d === null) continue;
      for (const type of types.keys()) {
        out.push(
          result(
            this,
            name,
            type,
            `${name} is below the DNAME at ${d}; nothing may exist below a DNAME.`,
            `${name} лежить під DNAME на ${d}; під DNAME не може бути жодних записів.`,
          ),
        );
      }
    }
    return out;
  },
};
