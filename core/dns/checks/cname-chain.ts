import type { CheckResult } from '../plan.js';
import type { Rule } from './rule.js';
import { result } from './rule.js';

/** Warning: a CNAME pointing at another CNAME in the zone (RFC 1034 §5.2.2; RFC 1912 §2.4 "don't go overboard"). */
export const cnameChain: Rule = {
  id: 'cname-chain',
  severity: 'warning',
  rfc: 'RFC 1034 §5.2.2; RFC 1912 §2.4',
  scope: 'zone',
  check(zone) {
    const out: CheckResult[] = [];
    for (const set of zone.ofType('CNAME')) {
      const name = set.name;
      for (const t of zone.targets(set)) {
        if (t !== name && zone.names.get(t)?.has('CNAME')) {
          out.push(
            result(
              this,
              name,
              'CNAME',
              `The CNAME points at ${t}, which is itself a CNAME; point it at the final name to save resolvers a lookup.`,
              `CNAME вказує на ${t}, який сам є CNAME; вкажіть кінцеве ім’я, щоб резолверам не довелося робити зайвий запит.`,
            ),
          );
        }
      }
    }
    return out;
  },
};
