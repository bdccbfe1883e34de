import type { CheckResult } from '../plan.js';
import type { Rule } from './rule.js';
import { result } from './rule.js';

/** Exactly one SOA, at the apex, and nowhere else (RFC 1034 §4.2.1, §4.3.5; RFC 1035 §5.2). */
export const soaApex: Rule = {
  id: 'soa-apex',
  severity: 'error',
  rfc: 'RFC 1034 §4.2.1; RFC 1035 §5.2',
  scope: 'zone',
  check(zone) {
    const out: CheckResult[] = [];
    const apex = zone.get(zone.origin, 'SOA');
    if (!apex || apex.values.length !== 1) {
      out.push(
        result(
          this,
          zone.origin,
          'SOA',
          `The zone apex must have exactly one SOA record; it has ${apex?.values.length ?? 0}.`,
          `Вершина зони повинна мати рівно один запис SOA; зараз їх ${apex?.values.length ?? 0}.`,
        ),
      );
    }
    for (const { name } of zone.ofType('SOA')) {
      if (name !== zone.origin) {
        out.push(
          result(
            this,
            name,
            'SOA',
            `An SOA record belongs only at the zone apex (${zone.origin}), not at ${name}.`,
            `Запис SOA може бути лише на вершині зони (${zone.origin}), а не на ${name}.`,
          ),
        );
      }
    }
    return out;
  },
};
