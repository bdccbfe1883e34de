import type { CheckResult } from '../plans/plan.js';
import type { RecordSet } from '../zone/record-set.js';
import type { Rule, ZoneView } from './rule.js';
import { result } from './rule.js';

const meta = { id: 'cname-chain', severity: 'warning' } as const;

const checkSet = (zone: ZoneView, set: RecordSet, out: CheckResult[]): void => {
  const name = set.name;
  for (const t of zone.targets(set)) {
    if (t !== name && zone.names.get(t)?.has('CNAME')) {
      out.push(
        result(
          meta,
          name,
          'CNAME',
          `The CNAME points at ${t}, which is itself a CNAME; point it at the final name to save resolvers a lookup.`,
          `CNAME вказує на ${t}, який сам є CNAME; вкажіть кінцеве ім’я, щоб резолверам не довелося робити зайвий запит.`,
        ),
      );
    }
  }
};

/** Warning: a CNAME pointing at another CNAME in the zone (RFC 1034 §5.2.2; RFC 1912 §2.4 "don't go overboard"). */
export const cnameChain: Rule = {
  ...meta,
  rfc: 'RFC 1034 §5.2.2; RFC 1912 §2.4',
  scope: 'zone',
  check(zone) {
    const out: CheckResult[] = [];
    for (const set of zone.ofType('CNAME')) checkSet(zone, set, out);
    return out;
  },
  checkNames(zone, names) {
    const out: CheckResult[] = [];
    for (const name of names) {
      const set = zone.get(name, 'CNAME');
      if (set) checkSet(zone, set, out);
    }
    return out;
  },
  // A result depends on the owner's CNAME and on whether its target has one: one appears elsewhere only at
  // what points at a name that has a CNAME after the plan.
  affected: (delta) => delta.referrers(delta.changedWith('CNAME')),
};
