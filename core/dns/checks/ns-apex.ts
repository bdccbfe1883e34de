import type { Rule } from './rule.js';
import { result } from './rule.js';

/** The apex has a non-empty NS set (RFC 1034 §4.2.1: the top node holds the zone's NS RRs). */
export const nsApex: Rule = {
  id: 'ns-apex',
  severity: 'error',
  rfc: 'RFC 1034 §4.2.1',
  scope: 'zone',
  check(zone) {
    const ns = zone.get(zone.origin, 'NS');
    if (ns && ns.values.length > 0) return [];
    return [
      result(
        this,
        zone.origin,
        'NS',
        'The zone apex must have a non-empty NS set.',
        'Вершина зони повинна мати непорожній набір записів NS.',
      ),
    ];
  },
  // Only the apex has a result, and the apex is always among `names`.
  checkNames(zone, names) {
    return names.has(zone.origin) ? this.check(zone) : [];
  },
  affected: () => [],
};
