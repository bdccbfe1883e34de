import type { CheckResult } from '../plans/plan.js';
import { isAtOrBelow } from '../zone/names.js';
import type { RecordSet } from '../zone/record-set.js';
import type { Rule, ZoneView } from './rule.js';
import { result } from './rule.js';

const meta = { id: 'glue-present', severity: 'error' } as const;

const checkSet = (zone: ZoneView, ns: RecordSet, out: CheckResult[]): void => {
  const name = ns.name;
  for (const t of zone.targets(ns)) {
    if (!isAtOrBelow(t, zone.origin)) continue;
    const at = zone.names.get(t);
    if (at?.has('A') || at?.has('AAAA')) continue;
    out.push(
      result(
        meta,
        name,
        'NS',
        `The nameserver ${t} of ${name} is inside this zone but has no A or AAAA record (glue); add its address.`,
        `Сервер імен ${t} для ${name} лежить у цій зоні, але не має запису A чи AAAA (glue); додайте його адресу.`,
      ),
    );
  }
};

/**
 * An NS target inside this zone has A or AAAA records here: below a delegation they are the glue a referral
 * must carry (RFC 1034 §4.2.1; RFC 9471 §2), elsewhere in the zone nobody else can answer for them.
 */
export const gluePresent: Rule = {
  ...meta,
  rfc: 'RFC 1034 §4.2.1; RFC 9471 §2',
  scope: 'zone',
  check(zone) {
    const out: CheckResult[] = [];
    for (const ns of zone.ofType('NS')) checkSet(zone, ns, out);
    return out;
  },
  checkNames(zone, names) {
    const out: CheckResult[] = [];
    for (const name of names) {
      const ns = zone.get(name, 'NS');
      if (ns) checkSet(zone, ns, out);
    }
    return out;
  },
  // A result depends on the NS set and on whether each target has A or AAAA: one appears elsewhere only at
  // what points at a name left without A and AAAA.
  affected: (delta) => delta.referrers(delta.changedWithout('A', 'AAAA')),
};
