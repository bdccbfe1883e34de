import type { RecordingDeps } from '../../kernel/recording-deps.js';
import type { Authorizer } from '../../access/authorize.js';
import { actorOf, type ApiKey } from '../../kernel/caller.js';
import { normalizeDomain } from '../../kernel/domain-name.js';
import { DomainError } from '../../kernel/errors.js';
import { transientCheckpoints, type Checkpoints } from '../../kernel/checkpoints.port.js';
import { assertAcmeOnly, assertAcmeOnlyInput, dnsAccess } from '../dns-access.js';
import { buildPlan, inputOf, type ChangeInput, type PlanInput } from './plan-builder.js';
import { isSafeChange, Plan, type CheckResult, type NewPlanRecord, type PlanRecord, type PlanView } from './plan.js';

export type { PlanView };
import type { PlanRepository, ZoneRepository } from '../ports/zone-repository.port.js';
import type { RecordSet, RecordType } from '../zone/record-set.js';
import { ZONE_BUSY_RETRY_AFTER_S, ZoneChanged, type ZoneService } from '../zone/zone-service.js';
import type { IndexedZone, StoredZone } from '../zone/zone.js';
import type { ZoneSets } from '../zone/zone-sets.js';
import type { ImportedPlan } from '../ports/zone-import.port.js';
import type { Environment } from '../../kernel/environment.js';

export const PLAN_LIFETIME_MS = 3600_000;

/** Whose plan it is: the calling key, or (an import finishing after its request) the account, environment and key that asked. */
export type PlanOwner = ApiKey | { readonly accountId: string; readonly environment: Environment; readonly keyId: string };

/** What DnsPlans is built from (one object, named, instead of positions). */
export interface DnsPlansDeps extends RecordingDeps {
  readonly zones: ZoneRepository;
  readonly plans: PlanRepository;
  readonly zoneService: ZoneService;
  readonly authorizer: Authorizer;
  /** ZONE_RECORD_LIMIT (none: unbounded). */
  readonly maxRecordSets?: number;
}

/**
 * DNS plans: a plan writes nothing; apply writes it atomically, only if every record set it
 * touches is unchanged since it was made (a whole-zone plan: nothing outside _acme-challenge changed)
 * and its checks still pass on the zone as it is now — otherwise 409 plan_stale. So an ACME value
 * written meanwhile does not stale unrelated plans, while two plans racing for one record set cannot
 * both win (the zone's serial is a compare-and-set).
 */
export class DnsPlans {
  constructor(private readonly deps: DnsPlansDeps) {}

  private limit(): { maxRecordSets?: number } {
    return this.deps.maxRecordSets !== undefined ? { maxRecordSets: this.deps.maxRecordSets } : {};
  }

  /** The zone indexed, through the zone service's cache (a plan on a zone of 100k sets need not read them). */
  private async zoneOf(key: ApiKey, domain: string): Promise<IndexedZone> {
    const zone = await this.deps.zoneService.indexed(key.accountId, key.environment, domain);
    if (!zone) throw new DomainError('domain_not_found', { domain });
    return zone;
  }

  async create(key: ApiKey, domainInput: string, input: PlanInput): Promise<PlanView> {
    const domain = normalizeDomain(domainInput);
    const access = await dnsAccess(this.deps.authorizer, key, domain);
    if (access === 'acme-only' && !('changes' in input))
      throw new DomainError('right_missing', { right: 'dns.edit', domain, change: 'a whole-zone plan' });
    // Refused by right before anything is read or parsed: a key may not make us parse values it could never write.
    if (access === 'acme-only' && 'changes' in input) assertAcmeOnlyInput(input.changes, domain);
    const zone = await this.zoneOf(key, domain);
    return this.planOn(key, zone, input, access === 'acme-only');
  }

  /**
   * A plan from a zone file an import reads (DESIGN "Zone import"): an ordinary unapplied whole-zone plan,
   * made for the key that started the import (its dns.edit was checked then), applied through the plan
   * routes. `build` makes it on the zone's sets as read here (the import's planner, perhaps on another
   * thread); the plan's base is that version of the zone, so a change meanwhile makes it stale at apply.
   * Answers the plan's id and counts only: the changes (perhaps a million, perhaps JSON text from the thread)
   * go to the store as they came, never built into a view here.
   */
  async createImported(
    owner: PlanOwner,
    domain: string,
    build: (current: ZoneSets, limits: { readonly maxRecordSets?: number }) => Promise<ImportedPlan>,
  ): Promise<{ readonly id: string; readonly valid: boolean }> {
    const zone = await this.deps.zoneService.indexed(owner.accountId, owner.environment, domain);
    if (!zone) throw new DomainError('domain_not_found', { domain });
    const built = await build(zone.sets, this.limit());
    const record = this.record(owner, zone, { source: 'zone_file', ...built, before: Plan.wholeZoneBefore(zone) });
    await this.deps.plans.insert(record);
    return { id: record.id, valid: record.valid };
  }

