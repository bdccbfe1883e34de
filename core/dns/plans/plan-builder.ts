import { changeDuplicate } from '../checks/change-duplicate.js';
import { createExisting } from '../checks/create-existing.js';
import { currentMismatch } from '../checks/current-mismatch.js';
import { RULES } from '../checks/index.js';
import { inputResult } from '../checks/input-rule.js';
import { inputSyntax } from '../checks/input-syntax.js';
import { recordType, SUPPORTED_TYPES } from '../checks/record-type.js';
import { dnssecServiceOwned } from '../checks/dnssec-service-owned.js';
import { isDnssecType } from '../zone/zone-signing.js';
import { makePlanDelta, zoneRuleResults } from '../checks/plan-delta.js';
import type { Rule } from '../checks/rule.js';
import { makeView, result, type ViewCache } from '../checks/rule.js';
import { TargetIndex } from '../checks/target-index.js';
import { mixedTtl } from '../checks/rrset-ttl.js';
import { canonicalKey, isAcmeChallengeName, normalizeOrigin, resolveName } from '../zone/names.js';
import type { Change, CheckResult } from './plan.js';
import type { RecordSet, RecordType } from '../zone/record-set.js';
import { isRecordType, RECORD_TYPES, rrsetKey } from '../zone/record-set.js';
import type { ParsedValue } from '../zone/values.js';
import { canonicalValue, parseValue, sameValues } from '../zone/values.js';
import { OverlayMap } from '../zone/names-overlay.js';
import { TypeMap } from './type-map.js';
import { ZoneSets, type NameIndex } from '../zone/zone-sets.js';
import { parseZoneFile } from '../zone/zone-file.js';

/** TTL of a created set when the input names none (Route 53 and Cloudflare users expect one; an hour is BIND's usual). */
export const DEFAULT_TTL = 3600;

/** The account's cap on a zone's size (ZONE_RECORD_LIMIT): a plan may shrink an oversized zone, never grow it. */
const zoneRecordLimit = (origin: string, size: number, max: number): CheckResult => ({
  severity: 'error',
  rule: 'zone-record-limit',
  name: origin,
  type: null,
  message: {
    uk: `Після цього плану зона матиме ${size} наборів записів, а межа — ${max} на зону. Видаліть непотрібні записи або розділіть план.`,
    en: `After this plan the zone would hold ${size} record sets; the limit is ${max} per zone. Delete records you no longer need or split the plan.`,
  },
});

/** One change as the API receives it (DESIGN "Wire formats"): names relative, absolute or `@`. */
export interface ChangeInput {
  readonly action: string;
  readonly name: string;
  readonly type: string;
  readonly ttl?: number;
  readonly values?: readonly string[];
  readonly current?: { readonly ttl: number; readonly values: readonly string[] };
}

/** A planned change back as the input that states it (a stored plan re-checked, or edited further as a draft). */
export const inputOf = (c: Change): ChangeInput => ({
  action: c.action,
  name: c.name,
  type: c.type,
  ...(c.ttl !== undefined ? { ttl: c.ttl } : {}),
  ...(c.values ? { values: [...c.values] } : {}),
  ...(c.current ? { current: { ttl: c.current.ttl, values: [...c.current.values] } } : {}),
});

/** One record set of a whole desired zone (`records`). */
export interface RecordSetInput {
  readonly name: string;
  readonly type: string;
  readonly ttl?: number;
  readonly values: readonly string[];
}

export type PlanInput =
  | { readonly changes: readonly ChangeInput[] }
  | { readonly records: readonly RecordSetInput[] }
  | { readonly zone_file: string }
  /**
   * A zone file already read (an import streams it through ZoneFileParser): planned as `zone_file` is. Its
   * sets are iterated once (ZoneFileParser.drain hands them out and lets each go).
   */
  | { readonly parsed: { readonly recordSets: Iterable<RecordSet>; readonly results: readonly CheckResult[] } };

