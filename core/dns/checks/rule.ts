import type { CheckResult, Change } from '../plans/plan.js';
import type { RecordSet, RecordType } from '../zone/record-set.js';
import type { ParsedValue } from '../zone/values.js';
import { parseValue } from '../zone/values.js';
import { TargetIndex } from './target-index.js';
import { indexSets } from '../zone/zone-sets.js';

/**
 * What a rule sees: the zone as it would be after the plan (origin + name → type → record set) and what the
 * plan touched. Built once per plan; every lookup is a Map access, so rules stay O(n) over the zone.
 */
export interface ZoneView {
  /** The zone's name: absolute, lower case, no trailing dot. */
  readonly origin: string;
  readonly names: ReadonlyMap<string, ReadonlyMap<RecordType, RecordSet>>;
  /** Record sets the plan creates or updates (all of them when a whole zone is checked). */
  readonly changedSets: readonly RecordSet[];
  /** The distinct owner names of changedSets. */
  readonly changedOwners: readonly string[];
  /** Owner names of every set the plan creates, updates or deletes. */
  readonly changedNames: ReadonlySet<string>;
  /** The plan's changes, names resolved (empty when a whole zone is checked). */
  readonly changes: readonly Change[];
  isChanged(name: string, type: RecordType): boolean;
  get(name: string, type: RecordType): RecordSet | undefined;
  /** Every set of one type in the zone (indexed once per view), so a rule about MX visits only MX sets. */
  ofType(type: RecordType): readonly RecordSet[];
  /** The changed sets of one type. */
  changedOfType(type: RecordType): readonly RecordSet[];
  /** The set's values parsed by their type (core/dns/types/), once per plan. */
  parsed(set: RecordSet): readonly ParsedValue[];
  /** Host names the set points at (CNAME/NS/PTR/DNAME targets, MX exchanges, SRV targets; not the root). */
  targets(set: RecordSet): readonly string[];
  /** The sets of `type` (CNAME, MX, SRV or NS) in this zone whose targets include `target`. */
  pointingAt(target: string, type: RecordType): readonly RecordSet[];
}

/**
 * What a plan changes, for the zone rules' incremental evaluation: the zone before and after, and the
 * relations between names a rule may need to find the results a change can reach.
 */
export interface PlanDelta {
  readonly origin: string;
  readonly before: ZoneView;
  readonly after: ZoneView;
  /** Owner names of every set the plan creates, updates or deletes. */
  readonly changedNames: ReadonlySet<string>;
  /** The owner names where the plan creates, updates or deletes a set of one of `types`. */
  namesChanging(...types: RecordType[]): readonly string[];
  /** The types the plan creates, updates or deletes at `name`. */
  changedTypes(name: string): ReadonlySet<RecordType>;
  /** The changed names that, after the plan, have none of `types` (e.g. a target left without an address). */
  changedWithout(...types: RecordType[]): readonly string[];
  /** The changed names that, after the plan, have one of `types`. */
  changedWith(...types: RecordType[]): readonly string[];
  /**
   * Owner names of the CNAME, MX, SRV and NS sets, before or after the plan, that may point at one of
   * `targets` (every one that does, and perhaps some whose value does not parse).
   */
  referrers(targets: Iterable<string>): Set<string>;
  /** The same, for every target at or below `name`. */
  referrersAtOrBelow(name: string): Set<string>;
  /** Every owner name at or below `name`, before or after the plan. */
  namesAtOrBelow(name: string): string[];
  /** Every set of one type before the plan, and the plan's new sets of that type. */
  setsOfType(type: RecordType): readonly RecordSet[];
}

/**
 * A check rule. `scope` says what it looks at: `changed` rules inspect only the changed sets (their own
 * values and names); `zone` rules relate sets to each other across the zone, and the plan builder keeps
 * only the results the plan introduces or that concern a name it touches.
 */
export interface Rule {
  /** kebab-case, names its subject (DESIGN "Wire formats"). */
  readonly id: string;
  readonly severity: 'error' | 'warning';
  /** The RFC section (or seed rule) the rule enforces (STYLE 12). */
  readonly rfc: string;
  readonly scope: 'changed' | 'zone';
  check(zone: ZoneView): CheckResult[];
  /**
   * Zone rules, optional: exactly the results `check` gives on the owner names in `names` (in the same
   * order per name and type), or null when that needs the whole zone after all. With `affected`, it lets
   * the plan builder judge a small plan without walking the whole zone.
   */
  checkNames?(zone: ZoneView, names: ReadonlySet<string>): CheckResult[] | null;
  /**
   * Zone rules, optional: the owner names, besides the changed names and the apex, where the plan may bring
   * a result that was not there before (one it only removes, or leaves as it was, is never reported: see
   * zoneRuleResults). More is harmless, fewer is a bug; 'all' when it cannot tell.
   */
  affected?(delta: PlanDelta): Iterable<string> | 'all';
}

export const result = (rule: Pick<Rule, 'id' | 'severity'>, name: string, type: string | null, en: string, uk: string): CheckResult => ({
  severity: rule.severity,
  rule: rule.id,
  name,
  type,
  message: { uk, en },
});

