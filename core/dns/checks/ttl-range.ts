import type { CheckResult } from '../plans/plan.js';
import type { Rule } from './rule.js';
import { result } from './rule.js';

export const MAX_TTL = 2147483647;

/** A TTL is a whole number of seconds from 0 to 2^31 − 1 (RFC 2181 §8). */
export const ttlRange: Rule = {
  id: 'ttl-range',
  severity: 'error',
  rfc: 'RFC 2181 §8',
  scope: 'changed',
  check(zone) {
    const out: CheckResult[] = [];
    for (const set of zone.changedSets) {
      if (!Number.isInteger(set.ttl) || set.ttl < 0 || set.ttl > MAX_TTL) {
        out.push(
          result(
            this,
            set.name,
            set.type,
            `TTL ${String(set.ttl)} is out of range; use a whole number of seconds from 0 to ${MAX_TTL}.`,
            `TTL ${String(set.ttl)} поза допустимими межами; вкажіть ціле число секунд від 0 до ${MAX_TTL}.`,
          ),
        );
      }
    }
    return out;
  },
};