  private async planOn(owner: PlanOwner, zone: IndexedZone, input: PlanInput, acmeOnly: boolean): Promise<PlanView> {
    const domain = zone.domain;
    const built = buildPlan({ origin: domain, current: zone.sets, input, ...this.limit() });
    if (acmeOnly) assertAcmeOnly(built.changes, domain, domain);
    // What apply compares against: the touched sets, or for a whole-zone plan every comparable set.
    const before = 'changes' in input ? built.before : Plan.wholeZoneBefore(zone);
    return this.store(owner, zone, { source: built.source, changes: built.changes, checks: built.checks, valid: built.valid, before });
  }

  private async store(
    owner: PlanOwner,
    zone: IndexedZone,
    built: Pick<PlanRecord, 'source' | 'changes' | 'checks' | 'valid' | 'before'>,
  ): Promise<PlanView> {
    const plan = Plan.of(this.record(owner, zone, built) as PlanRecord);
    await this.deps.plans.insert(plan.record);
    return plan.view();
  }

  /** The plan to store: its id, owner, base and lifetime around what was built. */
  private record(
    owner: PlanOwner,
    zone: IndexedZone,
    built: Pick<NewPlanRecord, 'source' | 'changes' | 'checks' | 'valid' | 'before'>,
  ): NewPlanRecord {
    const now = this.deps.clock.now();
    return {
      id: this.deps.random.id(),
      accountId: owner.accountId,
      environment: owner.environment,
      domain: zone.domain,
      keyId: 'keyId' in owner ? owner.keyId : owner.id,
      source: built.source,
      baseSerial: zone.serial,
      changes: built.changes,
      before: built.before,
      checks: built.checks,
      valid: built.valid,
      createdAt: now,
      expiresAt: new Date(now.getTime() + PLAN_LIFETIME_MS),
      appliedAt: null,
    };
  }

  /**
   * A plan made and applied at once on a zone already read (DNS UPDATE, core/dns/update): the same right,
   * build, checks and safety as `create` then `apply`, but no second read of the zone or of the plan —
   * the plan is stored already applied, in the one transaction that commits the zone, its dns.plan_applied
   * event and `alongside` (what must commit or roll back with the change). Only if the zone is still at
   * the serial it was read at: otherwise 409 plan_stale and nothing written. A plan its checks find invalid
   * is stored unapplied and returned (valid false), as `create` stores it; an unsafe one is stored, then 409.
   */
  async createApplied(
    key: ApiKey,
    zone: IndexedZone,
    input: { readonly changes: readonly ChangeInput[] },
    alongside?: () => Promise<void>,
  ): Promise<PlanView & { serial?: number }> {
    const domain = zone.domain;
    const access = await dnsAccess(this.deps.authorizer, key, domain);
    if (access === 'acme-only') assertAcmeOnlyInput(input.changes, domain);
    const built = buildPlan({ origin: domain, current: zone.sets, input, ...this.limit() });
    if (access === 'acme-only') assertAcmeOnly(built.changes, domain, domain);
    const plan = Plan.of(this.record(key, zone, built) as PlanRecord);
    const now = plan.record.createdAt;
    const safe = isSafeChange(zone.sets.size, plan.changes);
    if (!plan.valid || !safe) {
      await this.deps.plans.insert(plan.record);
      if (plan.valid) plan.assertSafe(zone.sets.size);
      return plan.view();
    }
    const upserts: RecordSet[] = [];
    const deletes: Array<{ name: string; type: RecordType }> = [];
    for (const c of plan.changes) {
      if (c.action === 'delete') deletes.push({ name: c.name, type: c.type });
      else upserts.push({ name: c.name, type: c.type, ttl: c.ttl!, values: [...(c.values ?? [])] });
    }
    const applied = plan.appliedOn(now);
    let next: StoredZone;
    try {
      next = await this.deps.uow.transaction(async () => {
        const committed = await this.deps.zoneService.commit(zone, upserts, deletes);
        await this.deps.plans.insert(applied.record);
        await this.deps.events.record(
          'dns.plan_applied',
          { accountId: key.accountId, environment: key.environment, subject: `domain:${domain}`, actor: actorOf(key), occurredAt: now },
          { plan_id: plan.id, serial: committed.serial, counts: plan.counts },
        );
        await alongside?.();
        return committed;
      });
    } catch (err) {
      if (err instanceof ZoneChanged) throw new DomainError('plan_stale', { domain, reason: 'the zone changed meanwhile' });
      throw err;
    }
    // Returns only once our own server answers with the change.
    await this.deps.zoneService.publish(next);
    return { ...applied.view(), serial: next.serial };
  }

