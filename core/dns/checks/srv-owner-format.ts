import type { CheckResult } from '../plans/plan.js';
import type { Rule } from './rule.js';
import { result } from './rule.js';

/** An SRV owner is `_service._proto.name` (RFC 2782; underscored labels per RFC 8552 §2). */
export const srvOwnerFormat: Rule = {
  id: 'srv-owner-format',
  severity: 'error',
  rfc: 'RFC 2782; RFC 8552 §2',
  scope: 'changed',
  check(zone) {
    const out: CheckResult[] = [];
    for (const set of zone.changedSets) {
      if (set.type !== 'SRV') continue;
      const relative = set.name === zone.origin ? [] : set.name.slice(0, set.name.length - zone.origin.length - 1).split('.');
      const ok = relative.length >= 2 && /^_[a-z0-9-]+$/.test(relative[0]!) && /^_[a-z0-9-]+$/.test(relative[1]!);
      if (!ok) {
        out.push(
          result(
            this,
            set.name,
            'SRV',
            `An SRV name starts with _service._protocol, e.g. _sip._tcp.${zone.origin}; "${set.name}" does not.`,
            `Ім’я запису SRV починається з _служба._протокол, наприклад _sip._tcp.${zone.origin}; «${set.name}» так не починається.`,
          ),
        );
      }
    }
    return out;
  },
};
