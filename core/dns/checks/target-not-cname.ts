import type { CheckResult } from '../plan.js';
import type { RecordType } from '../record-set.js';
import type { Rule } from './rule.js';
import { result } from './rule.js';

/** The NS/MX/SRV targets that are CNAMEs inside the zone (shared by the three per-type rules). */
export const targetNotCnameRule = (meta: { id: string; rfc: string }, type: RecordType): Rule => ({
  ...meta,
  severity: 'error',
  scope: 'zone',
  check(zone) {
    const out: CheckResult[] = [];
    for (const set of zone.ofType(type)) {
      const name = set.name;
      for (const t of zone.targets(set)) {
        if (zone.names.get(t)?.has('CNAME')) {
          out.push(
            result(
              this,
              name,
              type,
              `The ${type} target ${t} is a CNAME; ${type} must point at a host name with A/AAAA records, not an alias.`,
              `Ціль ${type} ${t} є CNAME; ${type} має вказувати на ім’я вузла із записами A/AAAA, а не на псевдонім.`,
            ),
          );
        }
      }
    }
    return out;
  },
});
