import type { CheckResult } from '../plan.js';
import { isAtOrBelow } from '../names.js';
import type { Rule, ZoneView } from './rule.js';
import { result } from './rule.js';
import { spfValues } from './spf.js';

export const SPF_LOOKUP_LIMIT = 10;

/**
 * Terms that cost a DNS lookup (RFC 7208 §4.6.4): include, a, mx, ptr, exists and redirect. Includes and
 * redirects to names inside this zone are followed (each name once), so nested policies count too.
 */
const lookups = (zone: ZoneView, name: string, memo: Map<string, number>, visiting: Set<string>): number => {
  const hit = memo.get(name);
  if (hit !== undefined) return hit;
  if (visiting.has(name)) return 0;
  visiting.add(name);
  let n = 0;
  for (const policy of spfValues(zone.names.get(name)?.get('TXT'))) {
    for (const term of policy.split(/\s+/).slice(1)) {
      const t = term.replace(/^[+\-~?]/, '').toLowerCase();
      const m = /^(include|a|mx|ptr|exists)(?:$|[:/])|^(redirect)=/.exec(t);
      if (!m) continue;
      n += 1;
      const target = /^(?:include:|redirect=)([^%\s]+?)\.?$/.exec(t)?.[1];
      if (target && isAtOrBelow(target, zone.origin)) n += lookups(zone, target, memo, visiting);
    }
  }
  visiting.delete(name);
  memo.set(name, n);
  return n;
};

/** Warning: an SPF policy needing more than 10 lookups ends in permerror (RFC 7208 §4.6.4). */
export const spfLookupCount: Rule = {
  id: 'spf-lookup-count',
  severity: 'warning',
  rfc: 'RFC 7208 §4.6.4',
  scope: 'zone',
  check(zone) {
    const out: CheckResult[] = [];
    const memo = new Map<string, number>();
    for (const txt of zone.ofType('TXT')) {
      const name = txt.name;
      if (spfValues(txt).length === 0) continue;
      const n = lookups(zone, name, memo, new Set());
      if (n > SPF_LOOKUP_LIMIT) {
        out.push(
          result(
            this,
            name,
            'TXT',
            `This SPF policy needs ${n} DNS lookups (include, a, mx, ptr, exists, redirect); receivers stop at ${SPF_LOOKUP_LIMIT} and fail it.`,
            `Ця політика SPF потребує ${n} DNS-запитів (include, a, mx, ptr, exists, redirect); одержувачі зупиняються на ${SPF_LOOKUP_LIMIT} і вважають її помилковою.`,
          ),
        );
      }
    }
    return out;
  },
};