export interface PlanCounts {
  readonly create: number;
  readonly update: number;
  readonly delete: number;
  readonly errors: number;
  readonly warnings: number;
}

/** What buildPlan computes; the use case adds id, base serial and times to make a Plan (core/dns/plan.ts). */
export interface BuiltPlan {
  readonly source: 'changes' | 'records' | 'zone_file';
  /** Deletes, then updates, then creates; each by name (DNS canonical order, RFC 4034 §6.1) then type. */
  readonly changes: Change[];
  /** Every set the plan touches as it is now (null: absent), in the order of `changes`. */
  readonly before: Array<{ name: string; type: RecordType; set: RecordSet | null }>;
  /** The whole zone after the changes. */
  readonly after: RecordSet[];
  /** Errors first, then warnings; each group by name and type. */
  readonly checks: CheckResult[];
  readonly valid: boolean;
  readonly counts: PlanCounts;
}

const ACTIONS = ['create', 'update', 'delete'] as const;
/** Each record type's name, one string each. */
const TYPE_NAMES: ReadonlyMap<string, RecordType> = new Map(RECORD_TYPES.map((t) => [t, t]));
const ZONE_RULES = RULES.filter((r) => r.scope === 'zone');
const isApexOwned = (name: string, type: string, origin: string): boolean => name === origin && (type === 'SOA' || type === 'NS');
const isTextList = (v: unknown): v is readonly string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');
const shownValues = (values: readonly string[]): string => {
  const s = JSON.stringify(values);
  return s.length > 200 ? `${s.slice(0, 200)}…` : s;
};

interface Draft {
  changes: Change[];
  results: CheckResult[];
}

type Index = NameIndex;

/**
 * The parsed values of a plan's sets and changes (a change that states its TTL and values is the set it
 * makes), primed from the input and filled by the rules' views: most values are parsed once per plan. An
 * address, a text or one host name (CNAME, NS, PTR, DNAME, MX) is not kept: parsing one again (a pattern test,
 * a name's syntax) costs less than holding it — some 180 bytes a set for an address, 220–260 for a name with its
 * parts — a million of them in a large import (measured: no slower for it, and 100 MB less at the peak of a
 * million-record import's checks).
 */
class ParsedCache extends Map<object, readonly ParsedValue[]> {
  override set(key: object, parsed: readonly ParsedValue[]): this {
    const type = (key as { readonly type?: unknown }).type;
    return typeof type === 'string' && UNKEPT_PARSED.has(type) ? this : super.set(key, parsed);
  }
}

/** The types whose parsed values a plan does not keep (see ParsedCache). */
const UNKEPT_PARSED: ReadonlySet<string> = new Set(['A', 'AAAA', 'TXT', 'SPF', 'CNAME', 'NS', 'PTR', 'DNAME', 'MX']);

/** The hosts a set points at, derived from its parsed values on each use (cheap): not kept, for the same reason. */
class Unkept<K, V> extends Map<K, V> {
  override set(): this {
    return this;
  }
}

type ParsedByChange = ParsedCache;

const canonicalAll = (type: RecordType, values: readonly string[], origin: string): string[] =>
  values.map((v) => canonicalValue(type, v, origin));
const parseAll = (type: RecordType, values: readonly string[], origin: string): ParsedValue[] =>
  values.map((v) => parseValue(type, v, origin));

