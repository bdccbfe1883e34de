import type { CheckResult } from '../plans/plan.js';
import type { NameProblem } from '../zone/names.js';
import { nameProblems } from '../zone/names.js';
import type { Rule, ZoneView } from './rule.js';
import { result } from './rule.js';

/** Name problems of the view's changed owners, computed once per view for the three name rules. */
const memo = new WeakMap<ZoneView, Array<[string, NameProblem[]]>>();
const problemsOf = (zone: ZoneView): Array<[string, NameProblem[]]> => {
  let hit = memo.get(zone);
  if (!hit) {
    hit = [];
    for (const name of zone.changedOwners) {
      const p = nameProblems(name);
      if (p.length > 0) hit.push([name, p]);
    }
    memo.set(zone, hit);
  }
  return hit;
};

/** A rule over the owner names of the changed sets, reporting the name problems (core/dns/names.ts) with its id. */
export const nameProblemRule = (meta: { id: string; severity: 'error' | 'warning'; rfc: string }): Rule => ({
  ...meta,
  scope: 'changed',
  check(zone) {
    const out: CheckResult[] = [];
    for (const [name, problems] of problemsOf(zone)) {
      for (const p of problems) if (p.rule === meta.id) out.push(result(meta, name, null, p.en, p.uk));
    }
    return out;
  },
});
