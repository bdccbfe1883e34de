import type { CheckResult } from '../plans/plan.js';
import type { Rule } from './rule.js';
import { result } from './rule.js';

/** One CNAME per name: a CNAME set holds exactly one value (RFC 1034 §3.6.2, RFC 2181 §10.1). */
export const cnameSingle: Rule = {
  id: 'cname-single',
  severity: 'error',
  rfc: 'RFC 1034 §3.6.2; RFC 2181 §10.1',
  scope: 'changed',
  check(zone) {
    const out: CheckResult[] = [];
    for (const set of zone.changedSets) {
      if (set.type === 'CNAME' && set.values.length > 1) {
        out.push(
          result(
            this,
            set.name,
            'CNAME',
            `A name has at most one CNAME, but ${set.name} has ${set.values.length}.`,
            `Ім’я може мати лише один CNAME, а ${set.name} має ${set.values.length}.`,
          ),
        );
      }
    }
    return out;
  },
};
