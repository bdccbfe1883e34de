import type { CheckResult } from '../plans/plan.js';
import type { Rule } from './rule.js';
import { result } from './rule.js';

/**
 * One TTL per record set (RFC 2181 §5.2). A record set carries a single `ttl`, so a zone view cannot break
 * this; it is enforced where records are grouped into sets (a zone file, or a `records` list naming one set
 * twice) through `mixedTtl`.
 */
export const rrsetTtl: Rule = {
  id: 'rrset-ttl',
  severity: 'error',
  rfc: 'RFC 2181 §5.2',
  scope: 'changed',
  check: () => [],
};

export const mixedTtl = (name: string, type: string, ttls: readonly number[]): CheckResult =>
  result(
    rrsetTtl,
    name,
    type,
    `The ${type} records at ${name} have different TTLs (${ttls.join(', ')}); a record set has one TTL.`,
    `Записи ${type} на ${name} мають різні TTL (${ttls.join(', ')}); набір записів має один TTL.`,
  );
