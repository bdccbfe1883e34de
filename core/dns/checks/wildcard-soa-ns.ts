import type { CheckResult } from '../plans/plan.js';
import type { Rule } from './rule.js';
import { result } from './rule.js';

/** No SOA or NS at a wildcard name (RFC 4592 §4.1, §4.2). */
export const wildcardSoaNs: Rule = {
  id: 'wildcard-soa-ns',
  severity: 'error',
  rfc: 'RFC 4592 §4.1, §4.2',
  scope: 'changed',
  check(zone) {
    const out: CheckResult[] = [];
    for (const set of zone.changedSets) {
      if ((set.type === 'SOA' || set.type === 'NS') && (set.name === '*' || set.name.startsWith('*.'))) {
        out.push(
          result(
            this,
            set.name,
            set.type,
            `A wildcard name cannot have ${set.type} records; name the delegation explicitly.`,
            `Ім’я з символом підстановки не може мати записів ${set.type}; вкажіть ім’я явно.`,
          ),
        );
      }
    }
    return out;
  },
};
