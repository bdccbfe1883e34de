import type { Environment } from '../../kernel/environment.js';
import { DomainError } from '../../kernel/errors.js';
import { isAcmeName } from '../zone/names.js';
import type { RecordSet, RecordType } from '../zone/record-set.js';
import type { Zone } from '../zone/zone.js';
import type { ZoneSets } from '../zone/zone-sets.js';

/** One change of a plan (DESIGN: Wire formats). update and delete state the exact current set. */
export interface Change {
  readonly action: 'create' | 'update' | 'delete';
  readonly name: string;
  readonly type: RecordType;
  readonly ttl?: number;
  readonly values?: readonly string[];
  readonly current?: { readonly ttl: number; readonly values: readonly string[] };
}

/**
 * A plan's changes as the JSON text of their list (exactly JSON.stringify of the Change[]), as an import's
 * planning thread hands them over: a million changes as one string on their way to the store, rather than a
 * million objects in the API's thread.
 */
export interface ChangesJson {
  readonly json: string;
  readonly counts: { readonly create: number; readonly update: number; readonly delete: number };
}

/** The changes as a list, whichever way they came. */
export const changeList = (changes: readonly Change[] | ChangesJson): readonly Change[] =>
  Array.isArray(changes) ? changes : (JSON.parse((changes as ChangesJson).json) as Change[]);

/** A check result (the minimum rules, each with an id that names its subject). */
export interface CheckResult {
  readonly severity: 'error' | 'warning';
  readonly rule: string;
  readonly name: string;
  readonly type: string | null;
  readonly message: { readonly uk: string; readonly en: string };
}

/** A plan to store: as PlanRecord, its changes perhaps already JSON text (an import's). */
export type NewPlanRecord = Omit<PlanRecord, 'changes'> & { readonly changes: readonly Change[] | ChangesJson };

/** A plan as the store keeps it: the base it was made on, the ordered changes, every check result. */
export interface PlanRecord {
  readonly id: string;
  readonly accountId: string;
  readonly environment: Environment;
  readonly domain: string;
  readonly source: 'changes' | 'records' | 'zone_file';
  readonly baseSerial: number;
  readonly changes: readonly Change[];
  /** Every record set the plan touches, as it was when the plan was made (null: absent). */
  readonly before: ReadonlyArray<{ readonly name: string; readonly type: RecordType; readonly set: RecordSet | null }>;
  readonly checks: readonly CheckResult[];
  readonly valid: boolean;
  readonly createdAt: Date;
  readonly expiresAt: Date;
  readonly appliedAt: Date | null;
  readonly keyId: string;
}

export interface PlanCounts {
  create: number;
  update: number;
  delete: number;
  errors: number;
  warnings: number;
}

export interface PlanView {
  id: string;
  domain: string;
  source: PlanRecord['source'];
  valid: boolean;
  base_serial: number;
  changes: Change[];
  checks: CheckResult[];
  counts: PlanCounts;
  expires_at: string;
  applied_at: string | null;
}

const countsOf = (p: Pick<PlanRecord, 'changes' | 'checks'>): PlanCounts => ({
  create: p.changes.filter((c) => c.action === 'create').length,
  update: p.changes.filter((c) => c.action === 'update').length,
  delete: p.changes.filter((c) => c.action === 'delete').length,
  errors: p.checks.filter((c) => c.severity === 'error').length,
  warnings: p.checks.filter((c) => c.severity === 'warning').length,
});

const sameSet = (a: RecordSet | null | undefined, b: RecordSet | null | undefined): boolean =>
  (!a && !b) || (!!a && !!b && a.ttl === b.ttl && a.values.length === b.values.length && a.values.every((v, i) => v === b.values[i]));

/** Apex SOA is the service's and changes with every apply; _acme-challenge sets change under plans. */
const comparable = (zone: string) => (s: RecordSet) => !(s.name === zone && s.type === 'SOA') && !isAcmeName(s.name, zone);

/** What a whole-zone plan's apply compares against: every comparable set of the zone as planned. */
const wholeZoneBefore = (zone: Zone): PlanRecord['before'] =>
  zone.recordSets.filter(comparable(zone.domain)).map((s) => ({ name: s.name, type: s.type, set: s }));

/**
 * Why a plan is stale on the zone as it is now, or null when it is not: a set it touches differs from
 * what it saw (`before`), or — a whole-zone plan — a comparable set was added. One pass over the zone,
 * looking up only the plan's own names. The first difference in `before` order is named (then the first
 * added set in zone order), as DnsPlans reports it.
 */