/** The three input forms end here: changes with resolved names and canonical values, plus input problems. */
const fromChanges = (origin: string, current: Index, inputs: readonly ChangeInput[], parsedBy: ParsedByChange): Draft => {
  const changes: Change[] = [];
  const results: CheckResult[] = [];
  const seen = new Set<string>();
  if (!Array.isArray(inputs)) {
    results.push(inputResult(inputSyntax, origin, null, '"changes" must be a list of changes.', '«changes» має бути списком змін.'));
    return { changes, results };
  }
  for (const c of inputs) {
    const rawName = typeof c?.name === 'string' ? c.name : String(c?.name);
    if (!c || typeof c !== 'object' || !(ACTIONS as readonly string[]).includes(c.action)) {
      results.push(
        inputResult(
          inputSyntax,
          rawName,
          typeof c?.type === 'string' ? c.type : null,
          `A change's action is create, update or delete, not ${JSON.stringify(c?.action)}.`,
          `Дія зміни — create, update або delete, а не ${JSON.stringify(c?.action)}.`,
        ),
      );
      continue;
    }
    const action = c.action as Change['action'];
    if (isDnssecType(c.type)) {
      results.push(dnssecOwned(rawName, c.type));
      continue;
    }
    if (!isRecordType(c.type)) {
      results.push(
        inputResult(
          recordType,
          rawName,
          typeof c.type === 'string' ? c.type : null,
          `Unsupported record type ${JSON.stringify(c.type)}; supported: ${SUPPORTED_TYPES}.`,
          `Непідтримуваний тип запису ${JSON.stringify(c.type)}; підтримуються: ${SUPPORTED_TYPES}.`,
        ),
      );
      continue;
    }
    const type = c.type;
    const resolved = resolveName(c.name, origin);
    if (!resolved.ok) {
      results.push(result({ id: resolved.problem.rule, severity: 'error' }, rawName, type, resolved.problem.en, resolved.problem.uk));
      continue;
    }
    const name = resolved.name;
    const key = rrsetKey(name, type);
    if (seen.has(key)) {
      results.push(
        inputResult(
          changeDuplicate,
          name,
          type,
          `More than one change touches the ${type} set at ${name}; make one change per record set.`,
          `Набір ${type} на ${name} змінюють кілька змін; робіть одну зміну на набір записів.`,
        ),
      );
      continue;
    }
    seen.add(key);
    const existing = current.get(name)?.get(type);

    let values: string[] | undefined;
    let parsed: ParsedValue[] | undefined;
    if (action !== 'delete') {
      if (!isTextList(c.values) || c.values.length === 0) {
        results.push(
          inputResult(
            inputSyntax,
            name,
            type,
            `A ${action} needs "values": a non-empty list of text values (to remove a set, delete it).`,
            `Для ${action} потрібне поле «values» — непорожній список текстових значень (щоб прибрати набір, видаліть його).`,
          ),
        );
        continue;
      }
      parsed = parseAll(type, c.values, origin);
      values = parsed.map((p) => p.canonical);
    }
    if (c.ttl !== undefined && typeof c.ttl !== 'number') {
      results.push(inputResult(inputSyntax, name, type, '"ttl" must be a number of seconds.', '«ttl» має бути числом секунд.'));
      continue;
    }

    let stated: { ttl: number; values: readonly string[] } | undefined;
    if (action !== 'create') {
      const cur = c.current;
      if (!cur || typeof cur !== 'object' || typeof cur.ttl !== 'number' || !isTextList(cur.values)) {
        results.push(
          inputResult(
            currentMismatch,
            name,
            type,
            `An ${action} must state the set it replaces: "current": {"ttl", "values"} exactly as the zone has it now.`,
            `Зміна ${action} має вказати набір, який вона замінює: «current»: {"ttl", "values"} точно так, як він є в зоні зараз.`,
          ),
        );
      } else {
        stated = { ttl: cur.ttl, values: canonicalAll(type, cur.values, origin) };
        const matches =
          existing !== undefined &&
          existing.ttl === stated.ttl &&
          (sameValues(existing.values, cur.values) || sameValues(canonicalAll(type, existing.values, origin), stated.values));
        if (!matches) {
          const actual = existing ? `ttl ${existing.ttl}, values ${shownValues(existing.values)}` : 'no such set';
          const actualUk = existing ? `ttl ${existing.ttl}, значення ${shownValues(existing.values)}` : 'такого набору немає';
          results.push(
            inputResult(
              currentMismatch,
              name,
              type,
              `The ${type} set at ${name} is not what the change states (stated: ttl ${stated.ttl}, values ${shownValues(stated.values)}; now: ${actual}). Plan again from the zone as it is.`,
              `Набір ${type} на ${name} не такий, як зазначено в зміні (зазначено: ttl ${stated.ttl}, значення ${shownValues(stated.values)}; зараз: ${actualUk}). Складіть план заново з поточного стану зони.`,
            ),
          );
        }
      }
    } else if (existing) {
      results.push(
        inputResult(
          createExisting,
          name,
          type,
          `The ${type} set at ${name} already exists; update it, stating its current values.`,
          `Набір ${type} на ${name} уже існує; оновіть його (update), вказавши його поточні значення.`,
        ),
      );
    }

    const current_ = existing
      ? { ttl: existing.ttl, values: [...existing.values] }
      : stated
        ? { ttl: stated.ttl, values: [...stated.values] }
        : undefined;
    let change: Change;
    if (action === 'create') change = { action, name, type, ttl: c.ttl ?? DEFAULT_TTL, values: values! };
    else if (action === 'update') {
      const ttl = c.ttl ?? existing?.ttl ?? stated?.ttl ?? DEFAULT_TTL;
      change = current_ ? { action, name, type, ttl, values: values!, current: current_ } : { action, name, type, ttl, values: values! };
    } else change = current_ ? { action, name, type, current: current_ } : { action, name, type };
    changes.push(change);
    if (parsed) parsedBy.set(change, parsed);
  }
  return { changes, results };
};

