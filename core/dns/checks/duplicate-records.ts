import type { CheckResult } from '../plans/plan.js';
import type { Rule } from './rule.js';
import { result } from './rule.js';

/** A record set holds no value twice (RFC 2181 §5: duplicate records are not allowed), compared canonically. */
export const duplicateRecords: Rule = {
  id: 'duplicate-records',
  severity: 'error',
  rfc: 'RFC 2181 §5',
  scope: 'changed',
  check(zone) {
    const out: CheckResult[] = [];
    for (const set of zone.changedSets) {
      if (set.values.length < 2) continue;
      const seen = new Map<string, number>();
      for (const p of zone.parsed(set)) seen.set(p.canonical, (seen.get(p.canonical) ?? 0) + 1);
      for (const [value, n] of seen) {
        if (n > 1) {
          const v = value.length > 80 ? `${value.slice(0, 80)}…` : value;
          out.push(
            result(
              this,
              set.name,
              set.type,
              `The value "${v}" appears ${n} times in the ${set.type} set at ${set.name}; keep it once.`,
              `Значення «${v}» трапляється в наборі ${set.type} на ${set.name} ${n} рази; залиште одне.`,
            ),
          );
        }
      }
    }
    return out;
  },
};
