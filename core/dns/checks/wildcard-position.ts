import type { CheckResult } from '../plans/plan.js';
import type { Rule } from './rule.js';
import { result } from './rule.js';

/** `*` is a wildcard only as the whole leftmost label (RFC 4592 §2.1.1); anywhere else it is refused here. */
export const wildcardPosition: Rule = {
  id: 'wildcard-position',
  severity: 'error',
  rfc: 'RFC 4592 §2.1.1',
  scope: 'changed',
  check(zone) {
    const out: CheckResult[] = [];
    for (const name of zone.changedOwners) {
      if (!name.includes('*')) continue;
      const labels = name.split('.');
      if (labels.every((l, i) => !l.includes('*') || (i === 0 && l === '*'))) continue;
      out.push(
        result(
          this,
          name,
          null,
          `"*" is allowed only as the whole leftmost label (e.g. *.${zone.origin}): "${name}".`,
          `«*» допускається лише як уся крайня ліва мітка (наприклад, *.${zone.origin}): «${name}».`,
        ),
      );
    }
    return out;
  },
};
