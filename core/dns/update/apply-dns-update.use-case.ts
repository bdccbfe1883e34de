import type { Authorizer } from '../../access/authorize.js';
import { cidrContains } from '../../access/cidr.js';
import type { ApiKey } from '../../kernel/caller.js';
import type { Environment } from '../../kernel/environment.js';
import { isDomainError } from '../../kernel/errors.js';
import { dnsAccess, type DnsAccess } from '../dns-access.js';
import type { DnsPlans } from '../plans/dns-plans.use-case.js';
import type { ZoneRepository } from '../ports/zone-repository.port.js';
import type { ZoneService } from '../zone/zone-service.js';
import { checkPrerequisites, refusalOf, ZoneDraft, type DnsUpdateRequest, type UpdateOutcome } from './dns-update.js';
import { GroupCommit, MAX_BATCH } from './group-commit.js';
import { outOfSight, seesZone } from './zone-visibility.js';

/** What ApplyDnsUpdate is built from (one object, named, instead of positions). */
export interface ApplyDnsUpdateDeps {
  /** Only to tell a zone of the other environment from none at all (a refusal's reason). */
  readonly zones: Pick<ZoneRepository, 'head'>;
  /** The zone as a commit judges it: its row, and its sets kept between commits (ZoneService.indexed). */
  readonly zoneService: Pick<ZoneService, 'indexed'>;
  readonly plans: Pick<DnsPlans, 'createApplied'>;
  readonly authorizer: Authorizer;
  /** The most messages one group commit takes (MAX_BATCH by default). */
  readonly maxBatch?: number;
}

/** Where the message came in: the environment the listening port serves (null: both, development) and the sender. */
export interface UpdateContext {
  readonly serves: Environment | null;
  readonly peer: string;
  /** The release `arrive` gave for this message, if it was announced: called as it joins its zone's queue. */
  readonly arrived?: () => void;
}

const ATTEMPTS = 5;

/** One queue per key and zone (see the class: a batch is one key's). */
const queueOf = (keyId: string, zone: string): string => `${keyId}\u0000${zone}`;

/** A message that passed its own checks (environment, CIDR, the zone, the key's right), waiting for its zone's commit. */
interface Admitted {
  readonly key: ApiKey;
  readonly req: DnsUpdateRequest;
  readonly access: DnsAccess;
}

/**
 * DNS UPDATE (RFC 2136) signed with a key's TSIG credential: the key's policies decide (dns.edit, or the
 * ACME-only right for TXT at _acme-challenge names), its CIDR too; the prerequisites are judged on the zone
 * the changes are planned on, and the plan is applied only if the zone is still that one (§3.2 and §3.4
 * as one atomic step) — through the same plan path as the API: checks, atomic commit, serial, event,
 * webhooks, NOTIFY. Every refusal is an rcode and a reason, never an exception.
 *
 * Messages of one key to one zone that arrive while a commit of theirs is in progress are committed
 * together (group-commit.ts): one plan, one transaction, one serial. Each message's prerequisites are
 * judged in arrival order on the zone as the messages before it left it; one that fails or is refused
 * answers its own rcode and changes nothing; every message is answered once its batch is committed.
 * A batch is one key's because a plan, its dns.plan_applied event and the webhooks from it name one
 * key — the one that made every change in it. A batch the plan checks refuse as a whole is committed
 * again one message at a time, so the message that breaks a check is the only one refused.
 */
export class ApplyDnsUpdate {
  private readonly queue: GroupCommit<Admitted, UpdateOutcome>;

  constructor(private readonly deps: ApplyDnsUpdateDeps) {
    this.queue = new GroupCommit((batch) => this.commit(batch), deps.maxBatch ?? MAX_BATCH);
  }

  /**
   * A verified message of this key to this zone is on its way (the adapter says so as soon as it knows): the
   * zone's next group commit waits until it joins or is answered. Release it (idempotent) if it never reaches execute.
   */
  arrive(key: Pick<ApiKey, 'id'>, zone: string): () => void {
    return this.queue.arrive(queueOf(key.id, zone));
  }

