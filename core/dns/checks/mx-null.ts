import type { CheckResult } from '../plans/plan.js';
import type { Rule } from './rule.js';
import { result } from './rule.js';

/** A null MX ("0 .": the domain accepts no mail) has preference 0 and is the only MX at its name (RFC 7505 §3). */
export const mxNull: Rule = {
  id: 'mx-null',
  severity: 'error',
  rfc: 'RFC 7505 §3',
  scope: 'changed',
  check(zone) {
    const out: CheckResult[] = [];
    for (const set of zone.changedSets) {
      if (set.type !== 'MX') continue;
      const parsed = zone.parsed(set);
      for (const p of parsed) for (const pr of p.problems) if (pr.rule === this.id) out.push(result(this, set.name, 'MX', pr.en, pr.uk));
      const isNull = parsed.some((p) => p.data?.kind === 'mx' && p.data.exchange === '');
      if (isNull && set.values.length > 1) {
        out.push(
          result(
            this,
            set.name,
            'MX',
            `A null MX ("0 .") must be the only MX at ${set.name}: it says the domain accepts no mail, so other MX records contradict it.`,
            `Нульовий MX («0 .») має бути єдиним MX на ${set.name}: він означає, що домен не приймає пошти, тож інші записи MX йому суперечать.`,
          ),
        );
      }
    }
    return out;
  },
};