interface Desired {
  name: string;
  type: RecordType;
  ttl: number;
  values: string[];
  parsed: ParsedValue[];
  /** Every TTL seen, only once a second one differs (RFC 2181 §5.2). */
  ttls: number[] | null;
}

/** The desired sets in input order, found by name then type (no key string built per record). */
class DesiredSets {
  readonly list: Desired[] = [];
  private readonly byName = new Map<string, Desired | Desired[]>();

  get(name: string, type: RecordType): Desired | undefined {
    const at = this.byName.get(name);
    if (at === undefined) return undefined;
    if (!Array.isArray(at)) return at.type === type ? at : undefined;
    for (const d of at) if (d.type === type) return d;
    return undefined;
  }

  add(d: Desired): void {
    this.list.push(d);
    const at = this.byName.get(d.name);
    if (at === undefined) this.byName.set(d.name, d);
    else if (Array.isArray(at)) at.push(d);
    else this.byName.set(d.name, [at, d]);
  }
}

const ANY = /x/;
/**
 * A value built of pieces (an MX's "10 " and its host) is a tree of strings until something reads it flat;
 * a pattern test does, in place, and the collector then keeps the flat string only: some 50 bytes instead of
 * 120 for each of the values a large import holds until its checks are done.
 */
const flatten = (s: string): void => void ANY.test(s);

/** One desired set against the zone's set of its name and type: a create, an update, or null (the same). */
const diffOne = (
  origin: string,
  existing: RecordSet | undefined,
  name: string,
  type: RecordType,
  ttl: number,
  parsed: readonly ParsedValue[],
  values: string[] = parsed.map((p) => p.canonical),
): Change | null => {
  if (!existing) return { action: 'create', name, type, ttl, values };
  if (existing.ttl === ttl && (sameValues(existing.values, values) || sameValues(canonicalAll(type, existing.values, origin), values)))
    return null;
  return { action: 'update', name, type, ttl, values, current: { ttl: existing.ttl, values: [...existing.values] } };
};

/** Whole-zone inputs: group into sets (one TTL per set), then diff against the zone. */
const fromDesired = (origin: string, current: ZoneSets, currentNames: Index, desired: DesiredSets, parsedBy: ParsedByChange): Change[] => {
  const changes: Change[] = [];
  for (const d of desired.list) {
    const change = diffOne(origin, currentNames.get(d.name)?.get(d.type), d.name, d.type, d.ttl, d.parsed, d.values);
    if (change) {
      changes.push(change);
      parsedBy.set(change, d.parsed);
    }
  }
  current.forEach((s) => {
    if (isApexOwned(s.name, s.type, origin) || isAcmeChallengeName(s.name)) return;
    if (!desired.get(s.name, s.type))
      changes.push({ action: 'delete', name: s.name, type: s.type, current: { ttl: s.ttl, values: [...s.values] } });
  });
  return changes;
};

