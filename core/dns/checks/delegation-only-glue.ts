import type { CheckResult } from '../plan.js';
import type { Rule } from './rule.js';
import { result } from './rule.js';
import { ancestorIn, delegationPoints, nsTargets } from './delegations.js';

/**
 * Nothing but glue below a delegation, and nothing but NS at the delegation point itself: that data
 * belongs to the child zone and the parent is not authoritative for it (RFC 1034 §4.2.1; RFC 2181 §6).
 * Glue is A/AAAA at a name that some NS set in the zone points at.
 */
export const delegationOnlyGlue: Rule = {
  id: 'delegation-only-glue',
  severity: 'error',
  rfc: 'RFC 1034 §4.2.1; RFC 2181 §6',
  scope: 'zone',
  check(zone) {
    const cuts = delegationPoints(zone);
    if (cuts.size === 0) return [];
    const glue = nsTargets(zone);
    const out: CheckResult[] = [];
    for (const [name, types] of zone.names) {
      if (cuts.has(name)) {
        for (const type of types.keys()) {
          if (type === 'NS') continue;
          out.push(
            result(
              this,
              name,
              type,
              `${name} is delegated (it has NS records), so its ${type} records would be hidden by the delegation; keep them in the child zone.`,
              `${name} делеговано (має записи NS), тож його записи ${type} затінить делегування; тримайте їх у дочірній зоні.`,
            ),
          );
        }
      }
      const cut = ancestorIn(name, cuts, zone.origin);
      if (cut === null) continue;
      const isGlue = glue.has(name);
      for (const type of types.keys()) {
        if (isGlue && (type === 'A' || type === 'AAAA')) continue;
        out.push(
          result(
            this,
            name,
            type,
            `${name} is below the delegation ${cut}; only glue (A/AAAA of its nameservers) may be there, not ${type}.`,
            `${name} лежить під делегуванням ${cut}; там допустимі лише glue-записи (A/AAAA його серверів імен), а не ${type}.`,
          ),
        );
      }
    }
    return out;
  },
};
