import type { CheckResult } from '../plans/plan.js';
import type { Rule } from './rule.js';
import { result } from './rule.js';

/** No CNAME at the apex: the apex holds SOA and NS, and a CNAME admits no other data (RFC 1034 §3.6.2, RFC 1912 §2.4). */
export const cnameAtApex: Rule = {
  id: 'cname-at-apex',
  severity: 'error',
  rfc: 'RFC 1034 §3.6.2; RFC 1912 §2.4',
  scope: 'changed',
  check(zone) {
    const out: CheckResult[] = [];
    for (const set of zone.changedSets) {
      if (set.type === 'CNAME' && set.name === zone.origin) {
        out.push(
          result(
            this,
            set.name,
            'CNAME',
            'The zone apex cannot have a CNAME: it holds the SOA and NS records. Use A/AAAA records there instead.',
            'Вершина зони не може мати CNAME: там містяться записи SOA і NS. Використовуйте натомість записи A/AAAA.',
          ),
        );
      }
    }
    return out;
  },
};