export const staleReason = (
  plan: Pick<PlanRecord, 'domain' | 'source' | 'before'>,
  zone: Zone & { readonly sets?: ZoneSets },
): string | null => {
  // A zone already indexed: a plan of changes looks up only its own sets.
  if (zone.sets && plan.source === 'changes') {
    for (const b of plan.before) if (!sameSet(b.set, zone.sets.get(b.name, b.type))) return `${b.name} ${b.type} changed`;
    return null;
  }
  // The plan's keys, name → type → the set the zone has now (undefined: none).
  const now = new Map<string, Map<RecordType, RecordSet | undefined>>();
  for (const b of plan.before) {
    let types = now.get(b.name);
    if (!types) now.set(b.name, (types = new Map()));
    types.set(b.type, undefined);
  }
  for (const s of zone.recordSets) {
    const types = now.get(s.name);
    if (types?.has(s.type)) types.set(s.type, s);
  }
  for (const b of plan.before) if (!sameSet(b.set, now.get(b.name)!.get(b.type))) return `${b.name} ${b.type} changed`;
  if (plan.source !== 'changes') {
    const isComparable = comparable(plan.domain);
    const added = zone.recordSets.find((s) => isComparable(s) && !now.get(s.name)?.has(s.type));
    if (added) return `${added.name} ${added.type} was added`;
  }
  return null;
};

export const SAFETY = { minZoneSize: 10, maxTouchedShare: 0.3 } as const;

/**
 * Safety like octoDNS: updating or deleting more than 30% of a zone of ≥ 10 record sets needs
 * `force`. Updates and deletes count together here (octoDNS checks each share on its own; together is stricter).
 * `zoneSize` is the number of record sets in the zone now.
 */
export const isSafeChange = (zoneSize: number, changes: readonly Pick<Change, 'action'>[]): boolean => {
  if (zoneSize < SAFETY.minZoneSize) return true;
  let touched = 0;
  for (const c of changes) if (c.action !== 'create') touched++;
  return touched <= zoneSize * SAFETY.maxTouchedShare;
};

/**
 * A plan is a value (octoDNS's Plan): what it saw, what it changes, what its checks found — and it
 * answers for itself whether it is still fresh on a zone, whether it is safe to apply without `force`,
 * its counts and its view. Nothing here writes; DnsPlans stores and applies it.
 */
export class Plan implements PlanRecord {
  readonly id!: string;
  readonly accountId!: string;
  readonly environment!: Environment;
  readonly domain!: string;
  readonly source!: PlanRecord['source'];
  readonly baseSerial!: number;
  readonly changes!: readonly Change[];
  readonly before!: PlanRecord['before'];
  readonly checks!: readonly CheckResult[];
  readonly valid!: boolean;
  readonly createdAt!: Date;
  readonly expiresAt!: Date;
  readonly appliedAt!: Date | null;
  readonly keyId!: string;

  private constructor(readonly record: PlanRecord) {
    Object.assign(this, record);
  }

  static of(record: PlanRecord): Plan {
    return new Plan(record);
  }

  /** What a whole-zone plan's apply compares against: every comparable set of the zone as planned. */
  static wholeZoneBefore(zone: Zone): PlanRecord['before'] {
    return wholeZoneBefore(zone);
  }

  get counts(): PlanCounts {
    return countsOf(this);
  }

  /** Why the plan no longer fits the zone as it is now, or null (see staleReason). */
  staleReason(zone: Zone & { readonly sets?: ZoneSets }): string | null {
    return staleReason(this, zone);
  }

  /** 409 plan_stale when a set it touches changed (or, whole-zone, a set was added) since it was made. */
  assertFresh(zone: Zone & { readonly sets?: ZoneSets }): void {
    const reason = this.staleReason(zone);
    if (reason !== null) throw new DomainError('plan_stale', { domain: this.domain, reason });
  }

  /** 409 plan_unsafe when it updates or deletes too much of a zone of `zoneSize` record sets (SAFETY). */
  assertSafe(zoneSize: number): void {
    if (!isSafeChange(zoneSize, this.changes)) {
      throw new DomainError('plan_unsafe', { touched: this.changes.filter((c) => c.action !== 'create').length, size: zoneSize });
    }
  }

  /** The same plan, applied at `at`. */
  appliedOn(at: Date): Plan {
    return Plan.of({ ...this.record, appliedAt: at });
  }

  view(): PlanView {
    return {
      id: this.id,
      domain: this.domain,
      source: this.source,
      valid: this.valid,
      base_serial: this.baseSerial,
      changes: [...this.changes],
      checks: [...this.checks],
      counts: this.counts,
      expires_at: this.expiresAt.toISOString(),
      applied_at: this.appliedAt?.toISOString() ?? null,
    };
  }
}