  async get(key: ApiKey, domainInput: string, id: string): Promise<PlanView> {
    const domain = normalizeDomain(domainInput);
    const stored = await this.deps.plans.find(key.accountId, key.environment, id);
    if (!stored || stored.domain !== domain) throw new DomainError('plan_not_found', { plan_id: id, domain });
    return Plan.of(stored).view();
  }

  /**
   * Runs in atomic phases (the route is phased): the commit is one real transaction that also records
   * the checkpoint, and only then is the zone published — so a nameserver that reads the store (the DNS
   * workers of a cluster) sees the change when it is asked to.
   */
  async apply(
    key: ApiKey,
    domainInput: string,
    id: string,
    opts: { force?: boolean; sameZone?: boolean },
    cp: Checkpoints = transientCheckpoints(this.deps.uow),
  ): Promise<PlanView & { serial: number }> {
    const domain = normalizeDomain(domainInput);
    if (cp.last?.point === 'applied') {
      // Committed before a crash: make sure it is served, then answer as the first time.
      const zone = await this.deps.zones.find(key.accountId, key.environment, domain);
      if (zone) await this.deps.zoneService.publish(zone);
      return cp.last.data.result as PlanView & { serial: number };
    }
    const access = await dnsAccess(this.deps.authorizer, key, domain);
    const stored = await this.deps.plans.find(key.accountId, key.environment, id);
    if (!stored || stored.domain !== domain) throw new DomainError('plan_not_found', { plan_id: id, domain });
    const plan = Plan.of(stored);
    if (plan.appliedAt) throw new DomainError('plan_already_applied', { plan_id: id });
    if (this.deps.clock.now() > plan.expiresAt) throw new DomainError('plan_expired', { plan_id: id, domain });
    if (!plan.valid) throw new DomainError('plan_invalid', { plan_id: id, domain });
    if (access === 'acme-only') assertAcmeOnly(plan.changes, domain, domain);

    for (let attempt = 0; attempt < 10; attempt++) {
      const zone = await this.zoneOf(key, domain);
      plan.assertFresh(zone);
      // DNS UPDATE: its prerequisites were judged on the zone the plan was made on; any change since stales it.
      if (opts.sameZone && zone.serial !== plan.baseSerial)
        throw new DomainError('plan_stale', { domain, reason: 'the zone changed meanwhile' });
      if (!opts.force) plan.assertSafe(zone.sets.size);
      // The checks again, on the zone as it is now — unless nothing changed since the plan was made (same
      // serial: the checks already ran on exactly this zone).
      const recheck =
        zone.serial === plan.baseSerial
          ? { valid: true, checks: [] as CheckResult[] }
          : buildPlan({ origin: domain, current: zone.sets, input: { changes: plan.changes.map(inputOf) }, ...this.limit() });
      if (!recheck.valid) {
        throw new DomainError(
          'plan_stale',
          { domain, reason: 'its checks fail on the zone as it is now' },
          recheck.checks.filter((c) => c.severity === 'error').map((c) => ({ ...c })),
        );
      }
      const upserts: RecordSet[] = [];
      const deletes: Array<{ name: string; type: RecordType }> = [];
      for (const c of plan.changes) {
        if (c.action === 'delete') deletes.push({ name: c.name, type: c.type });
        else upserts.push({ name: c.name, type: c.type, ttl: c.ttl!, values: [...(c.values ?? [])] });
      }
      const now = this.deps.clock.now();
      let committed: StoredZone | null = null;
      try {
        const out = await cp.reach('applied', async () => {
          const next = await this.deps.zoneService.commit(zone, upserts, deletes);
          if (!(await this.deps.plans.markApplied(plan.id, now))) throw new DomainError('plan_already_applied', { plan_id: id });
          await this.deps.events.record(
            'dns.plan_applied',
            {
              accountId: key.accountId,
              environment: key.environment,
              subject: `domain:${domain}`,
              actor: actorOf(key),
              occurredAt: now,
            },
            { plan_id: plan.id, serial: next.serial, counts: plan.counts },
          );
          committed = next;
          return { result: { ...plan.appliedOn(now).view(), serial: next.serial } };
        });
        // Returns only once our own server answers with the change.
        await this.deps.zoneService.publish(committed!);
        return out.result;
      } catch (err) {
        if (err instanceof ZoneChanged) continue; // another change won: judge the plan again on the new zone
        throw err;
      }
    }
    // Every attempt lost the race to other writes of this zone: busy, retry (not stored, see idempotency).
    throw new DomainError('zone_busy', { domain, retry_after: ZONE_BUSY_RETRY_AFTER_S });
  }
}