const addDesired = (desired: DesiredSets, origin: string, name: string, type: RecordType, ttl: number, values: readonly string[]): void => {
  // A whole-zone plan leaves apex SOA/NS (the service's) and _acme-challenge names (ACME clients') alone.
  if (isApexOwned(name, type, origin) || isAcmeChallengeName(name)) return;
  const parsed = parseAll(type, values, origin);
  const canonical = parsed.map((p) => p.canonical);
  const d = desired.get(name, type);
  if (!d) desired.add({ name, type, ttl, values: canonical, parsed, ttls: null });
  else {
    d.values.push(...canonical);
    d.parsed.push(...parsed);
    if (ttl !== d.ttl && !d.ttls?.includes(ttl)) d.ttls = [...(d.ttls ?? [d.ttl]), ttl];
  }
};

const fromRecords = (origin: string, inputs: readonly RecordSetInput[]): { desired: DesiredSets; results: CheckResult[] } => {
  const desired = new DesiredSets();
  const results: CheckResult[] = [];
  if (!Array.isArray(inputs)) {
    results.push(
      inputResult(inputSyntax, origin, null, '"records" must be a list of record sets.', '«records» має бути списком наборів записів.'),
    );
    return { desired, results };
  }
  for (const r of inputs) {
    const rawName = typeof r?.name === 'string' ? r.name : String(r?.name);
    if (r && typeof r === 'object' && isDnssecType(r.type)) {
      results.push(dnssecOwned(rawName, r.type));
      continue;
    }
    if (!r || typeof r !== 'object' || !isRecordType(r.type)) {
      results.push(
        inputResult(
          recordType,
          rawName,
          typeof r?.type === 'string' ? r.type : null,
          `Unsupported record type ${JSON.stringify(r?.type)}; supported: ${SUPPORTED_TYPES}.`,
          `Непідтримуваний тип запису ${JSON.stringify(r?.type)}; підтримуються: ${SUPPORTED_TYPES}.`,
        ),
      );
      continue;
    }
    const resolved = resolveName(r.name, origin);
    if (!resolved.ok) {
      results.push(result({ id: resolved.problem.rule, severity: 'error' }, rawName, r.type, resolved.problem.en, resolved.problem.uk));
      continue;
    }
    if (!isTextList(r.values) || r.values.length === 0 || (r.ttl !== undefined && typeof r.ttl !== 'number')) {
      results.push(
        inputResult(
          inputSyntax,
          resolved.name,
          r.type,
          'A record set needs "values" (a non-empty list of text values) and a numeric "ttl".',
          'Набір записів потребує «values» (непорожній список текстових значень) і числового «ttl».',
        ),
      );
      continue;
    }
    addDesired(desired, origin, resolved.name, r.type, r.ttl ?? DEFAULT_TTL, r.values);
  }
  return { desired, results };
};

/**
 * A zone file's sets as the desired zone, diffed: the changes it makes to the zone, with their parsed values.
 * The file's sets come one per name and type (the parser merges a set's records), so each is diffed as it
 * comes and let go — only the changes are kept, and of the zone now only which sets the file also has (what
 * fromDesired finds through the desired sets, without an index of the desired zone by name).
 */
