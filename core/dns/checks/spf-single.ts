import type { CheckResult } from '../plans/plan.js';
import type { Rule } from './rule.js';
import { result } from './rule.js';
import { spfValues } from './spf.js';

/** At most one "v=spf1" TXT per name: two make the SPF check fail with permerror (RFC 7208 §3.2, §4.5). */
export const spfSingle: Rule = {
  id: 'spf-single',
  severity: 'error',
  rfc: 'RFC 7208 §3.2, §4.5',
  scope: 'changed',
  check(zone) {
    const out: CheckResult[] = [];
    for (const set of zone.changedSets) {
      if (set.type !== 'TXT') continue;
      const n = spfValues(set).length;
      if (n > 1) {
        out.push(
          result(
            this,
            set.name,
            'TXT',
            `${set.name} has ${n} TXT records starting with v=spf1; receivers then fail SPF outright (permerror). Merge them into one.`,
            `${set.name} має ${n} записи TXT, що починаються з v=spf1; тоді одержувачі відхиляють перевірку SPF (permerror). Об’єднайте їх в один.`,
          ),
        );
      }
    }
    return out;
  },
};