/** The names → types → sets map of a list of record sets (kept beside the zone's versions: zone/zone-sets.ts). */
export { indexSets };

export interface ViewOptions {
  /** The sets created or updated (objects of `sets`); omit to treat every set as changed (a whole-zone check). */
  readonly changedSets?: readonly RecordSet[];
  readonly changedNames?: ReadonlySet<string>;
  readonly changes?: readonly Change[];
  /** A names map already built for these sets. */
  readonly names?: ReadonlyMap<string, ReadonlyMap<RecordType, RecordSet>>;
  /** Parsed values shared between the views of one plan (before and after share most set objects). */
  readonly cache?: ViewCache;
  /** Who points where, shared between the views of one plan (it may hold sets of either). */
  readonly targetIndex?: TargetIndex;
}

export interface ViewCache {
  readonly parsed: Map<RecordSet, readonly ParsedValue[]>;
  readonly targets: Map<RecordSet, readonly string[]>;
}

export const newViewCache = (): ViewCache => ({ parsed: new Map(), targets: new Map() });

const groupByType = (sets: Iterable<RecordSet>): Map<RecordType, RecordSet[]> => {
  const byType = new Map<RecordType, RecordSet[]>();
  for (const s of sets) {
    let list = byType.get(s.type);
    if (!list) byType.set(s.type, (list = []));
    list.push(s);
  }
  return byType;
};

const NONE: readonly string[] = [];
const NO_SETS: readonly RecordSet[] = [];

const NO_NAMES: ReadonlySet<string> = new Set();

export const makeView = (origin: string, sets: readonly RecordSet[], options: ViewOptions = {}): ZoneView => {
  const names = options.names ?? indexSets(sets);
  const changedSets = options.changedSets ?? sets;
  const full = options.changedSets === undefined;
  // Built on first use (a whole import's plan changes a million sets).
  let changedObjects: Set<RecordSet> | null = null;
  let owners: string[] | null = null;
  let byType: Map<RecordType, RecordSet[]> | null = null;
  let changedByType: Map<RecordType, RecordSet[]> | null = null;
  const cache = options.cache ?? newViewCache();
  let ownIndex: TargetIndex | null = null;
  const parsed = (set: RecordSet): readonly ParsedValue[] => {
    let p = cache.parsed.get(set);
    if (!p) cache.parsed.set(set, (p = set.values.map((v) => parseValue(set.type, v, origin))));
    return p;
  };
  const targets = (set: RecordSet): readonly string[] => {
    let t = cache.targets.get(set);
    if (!t) {
      const out: string[] = [];
      for (const p of parsed(set)) {
        const d = p.data;
        const host = !d ? null : d.kind === 'host' ? d.host : d.kind === 'mx' ? d.exchange : d.kind === 'srv' ? d.target : null;
        if (host) out.push(host);
      }
      // A copy of the exact length: `out` reserved room for 16 more (a whole-zone check keeps one per set).
      cache.targets.set(set, (t = out.length === 0 ? NONE : out.slice()));
    }
    return t;
  };
  return {
    origin,
    names,
    changedSets,
    get changedOwners() {
      if (owners === null) owners = full ? [...names.keys()] : [...new Set(changedSets.map((s) => s.name))];
      return owners;
    },
    changedNames: options.changedNames ?? (full ? new Set(names.keys()) : NO_NAMES),
    changes: options.changes ?? [],
    isChanged: full
      ? () => true
      : (name, type) => {
          const s = names.get(name)?.get(type);
          return s !== undefined && (changedObjects ??= new Set(changedSets)).has(s);
        },
    get: (name, type) => names.get(name)?.get(type),
    ofType(type) {
      if (byType === null) {
        const all: RecordSet[] = [];
        for (const types of names.values()) for (const s of types.values()) all.push(s);
        byType = groupByType(all);
      }
      return byType.get(type) ?? [];
    },
    changedOfType(type) {
      if (changedByType === null) changedByType = groupByType(changedSets);
      return changedByType.get(type) ?? [];
    },
    parsed,
    pointingAt(target, type) {
      const index =
        options.targetIndex ??
        (ownIndex ??= new TargetIndex(origin, (visit) => {
          for (const types of names.values()) for (const s of types.values()) visit(s);
        }));
      let out: RecordSet[] | null = null;
      for (const s of index.candidates(target)) {
        if (s.type !== type || names.get(s.name)?.get(type) !== s || !targets(s).includes(target)) continue;
        (out ??= []).push(s);
      }
      return out ?? NO_SETS;
    },
    targets,
  };
};

/** A rule that reports the value problems (from core/dns/types/) carrying its id, for the given types. */
export const valueProblemRule = (meta: { id: string; severity: 'error' | 'warning'; rfc: string }, types: readonly RecordType[]): Rule => ({
  ...meta,
  scope: 'changed',
  check(zone) {
    const out: CheckResult[] = [];
    for (const type of types)
      for (const set of zone.changedOfType(type)) {
        for (const p of zone.parsed(set)) {
          for (const problem of p.problems)
            if (problem.rule === meta.id) out.push(result(meta, set.name, set.type, problem.en, problem.uk));
        }
      }
    return out;
  },
});
