import type { CheckResult } from '../plans/plan.js';
import { answerSizeOver } from '../zone/wire-size.js';
import type { Rule } from './rule.js';
import { result } from './rule.js';
import { MAX_MESSAGE } from './rrset-size.js';

export const UDP_SAFE = 1232;

/**
 * Warning: an answer with the set exceeds 1232 octets, the EDNS buffer size recommended since DNS Flag Day
 * 2020 (RFC 6891 §6.2.5, dnsflagday.net/2020): it is truncated over UDP and resolvers retry over TCP.
 */
export const rrsetSizeOver1232: Rule = {
  id: 'rrset-size-over-1232',
  severity: 'warning',
  rfc: 'RFC 6891 §6.2.5; DNS Flag Day 2020',
  scope: 'changed',
  check(zone) {
    const out: CheckResult[] = [];
    for (const set of zone.changedSets) {
      const size = answerSizeOver(set, zone.parsed, UDP_SAFE);
      if (size !== null && size <= MAX_MESSAGE) {
        out.push(
          result(
            this,
            set.name,
            set.type,
            `An answer with this ${set.type} set is ${size} octets, over ${UDP_SAFE}: it will not fit a UDP answer, so resolvers will retry over TCP.`,
            `Відповідь із цим набором ${set.type} займає ${size} октетів, більше за ${UDP_SAFE}: вона не вміститься у відповідь UDP, і резолвери повторюватимуть запит через TCP.`,
          ),
        );
      }
    }
    return out;
  },
};
