import type { CheckResult } from '../plans/plan.js';
import type { Rule } from './rule.js';
import { result } from './rule.js';

/** A CNAME is alone at its name: no other data (RFC 1034 §3.6.2, RFC 2181 §10.1). */
export const cnameExclusive: Rule = {
  id: 'cname-exclusive',
  severity: 'error',
  rfc: 'RFC 1034 §3.6.2; RFC 2181 §10.1',
  scope: 'changed',
  check(zone) {
    const out: CheckResult[] = [];
    for (const name of zone.changedOwners) {
      const types = zone.names.get(name);
      if (!types || !types.has('CNAME') || types.size < 2) continue;
      const others = [...types.keys()].filter((t) => t !== 'CNAME').join(', ');
      out.push(
        result(
          this,
          name,
          'CNAME',
          `A CNAME must be alone at its name, but ${name} also has ${others}; remove one or the other.`,
          `CNAME має бути єдиним записом на своєму імені, але ${name} має також ${others}; приберіть одне чи інше.`,
        ),
      );
    }
    return out;
  },
};
