import type { Authorizer } from '../../access/authorize.js';
import type { ApiKey } from '../../kernel/caller.js';
import type { EventLog } from '../../kernel/event-log.port.js';
import type { Clock } from '../../kernel/clock.port.js';
import { normalizeDomain } from '../../kernel/domain-name.js';
import { DomainError } from '../../kernel/errors.js';
import type { Random } from '../../kernel/random.port.js';
import type { UnitOfWork } from '../../kernel/unit-of-work.port.js';
import { transientCheckpoints, type Checkpoints } from '../../kernel/checkpoints.port.js';
import { assertAcmeOnly, dnsAccess, isAcmeName } from '../dns-access.js';
import { buildPlan, isSafeChange, type PlanInput } from './plan-builder.js';
import type { Change, CheckResult, Plan } from './plan.js';
import type { PlanRepository, ZoneRepository } from '../ports/zone-repository.port.js';
import type { RecordSet, RecordType } from '../zone/record-set.js';
import { ZoneChanged, type ZoneService } from '../zone/zone-service.js';
import type { StoredZone, Zone } from '../zone/zone.js';

export const PLAN_LIFETIME_MS = 3600_000;

export interface PlanView {
  id: string;
  domain: string;
  source: Plan['source'];
  valid: boolean;
  base_serial: number;
  changes: Change[];
  checks: CheckResult[];
  counts: { create: number; update: number; delete: number; errors: number; warnings: number };
  expires_at: string;
  applied_at: string | null;
}

const countsOf = (p: Pick<Plan, 'changes' | 'checks'>) => ({
  create: p.changes.filter((c) => c.action === 'create').length,
  update: p.changes.filter((c) => c.action === 'update').length,
  delete: p.changes.filter((c) => c.action === 'delete').length,
  errors: p.checks.filter((c) => c.severity === 'error').length,
  warnings: p.checks.filter((c) => c.severity === 'warning').length,
});

export const viewPlan = (p: Plan): PlanView => ({
  id: p.id, domain: p.domain, source: p.source, valid: p.valid, base_serial: p.baseSerial, changes: [...p.changes], checks: [...p.checks],
  counts: countsOf(p), expires_at: p.expiresAt.toISOString(), applied_at: p.appliedAt?.toISOString() ?? null,
});

const sameSet = (a: RecordSet | null | undefined, b: RecordSet | null | undefined): boolean =>
  (!a && !b) || (!!a && !!b && a.ttl === b.ttl && a.values.length === b.values.length && a.values.every((v, i) => v === b.values[i]));

/** Apex SOA is the service's and changes with every apply; _acme-challenge sets change under plans. */
const comparable = (zone: string) => (s: RecordSet) => !(s.name === zone && s.type === 'SOA') && !isAcmeName(s.name, zone);

/** What a whole-zone plan's apply compares against: every comparable set of the zone as planned. */
export const wholeZoneBefore = (zone: Zone): Plan['before'] =>
  zone.recordSets.filter(comparable(zone.domain)).map((s) => ({ name: s.name, type: s.type, set: s }));

/**
 * Why a plan is stale on the zone as it is now, or null when it is not: a set it touches differs from
 * what it saw (`before`), or — a whole-zone plan — a comparable set was added. One pass over the zone,
 * looking up only the plan's own names. The first difference in `before` order is named (then the first
 * added set in zone order), as DnsPlans reports it.
 */
