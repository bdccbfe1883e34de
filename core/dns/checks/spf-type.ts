import type { CheckResult } from '../plans/plan.js';
import type { Rule } from './rule.js';
import { result } from './rule.js';

/** Warning: the SPF record type (99) is obsolete; SPF is published as TXT only (RFC 7208 §3.1, §14.1). */
export const spfType: Rule = {
  id: 'spf-type',
  severity: 'warning',
  rfc: 'RFC 7208 §3.1, §14.1',
  scope: 'changed',
  check(zone) {
    const out: CheckResult[] = [];
    for (const set of zone.changedSets) {
      if (set.type !== 'SPF') continue;
      out.push(
        result(
          this,
          set.name,
          'SPF',
          'The SPF record type (99) is obsolete and ignored by receivers; publish the policy as a TXT record.',
          'Тип запису SPF (99) застарів, і одержувачі його ігнорують; опублікуйте політику як запис TXT.',
        ),
      );
    }
    return out;
  },
};
