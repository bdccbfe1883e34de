import type { CheckResult } from '../plans/plan.js';
import type { Rule } from './rule.js';
import { result } from './rule.js';

/**
 * Warning: an underscore in a host name — the owner of A/AAAA, or an MX/NS target. Host names are letters,
 * digits and hyphens (RFC 952; RFC 1123 §2.1); underscored labels are for attribute leaves such as
 * _dmarc or _sip._tcp (RFC 8552 §1.1), and some software refuses them in host names.
 */
export const hostLabelUnderscore: Rule = {
  id: 'host-label-underscore',
  severity: 'warning',
  rfc: 'RFC 1123 §2.1; RFC 952; RFC 8552 §1.1',
  scope: 'changed',
  check(zone) {
    const out: CheckResult[] = [];
    for (const set of zone.changedSets) {
      if ((set.type === 'A' || set.type === 'AAAA') && set.name.includes('_')) {
        out.push(
          result(
            this,
            set.name,
            set.type,
            `${set.name} has an underscore, but it names a host (it has ${set.type}); host names use letters, digits and hyphens.`,
            `${set.name} містить підкреслення, хоча це ім’я вузла (має ${set.type}); імена вузлів складаються з літер, цифр і дефісів.`,
          ),
        );
      }
      if (set.type === 'MX' || set.type === 'NS') {
        for (const t of zone.targets(set)) {
          if (!t.includes('_')) continue;
          out.push(
            result(
              this,
              set.name,
              set.type,
              `The ${set.type} target ${t} has an underscore; host names use letters, digits and hyphens.`,
              `Ціль ${set.type} ${t} містить підкреслення; імена вузлів складаються з літер, цифр і дефісів.`,
            ),
          );
        }
      }
    }
    return out;
  },
};
