import type { CheckResult } from '../plans/plan.js';
import type { Rule } from './rule.js';
import { result } from './rule.js';

/**
 * Warning: SOA timers outside common practice (RFC 1912 §2.2: refresh 20 min–12 h, retry below refresh,
 * expire 2–4 weeks; RFC 2308 §5: negative-caching TTL of at most a day, 1–3 hours recommended).
 */
export const soaTimers: Rule = {
  id: 'soa-timers',
  severity: 'warning',
  rfc: 'RFC 1912 §2.2; RFC 2308 §5',
  scope: 'changed',
  check(zone) {
    const out: CheckResult[] = [];
    for (const set of zone.changedSets) {
      if (set.type !== 'SOA') continue;
      for (const p of zone.parsed(set)) {
        if (p.data?.kind !== 'soa') continue;
        const { refresh, retry, expire, minimum } = p.data;
        const odd: Array<[string, string]> = [];
        if (refresh < 1200 || refresh > 43200)
          odd.push([`refresh ${refresh} is outside 1200–43200 s`, `refresh ${refresh} поза межами 1200–43200 с`]);
        if (retry >= refresh)
          odd.push([`retry ${retry} is not below refresh ${refresh}`, `retry ${retry} не менший за refresh ${refresh}`]);
        if (expire < 1209600 || expire > 2419200)
          odd.push([
            `expire ${expire} is outside 2–4 weeks (1209600–2419200 s)`,
            `expire ${expire} поза межами 2–4 тижнів (1209600–2419200 с)`,
          ]);
        if (expire <= refresh + retry)
          odd.push([`expire ${expire} is not above refresh + retry`, `expire ${expire} не більший за refresh + retry`]);
        if (minimum > 86400)
          odd.push([
            `minimum (negative-caching TTL) ${minimum} is over a day`,
            `minimum (TTL негативного кешування) ${minimum} перевищує добу`,
          ]);
        if (odd.length === 0) continue;
        out.push(
          result(
            this,
            set.name,
            'SOA',
            `Unusual SOA timers: ${odd.map((o) => o[0]).join('; ')}.`,
            `Незвичні таймери SOA: ${odd.map((o) => o[1]).join('; ')}.`,
          ),
        );
      }
    }
    return out;
  },
};
