import type { CheckResult } from '../plans/plan.js';
import type { Rule } from './rule.js';
import { result } from './rule.js';

/**
 * Warning: CAA `issue` without `issuewild`. Without issuewild, issue also governs wildcard certificates
 * (RFC 8659 §4.3); saying so explicitly avoids granting wildcards by accident.
 */
export const caaIssuewild: Rule = {
  id: 'caa-issuewild',
  severity: 'warning',
  rfc: 'RFC 8659 §4.3',
  scope: 'changed',
  check(zone) {
    const out: CheckResult[] = [];
    for (const set of zone.changedSets) {
      if (set.type !== 'CAA') continue;
      const tags = new Set(zone.parsed(set).map((p) => (p.data?.kind === 'caa' ? p.data.tag : '')));
      if (tags.has('issue') && !tags.has('issuewild')) {
        out.push(
          result(
            this,
            set.name,
            'CAA',
            'CAA issue is set without issuewild, so the same CAs may also issue wildcard certificates; add issuewild to say who may (";" for nobody).',
            'Задано CAA issue без issuewild, тож ті самі центри сертифікації можуть видавати й wildcard-сертифікати; додайте issuewild, щоб указати, хто може (";" — ніхто).',
          ),
        );
      }
    }
    return out;
  },
};