const fromZoneFile = (
  origin: string,
  current: ZoneSets,
  parsed: { readonly recordSets: Iterable<RecordSet>; readonly results: readonly CheckResult[] },
  parsedBy: ParsedByChange,
): Draft => {
  const currentNames = current.names;
  const changes: Change[] = [];
  // The sets of the zone now that the file has too (by name and type): every other one is deleted.
  const kept = new Set<RecordSet>();
  // The owner name as the changes keep it: one string for the sets of a name that come one after another
  // (the parser's come in the file's order), a copy of its own — the parser's is a slice of a longer string,
  // which it would keep alive — and the type as the one constant string of its kind.
  let name = '';
  for (const s of parsed.recordSets) {
    // A whole-zone plan leaves apex SOA/NS (the service's) and _acme-challenge names (ACME clients') alone.
    if (isApexOwned(s.name, s.type, origin) || isAcmeChallengeName(s.name)) continue;
    if (s.name !== name) name = JSON.parse(JSON.stringify(s.name)) as string;
    const type = TYPE_NAMES.get(s.type) ?? s.type;
    const values = parseAll(type, s.values, origin);
    for (const v of values) flatten(v.canonical);
    const existing = currentNames.get(name)?.get(type);
    const change = diffOne(origin, existing, name, type, s.ttl, values);
    if (existing) kept.add(existing);
    if (change) {
      changes.push(change);
      parsedBy.set(change, values);
    }
  }
  current.forEach((s) => {
    if (isApexOwned(s.name, s.type, origin) || isAcmeChallengeName(s.name)) return;
    const now = currentNames.get(s.name)?.get(s.type);
    if (now === undefined || !kept.has(now))
      changes.push({ action: 'delete', name: s.name, type: s.type, current: { ttl: s.ttl, values: [...s.values] } });
  });
  return { changes, results: [...parsed.results] };
};

const mixedTtls = (desired: DesiredSets): CheckResult[] => {
  const out: CheckResult[] = [];
  for (const d of desired.list) if (d.ttls) out.push(mixedTtl(d.name, d.type, d.ttls));
  return out;
};

const ORDER: Record<Change['action'], number> = { delete: 0, update: 1, create: 2 };

const sortChanges = (changes: Change[]): Change[] => {
  // Sorts positions (stable, like sorting the changes), with the keys beside them: no wrapper per change.
  const keys = changes.map((c) => canonicalKey(c.name));
  const order = changes.map((_, i) => i);
  order.sort((i, j) => {
    const a = changes[i]!;
    const b = changes[j]!;
    const ka = keys[i]!;
    const kb = keys[j]!;
    return ORDER[a.action] - ORDER[b.action] || (ka < kb ? -1 : ka > kb ? 1 : 0) || (a.type < b.type ? -1 : a.type > b.type ? 1 : 0);
  });
  return order.map((i) => changes[i]!);
};

const sortChecks = (checks: CheckResult[]): CheckResult[] => {
  const keyed = checks.map((r) => ({
    r,
    k: `${r.severity === 'error' ? 0 : 1}\u0001${canonicalKey(r.name)}\u0001${r.type ?? ''}\u0001${r.rule}`,
  }));
  keyed.sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : 0));
  return keyed.map((x) => x.r);
};

/** Apply changes to a zone (pure): deletes remove, creates and updates set the values. Order of the zone is kept. */
export const applyChanges = (current: readonly RecordSet[], changes: readonly Change[]): RecordSet[] => {
  const byKey = new Map<string, RecordSet>();
  for (const s of current) byKey.set(rrsetKey(s.name, s.type), s);
  for (const c of changes) {
    const key = rrsetKey(c.name, c.type);
    if (c.action === 'delete') byKey.delete(key);
    else byKey.set(key, { name: c.name, type: c.type, ttl: c.ttl ?? byKey.get(key)?.ttl ?? DEFAULT_TTL, values: [...(c.values ?? [])] });
  }
  return [...byKey.values()];
};

/** octoDNS's safety thresholds (Plan.raise_if_unsafe): zones of at least 10 sets, 30% of them. */
export { isSafeChange, SAFETY } from './plan.js';

/**
 * Every check rule over a whole zone, as if every set were new (an import, or a sanity check of a stored zone).
 */