  async execute(key: ApiKey, req: DnsUpdateRequest, ctx: UpdateContext): Promise<UpdateOutcome> {
    if (ctx.serves !== null && key.environment !== ctx.serves) {
      return {
        rcode: 'NOTAUTH',
        reason: key.environment === 'test' ? 'sandbox zones are not served on this port' : 'live zones are not served on this port',
      };
    }
    if (key.conditions.cidr && !cidrContains(key.conditions.cidr, ctx.peer)) {
      return { rcode: 'REFUSED', reason: `the key works only from ${key.conditions.cidr}` };
    }
    const zoneName = req.zone;
    let access: DnsAccess;
    try {
      access = await dnsAccess(this.deps.authorizer, key, zoneName);
    } catch (err) {
      // A key with no DNS right on the zone: the same REFUSED whether the account has it or not, before the zone
      // is read (zone-visibility.ts). One that may know of it (dns.read only): why not, REFUSED by policy.
      if (isDomainError(err) && err.code === 'right_missing') {
        if (!(await seesZone(this.deps.authorizer, key, zoneName))) return outOfSight(zoneName);
        return (
          (await this.absent(key, zoneName)) ?? {
            rcode: 'REFUSED',
            reason: `the key holds neither dns.edit nor dns.acme_challenge on ${zoneName}`,
          }
        );
      }
      // A name no zone of ours can have (`_acme-challenge.x`, a TLD, the root): not ours, as RFC 2136 §3.1.1 answers.
      if (isDomainError(err) && err.code === 'domain_invalid') return { rcode: 'NOTAUTH', reason: `not authoritative for ${zoneName}` };
      throw err;
    }
    // Whether the zone is ours is read by the commit, with the zone (one read, not two).
    return this.queue.submit(queueOf(key.id, zoneName), { key, req, access }, ctx.arrived);
  }

  /**
   * One batch (one key, one zone, arrival order) as one plan applied: the messages judged in turn on a
   * draft of the zone, the changes of those that hold planned and applied together if the zone is still
   * the one they were judged on — otherwise judged again on the new zone. A store error throws (every
   * message of the batch: SERVFAIL, nothing applied).
   */
  private async commit(batch: readonly Admitted[]): Promise<UpdateOutcome[]> {
    const { key, req } = batch[0]!;
    const zoneName = req.zone;
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const zone = await this.deps.zoneService.indexed(key.accountId, key.environment, zoneName);
      if (!zone) {
        const outcome = (await this.absent(key, zoneName)) ?? { rcode: 'NOTAUTH', reason: `not authoritative for ${zoneName}` };
        return batch.map(() => outcome);
      }
      const draft = new ZoneDraft(zoneName, zone.sets);
      // Per message: its outcome when decided now (a prerequisite failed, refused, nothing to change), else null (it changes the zone).
      const decided = batch.map((m): UpdateOutcome | null => {
        const failed = checkPrerequisites(zoneName, draft, m.req.prerequisites) ?? refusalOf(zoneName, m.req.updates, m.access);
        if (failed) return failed;
        // §3.4.2: adding what is there or deleting what is not changes nothing; no serial is spent on it.
        return draft.apply(m.req.updates) ? null : { rcode: 'NOERROR', reason: 'nothing to change', serial: zone.serial };
      });
      const changes = draft.changes();
      if (changes.length === 0) return decided.map((d) => d ?? { rcode: 'NOERROR', reason: 'nothing to change', serial: zone.serial });
      try {
        // Planned on the zone the prerequisites were judged on, and applied only if it is still that one (§3.2 with §3.4).
        const plan = await this.deps.plans.createApplied(key, zone, { changes: changes.map((c) => ({ ...c })) });
        if (!plan.valid) {
          if (batch.length > 1) return this.oneByOne(batch);
          const error = plan.checks.find((c) => c.severity === 'error');
          return [{ rcode: 'REFUSED', reason: error ? `${error.rule}: ${error.message.en}` : 'the plan is invalid' }];
        }
        return decided.map((d) => d ?? { rcode: 'NOERROR', reason: 'applied', serial: plan.serial });
      } catch (err) {
        if (!isDomainError(err)) throw err;
        if (err.code === 'plan_stale') continue; // another change won: judge the prerequisites again
        if (err.code === 'zone_busy') return batch.map(() => ({ rcode: 'SERVFAIL', reason: 'the zone is busy; try again' }));
        if (batch.length > 1) return this.oneByOne(batch);
        return [{ rcode: 'REFUSED', reason: `${err.code}` }];
      }
    }
    return batch.map(() => ({ rcode: 'SERVFAIL', reason: 'the zone is busy; try again' }));
  }

  /** Why a key cannot change a zone its environment does not have: a zone of the other environment (REFUSED), or none (NOTAUTH); null: it is there. */
  private async absent(key: ApiKey, zoneName: string): Promise<UpdateOutcome | null> {
    if (await this.deps.zones.head(key.accountId, key.environment, zoneName)) return null;
    const other: Environment = key.environment === 'test' ? 'live' : 'test';
    if (await this.deps.zones.head(key.accountId, other, zoneName)) {
      return { rcode: 'REFUSED', reason: `a ${key.environment} key cannot change a ${other} zone` };
    }
    return { rcode: 'NOTAUTH', reason: `not authoritative for ${zoneName}` };
  }

  /** A batch refused as a whole, again message by message in arrival order: each its own commit and its own outcome. */
  private async oneByOne(batch: readonly Admitted[]): Promise<UpdateOutcome[]> {
    const out: UpdateOutcome[] = [];
    for (const m of batch) {
      try {
        out.push((await this.commit([m]))[0]!);
      } catch {
        // A store error on this message alone: the ones before it are committed and answered as such.
        out.push({ rcode: 'SERVFAIL', reason: 'internal error' });
      }
    }
    return out;
  }
}
