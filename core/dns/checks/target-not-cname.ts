import type { CheckResult } from '../plans/plan.js';
import type { RecordSet, RecordType } from '../zone/record-set.js';
import type { Rule, ZoneView } from './rule.js';
import { result } from './rule.js';

/** The NS/MX/SRV targets that are CNAMEs inside the zone (shared by the three per-type rules). */
export const targetNotCnameRule = (meta: { id: string; rfc: string }, type: RecordType): Rule => {
  const rule = { ...meta, severity: 'error' as const };
  const checkSet = (zone: ZoneView, set: RecordSet, out: CheckResult[]): void => {
    for (const t of zone.targets(set)) {
      if (zone.names.get(t)?.has('CNAME')) {
        out.push(
          result(
            rule,
            set.name,
            type,
            `The ${type} target ${t} is a CNAME; ${type} must point at a host name with A/AAAA records, not an alias.`,
            `Ціль ${type} ${t} є CNAME; ${type} має вказувати на ім’я вузла із записами A/AAAA, а не на псевдонім.`,
          ),
        );
      }
    }
  };
  return {
    ...rule,
    scope: 'zone',
    check(zone) {
      const out: CheckResult[] = [];
      for (const set of zone.ofType(type)) checkSet(zone, set, out);
      return out;
    },
    checkNames(zone, names) {
      const out: CheckResult[] = [];
      for (const name of names) {
        const set = zone.get(name, type);
        if (set) checkSet(zone, set, out);
      }
      return out;
    },
    // A result depends on the owner's set and on whether each target has a CNAME: one appears elsewhere
    // only at what points at a name that has a CNAME after the plan.
    affected: (delta) => delta.referrers(delta.changedWith('CNAME')),
  };
};
