import type { CheckResult } from '../plans/plan.js';
import { isAtOrBelow, outsideZone } from '../zone/names.js';
import type { Rule } from './rule.js';
import { result } from './rule.js';

/** Every owner name is at or below the zone's apex (RFC 1034 §4.2: a zone is the names below its top node). */
export const ownerInZone: Rule = {
  id: 'owner-in-zone',
  severity: 'error',
  rfc: 'RFC 1034 §4.2',
  scope: 'changed',
  check(zone) {
    const out: CheckResult[] = [];
    for (const name of zone.changedOwners) {
      if (!isAtOrBelow(name, zone.origin)) {
        const p = outsideZone(name, zone.origin);
        out.push(result(this, name, null, p.en, p.uk));
      }
    }
    return out;
  },
};
