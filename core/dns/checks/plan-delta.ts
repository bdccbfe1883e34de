import { isAtOrBelow } from '../zone/names.js';
import type { Change, CheckResult } from '../plans/plan.js';
import type { RecordSet, RecordType } from '../zone/record-set.js';
import type { PlanDelta, Rule, ZoneView } from './rule.js';
import type { TargetIndex } from './target-index.js';

const NO_TYPES: ReadonlySet<RecordType> = new Set();

/**
 * The PlanDelta of a plan: its changes between two views of the zone (`after` shares every untouched set
 * object with `before`). `targetIndex` must cover the sets of both views. Relations are computed on first
 * use; the ones that walk the whole zone (namesAtOrBelow, setsOfType) only when a rule needs them, i.e.
 * when the plan touches delegations, DNAMEs, wildcards or TXT.
 */
export const makePlanDelta = (args: {
  origin: string;
  before: ZoneView;
  after: ZoneView;
  changes: readonly Change[];
  changedNames: ReadonlySet<string>;
  changedSets: readonly RecordSet[];
  targetIndex: TargetIndex;
}): PlanDelta => {
  const { origin, before, after, changes, changedNames, changedSets, targetIndex } = args;
  const typesAt = new Map<string, Set<RecordType>>();
  for (const c of changes) {
    let t = typesAt.get(c.name);
    if (!t) typesAt.set(c.name, (t = new Set()));
    t.add(c.type);
  }
  const referrersInto = (into: Set<string>, target: string): void => {
    for (const s of targetIndex.candidates(target)) into.add(s.name);
  };
  return {
    origin,
    before,
    after,
    changedNames,
    namesChanging(...types) {
      const out: string[] = [];
      for (const [name, t] of typesAt) if (types.some((x) => t.has(x))) out.push(name);
      return out;
    },
    changedTypes: (name) => typesAt.get(name) ?? NO_TYPES,
    changedWithout(...types) {
      const out: string[] = [];
      for (const name of changedNames) {
        const now = after.names.get(name);
        if (!now || !types.some((t) => now.has(t))) out.push(name);
      }
      return out;
    },
    changedWith(...types) {
      const out: string[] = [];
      for (const name of changedNames) {
        const now = after.names.get(name);
        if (now && types.some((t) => now.has(t))) out.push(name);
      }
      return out;
    },
    referrers(targets) {
      const out = new Set<string>();
      for (const t of targets) referrersInto(out, t);
      return out;
    },
    referrersAtOrBelow(name) {
      const out = new Set<string>();
      for (const t of targetIndex.targets()) if (isAtOrBelow(t, name)) referrersInto(out, t);
      return out;
    },
    namesAtOrBelow(name) {
      const out: string[] = [];
      for (const n of before.names.keys()) if (isAtOrBelow(n, name)) out.push(n);
      for (const n of changedNames) if (!before.names.has(n) && isAtOrBelow(n, name)) out.push(n);
      return out;
    },
    setsOfType(type) {
      const out: RecordSet[] = [];
      for (const types of before.names.values()) {
        const s = types.get(type);
        if (s) out.push(s);
      }
      for (const s of changedSets) if (s.type === type) out.push(s);
      return out;
    },
  };
};

const resultKey = (r: CheckResult): string => `${r.rule}\u0000${r.name}\u0000${r.type ?? ''}\u0000${r.message.en}`;

/**
 * The zone rules' results a plan reports: those on the zone after the plan that concern a name the plan
 * touches or that were not there before (an old problem elsewhere never blocks an unrelated plan).
 *
 * With a delta, each rule that can (checkNames + affected) is evaluated only on the names the plan can
 * reach — the changed names, the apex and the rule's `affected` names — in both views: on any other name
 * the plan brings no result that was not there before, so nothing there would be reported anyway. The outcome is exactly the
 * whole-zone evaluation's (test/dns/incremental-checks.test.ts compares them on random zones and plans).
 * Without a delta, or when a rule cannot tell, the rule runs on the whole zone, before and after.
 */
export const zoneRuleResults = (
  rules: readonly Rule[],
  before: ZoneView,
  after: ZoneView,
  changedNames: ReadonlySet<string>,
  delta: PlanDelta | null,
): CheckResult[] => {
  const out: CheckResult[] = [];
  const keep = (now: readonly CheckResult[], then: readonly CheckResult[]): void => {
    const already = new Set(then.map(resultKey));
    for (const r of now) if (changedNames.has(r.name) || !already.has(resultKey(r))) out.push(r);
  };
  for (const rule of rules) {
    const extra = delta && rule.checkNames && rule.affected ? rule.affected(delta) : 'all';
    if (extra !== 'all') {
      const names = new Set<string>(changedNames);
      names.add(delta!.origin);
      for (const n of extra) names.add(n);
      const now = rule.checkNames!(after, names);
      // Both views even when `now` is empty: a rule may learn only from the zone before that it needs the
      // whole zone (cname-loop: a CNAME the plan removes led into a loop).
      const then = now && rule.checkNames!(before, names);
      if (now && then) {
        keep(now, then);
        continue;
      }
    }
    const now = rule.check(after);
    if (now.length > 0) keep(now, rule.check(before));
  }
  return out;
};