export const staleReason = (plan: Pick<Plan, 'domain' | 'source' | 'before'>, zone: Zone): string | null => {
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

/**
 * DNS plans (issue 4): a plan writes nothing; apply writes it atomically, only if every record set it
 * touches is unchanged since it was made (a whole-zone plan: nothing outside _acme-challenge changed)
 * and its checks still pass on the zone as it is now — otherwise 409 plan_stale. So an ACME value
 * written meanwhile does not stale unrelated plans, while two plans racing for one record set cannot
 * both win (the zone's serial is a compare-and-set).
 */
export class DnsPlans {
  constructor(
    private readonly zones: ZoneRepository,
    private readonly plans: PlanRepository,
    private readonly zoneService: ZoneService,
    private readonly authorizer: Authorizer,
    private readonly events: EventLog,
    private readonly uow: UnitOfWork,
    private readonly random: Random,
    private readonly clock: Clock,
  ) {}

  private async zoneOf(key: ApiKey, domain: string): Promise<StoredZone> {
    const zone = await this.zones.find(key.accountId, key.environment, domain);
    if (!zone) throw new DomainError('domain_not_found', { domain });
    return zone;
  }

  async create(key: ApiKey, domainInput: string, input: PlanInput): Promise<PlanView> {
    const domain = normalizeDomain(domainInput);
    const access = await dnsAccess(this.authorizer, key, domain);
    if (access === 'acme-only' && !('changes' in input)) throw new DomainError('right_missing', { right: 'dns.edit', domain, change: 'a whole-zone plan' });
    const zone = await this.zoneOf(key, domain);
    const built = buildPlan({ origin: domain, current: zone.recordSets, input });
    if (access === 'acme-only') assertAcmeOnly(built.changes, domain, domain);
    const now = this.clock.now();
    // What apply compares against: the touched sets, or for a whole-zone plan every comparable set.
    const before = 'changes' in input ? built.before : wholeZoneBefore(zone);
    const plan: Plan = {
      id: this.random.id(), accountId: key.accountId, environment: key.environment, domain, keyId: key.id,
      source: 'changes' in input ? 'changes' : 'records' in input ? 'records' : 'zone_file',
      baseSerial: zone.serial, changes: built.changes, before, checks: built.checks, valid: built.valid,
      createdAt: now, expiresAt: new Date(now.getTime() + PLAN_LIFETIME_MS), appliedAt: null,
    };
    await this.plans.insert(plan);
    return viewPlan(plan);
  }

  async get(key: ApiKey, domainInput: string, id: string): Promise<PlanView> {
    const domain = normalizeDomain(domainInput);
    const plan = await this.plans.find(key.accountId, key.environment, id);
    if (!plan || plan.domain !== domain) throw new DomainError('plan_not_found', { plan_id: id, domain });
    return viewPlan(plan);
  }

  /**
   * Runs in atomic phases (the route is phased): the commit is one real transaction that also records
   * the checkpoint, and only then is the zone published — so a nameserver that reads the store (the DNS
   * workers of a cluster) sees the change when it is asked to.
   */
  async apply(key: ApiKey, domainInput: string, id: string, opts: { force?: boolean }, cp: Checkpoints = transientCheckpoints(this.uow)): Promise<PlanView & { serial: number }> {
    const domain = normalizeDomain(domainInput);
    if (cp.last?.point === 'applied') {
      // Committed before a crash: make sure it is served, then answer as the first time.
      const zone = await this.zones.find(key.accountId, key.environment, domain);
      if (zone) await this.zoneService.publish(zone);
      return cp.last.data.result as PlanView & { serial: number };
    }
    const access = await dnsAccess(this.authorizer, key, domain);
    const plan = await this.plans.find(key.accountId, key.environment, id);
    if (!plan || plan.domain !== domain) throw new DomainError('plan_not_found', { plan_id: id, domain });
    if (plan.appliedAt) throw new DomainError('plan_already_applied', { plan_id: id });
    if (this.clock.now() > plan.expiresAt) throw new DomainError('plan_expired', { plan_id: id, domain });
    if (!plan.valid) throw new DomainError('plan_invalid', { plan_id: id, domain });
    if (access === 'acme-only') assertAcmeOnly(plan.changes, domain, domain);

    for (let attempt = 0; attempt < 10; attempt++) {
      const zone = await this.zoneOf(key, domain);
      this.assertFresh(plan, zone);
      if (!opts.force && !isSafeChange(zone.recordSets.length, plan.changes)) {
        const touched = plan.changes.filter((c) => c.action !== 'create').length;
        throw new DomainError('plan_unsafe', { touched, size: zone.recordSets.length });
      }
      // The checks again, on the zone as it is now — unless nothing changed since the plan was made (same
      // serial: the checks already ran on exactly this zone).
      const recheck = zone.serial === plan.baseSerial
        ? { valid: true, checks: [] as CheckResult[] }
        : buildPlan({ origin: domain, current: zone.recordSets, input: { changes: plan.changes.map(toInput) } });
      if (!recheck.valid) {
        throw new DomainError('plan_stale', { domain, reason: 'its checks fail on the zone as it is now' }, recheck.checks.filter((c) => c.severity === 'error').map((c) => ({ ...c })));
      }
      const upserts: RecordSet[] = [];
      const deletes: Array<{ name: string; type: RecordType }> = [];
      for (const c of plan.changes) {
        if (c.action === 'delete') deletes.push({ name: c.name, type: c.type });
        else upserts.push({ name: c.name, type: c.type, ttl: c.ttl!, values: [...(c.values ?? [])] });
      }
      const now = this.clock.now();
      let committed: StoredZone | null = null;
      try {
        const out = await cp.reach('applied', async () => {
          const next = await this.zoneService.commit(zone, upserts, deletes);
          if (!(await this.plans.markApplied(plan.id, now))) throw new DomainError('plan_already_applied', { plan_id: id });
          await this.events.append({
            id: this.random.id(), accountId: key.accountId, environment: key.environment, type: 'dns.plan_applied', subject: `domain:${domain}`,
            actor: `key:${key.id}`, occurredAt: now, data: { plan_id: plan.id, serial: next.serial, counts: countsOf(plan) },
          });
          committed = next;
          return { result: { ...viewPlan({ ...plan, appliedAt: now }), serial: next.serial } };
        });
        // Returns only once our own server answers with the change.
        await this.zoneService.publish(committed!);
        return out.result;
      } catch (err) {
        if (err instanceof ZoneChanged) continue; // another change won: judge the plan again on the new zone
        throw err;
      }
    }
    throw new DomainError('operation_in_progress', { domain_id: domain });
  }

  private assertFresh(plan: Plan, zone: StoredZone): void {
    const reason = staleReason(plan, zone);
    if (reason !== null) throw new DomainError('plan_stale', { domain: plan.domain, reason });
  }
}

const toInput = (c: Change) => ({
  action: c.action, name: c.name, type: c.type,
  ...(c.ttl !== undefined ? { ttl: c.ttl } : {}), ...(c.values ? { values: [...c.values] } : {}),
  ...(c.current ? { current: { ttl: c.current.ttl, values: [...c.current.values] } } : {}),
});