export const checkZone = (origin: string, sets: readonly RecordSet[], rules: readonly Rule[] = RULES): CheckResult[] =>
  sortChecks(rules.flatMap((r) => r.check(makeView(normalizeOrigin(origin), sets))));

/**
 * Build a plan (writes nothing): resolve the input into ordered changes, apply them to a copy of the zone and
 * run every check. Results on record sets the plan does not touch that were already there are left out, so
 * an old problem elsewhere in the zone never blocks an unrelated plan; problems the plan introduces anywhere
 * (e.g. deleting a glue A) are reported.
 */
export const buildPlan = (args: {
  origin: string;
  /** The zone now: its sets, or its sets already indexed (a zone kept between plans: zone/zone-cache.ts). */
  current: readonly RecordSet[] | ZoneSets;
  input: PlanInput;
  /**
   * How the zone rules run: on the names the plan can reach ('incremental'), or on the whole zone before and
   * after ('whole'). The results are the same; by default a plan touching under a quarter of the zone's
   * names runs incrementally. Tests force each to compare them.
   */
  zoneRules?: 'auto' | 'incremental' | 'whole';
  /** ZONE_RECORD_LIMIT: record sets a zone may hold; a plan that grows the zone past it is invalid. */
  maxRecordSets?: number;
}): BuiltPlan => {
  const origin = normalizeOrigin(args.origin);
  const { input } = args;
  const current = args.current instanceof ZoneSets ? args.current : ZoneSets.of(args.current);
  const currentNames = current.names;
  const parsedBy = new ParsedCache();

  let source: BuiltPlan['source'];
  let draft: Draft;
  if ('changes' in input) {
    source = 'changes';
    draft = fromChanges(origin, currentNames, input.changes, parsedBy);
  } else if ('records' in input) {
    source = 'records';
    const { desired, results } = fromRecords(origin, input.records);
    draft = { changes: fromDesired(origin, current, currentNames, desired, parsedBy), results: [...results, ...mixedTtls(desired)] };
  } else if (('zone_file' in input && typeof input.zone_file === 'string') || 'parsed' in input) {
    source = 'zone_file';
    draft = fromZoneFile(origin, current, 'parsed' in input ? input.parsed : parseZoneFile(input.zone_file, origin), parsedBy);
  } else {
    // Never read a malformed input as "an empty desired zone": that would delete everything.
    source = 'zone_file';
    draft = {
      changes: [],
      results: [
        inputResult(
          inputSyntax,
          origin,
          null,
          'A plan needs "changes", "records" or "zone_file" (text).',
          'План потребує «changes», «records» або «zone_file» (текст).',
        ),
      ],
    };
  }

  const changes = sortChanges(draft.changes);
  const changedNames = new Set<string>();
  for (const c of changes) changedNames.add(c.name);
  // A plan touching few of the zone's names is checked incrementally (core/dns/checks/plan-delta.ts).
  const mode = args.zoneRules ?? 'auto';
  const incremental = changes.length > 0 && (mode === 'incremental' || (mode === 'auto' && changedNames.size * 4 <= currentNames.size));
  // The zone after the changes: the index with only the touched names copied deeper — for a small plan an
  // overlay on it (same entries, same order), so that a change to a zone of 100k sets does not copy it.
  const afterNames: Map<string, ReadonlyMap<RecordType, RecordSet>> | OverlayMap<string, ReadonlyMap<RecordType, RecordSet>> = incremental
    ? new OverlayMap(currentNames)
    : new Map(currentNames);
  // The parsed values of the changes are the parsed values of the sets they make: a change that states its
  // TTL and values is itself the set it makes (read-only, as every set), so one map serves both.
  const cache: ViewCache = { parsed: parsedBy as unknown as ViewCache['parsed'], targets: new Unkept() };
  const changedSets: RecordSet[] = [];
  for (const c of changes) {
    // The index's own maps are never changed: a name's map is copied once, on its first change (a map of this
    // plan's is never the index's).
    let types = afterNames.get(c.name) as TypeMap<RecordSet> | undefined;
    if (types === undefined || types === currentNames.get(c.name)) {
      types = new TypeMap<RecordSet>(types);
      afterNames.set(c.name, types);
    }
    if (c.action === 'delete') {
      types.delete(c.type);
      if (types.size === 0) afterNames.delete(c.name);
      continue;
    }
    let set: RecordSet;
    if (c.ttl !== undefined && c.values !== undefined) set = c as RecordSet;
    else {
      // The change's values array, shared: both are read-only.
      set = { name: c.name, type: c.type, ttl: c.ttl ?? types.get(c.type)?.ttl ?? DEFAULT_TTL, values: c.values ?? [] };
      const parsed = parsedBy.get(c);
      if (parsed) cache.parsed.set(set, parsed);
    }
    types.set(c.type, set);
    changedSets.push(set);
  }
  // Who points where, over the sets of both views (built only if a rule asks).
  const targetIndex = new TargetIndex(origin, (visit) => {
    current.forEach(visit);
    for (const s of changedSets) visit(s);
  });
  const afterView = makeView(origin, [], { names: afterNames, changedSets, changedNames, changes, cache, targetIndex });
  const checks: CheckResult[] = [...draft.results];
  for (const rule of RULES) if (rule.scope === 'changed') checks.push(...rule.check(afterView));
  if (changes.length > 0) {
    const beforeView = makeView(origin, [], { names: currentNames, changedSets: [], changedNames: new Set(), cache, targetIndex });
    const delta = incremental
      ? makePlanDelta({ origin, before: beforeView, after: afterView, changes, changedNames, changedSets, targetIndex })
      : null;
    checks.push(...zoneRuleResults(ZONE_RULES, beforeView, afterView, changedNames, delta));
  }

  if (args.maxRecordSets !== undefined) {
    let size = current.size;
    for (const c of changes) {
      const had = currentNames.get(c.name)?.has(c.type) ?? false;
      if (c.action === 'delete' && had) size--;
      else if (c.action !== 'delete' && !had) size++;
    }
    if (size > args.maxRecordSets && size > current.size) checks.push(zoneRecordLimit(origin, size, args.maxRecordSets));
  }

  const sorted = sortChecks(checks);
  let errors = 0;
  for (const c of sorted) if (c.severity === 'error') errors++;
  const counts: PlanCounts = {
    create: changes.filter((c) => c.action === 'create').length,
    update: changes.filter((c) => c.action === 'update').length,
    delete: changes.filter((c) => c.action === 'delete').length,
    errors,
    warnings: sorted.length - errors,
  };
  let after: RecordSet[] | null = null;
  return {
    source,
    changes,
    before: changes.map((c) => ({ name: c.name, type: c.type, set: currentNames.get(c.name)?.get(c.type) ?? null })),
    // Listed on first use only (the use cases never need it; a one-change plan should not walk the zone for it).
    get after() {
      if (after === null) {
        after = [];
        // A set that is its change is listed as a plain set.
        for (const types of afterNames.values())
          for (const s of types.values()) after.push('action' in s ? { name: s.name, type: s.type, ttl: s.ttl, values: s.values } : s);
      }
      return after;
    },
    checks: sorted,
    valid: errors === 0,
    counts,
  };
};

/** A DNSSEC type in a plan: the service's own (DESIGN: DNSSEC), with the reason and where it is managed. */
const dnssecOwned = (name: string, type: string): CheckResult =>
  inputResult(
    dnssecServiceOwned,
    name,
    type,
    `${type} records belong to the service: it makes them when it signs the zone. Switch DNSSEC on or off with PUT or DELETE /v1/domains/{domain}/dnssec.`,
    `Записи ${type} належать сервісу: він створює їх, коли підписує зону. Вмикайте й вимикайте DNSSEC через PUT або DELETE /v1/domains/{domain}/dnssec.`,
  );
