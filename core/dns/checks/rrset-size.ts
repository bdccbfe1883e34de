import type { CheckResult } from '../plans/plan.js';
import { answerSizeOver } from '../zone/wire-size.js';
import type { Rule } from './rule.js';
import { result } from './rule.js';

export const MAX_MESSAGE = 65535;

/** A record set fits one DNS message: 65535 octets, the TCP length prefix's limit (RFC 1035 §4.2.2). */
export const rrsetSize: Rule = {
  id: 'rrset-size',
  severity: 'error',
  rfc: 'RFC 1035 §4.2.2',
  scope: 'changed',
  check(zone) {
    const out: CheckResult[] = [];
    for (const set of zone.changedSets) {
      const size = answerSizeOver(set, zone.parsed, MAX_MESSAGE);
      if (size !== null) {
        out.push(
          result(
            this,
            set.name,
            set.type,
            `An answer with this ${set.type} set needs ${size} octets; a DNS message holds at most ${MAX_MESSAGE}. Split or shorten it.`,
            `Відповідь із цим набором ${set.type} займає ${size} октетів; повідомлення DNS уміщує не більше ${MAX_MESSAGE}. Розділіть або скоротіть набір.`,
          ),
        );
      }
    }
    return out;
  },
};
