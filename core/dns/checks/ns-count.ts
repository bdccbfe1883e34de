import type { CheckResult } from '../plans/plan.js';
import type { Rule } from './rule.js';
import { result } from './rule.js';

/** Warning: fewer than two nameservers (RFC 1034 §4.1 asks for at least two; RFC 2182 §5). */
export const nsCount: Rule = {
  id: 'ns-count',
  severity: 'warning',
  rfc: 'RFC 1034 §4.1; RFC 2182 §5',
  scope: 'changed',
  check(zone) {
    const out: CheckResult[] = [];
    for (const set of zone.changedSets) {
      if (set.type === 'NS' && set.values.length < 2) {
        out.push(
          result(
            this,
            set.name,
            'NS',
            `${set.name} has only ${set.values.length} nameserver; use at least two, on different networks.`,
            `${set.name} має лише ${set.values.length} сервер імен; використовуйте щонайменше два, у різних мережах.`,
          ),
        );
      }
    }
    return out;
  },
};
