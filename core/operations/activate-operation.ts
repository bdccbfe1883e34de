import type { ZoneRepository } from '../dns/ports/zone-repository.port.js';
import { ZoneChanged, type ZoneService } from '../dns/zone/zone-service.js';
import type { StoredZone } from '../dns/zone/zone.js';
import { requireCapability } from '../domains/capabilities.js';
import type { Domain } from '../domains/domain.js';
import type { DomainRepository } from '../domains/ports/domain-repository.port.js';
import { RegistryError } from '../domains/ports/registrar.port.js';
import type { AccountClock } from '../kernel/account-clock.port.js';
import type { Clock } from '../kernel/clock.port.js';
import type { RegistrarEnvironments } from '../domains/ports/registrar.port.js';
import { isDomainError } from '../kernel/errors.js';
import type { Random } from '../kernel/random.port.js';
import type { UnitOfWork } from '../kernel/unit-of-work.port.js';
import type { OperationLog } from './operation-log.js';
import { withoutPendingUpdate, type Operation } from './operation.js';
import type { DomainLabelWriter, OperationRepository } from './ports/operation-repository.port.js';
import type { DnssecRepository } from '../dnssec/ports/dnssec-repository.port.js';
import { withoutForeignKeys } from '../dnssec/foreign-keys.js';
import { zoneSigningOf } from '../dnssec/dnssec-state.js';
import { staleDs } from '../dnssec/live-ds.js';
import type { DsRecord } from '../domains/ports/registrar.port.js';
import { DEFAULT_DNSSEC_TIMINGS as DEFAULT_TIMINGS, waitAfter, type DnssecTimings } from '../dnssec/dnssec-timings.js';

/** How long one activation may hold an operation before another worker may take it over. */
export const ACTIVATION_LEASE_MS = 120_000;

export type ActivationOutcome = 'activated' | 'failed' | 'busy' | 'retry';

/** The registry's client transaction id for an operation: a retry after a crash is recognised (EPP clTRID). */
export const transactionIdOf = (op: Operation): string => `${op.id}-apply`;

/** What ActivateOperation is built from (one object, named, instead of positions). */
export interface ActivateOperationDeps {
  readonly operations: OperationRepository;
  readonly domains: DomainRepository;
  readonly labels: DomainLabelWriter;
  readonly environments: RegistrarEnvironments;
  readonly zones: ZoneRepository;
  readonly zoneService: ZoneService;
  readonly log: OperationLog;
  readonly uow: UnitOfWork;
  readonly time: AccountClock;
  readonly clock: Clock;
  readonly random: Random;
  /** DNSSEC state of zones (dnssec operations). */
  readonly dnssec?: DnssecRepository;
  /** How long signing goes on after the DS left the parent (dnssec_disable). */
  readonly dnssecTimings?: DnssecTimings;
}

/** "<tag> <alg> <digest type> <hex>" → the registry's DS record. */
export const dsRecordOf = (presentation: string): DsRecord => {
  const [tag, alg, type, digest] = presentation.trim().split(/\s+/);
  return { keyTag: Number(tag), algorithm: Number(alg), digestType: Number(type), digest: (digest ?? '').toUpperCase() };
};

/**
 * Applies a pending operation's effect once: under a lease (a conditional update, so two workers — or a
 * worker and a confirming owner — never apply one twice), through the registrar port for nameservers and
 * the transfer lock (labels are our own data), then one transaction: the domain, our zone's apex NS,
 * the operation's new status, its event and the owners' notices.
 */
export class ActivateOperation {
  constructor(private readonly deps: ActivateOperationDeps) {}

  /** Takes the lease and applies. `held`: the caller already holds the lease with this token (the worker's claim). */
  async activate(op: Operation, actor: string, held?: string): Promise<{ outcome: ActivationOutcome; operation: Operation }> {
    const token = held ?? this.deps.random.id();
    if (!held) {
      const real = this.deps.clock.now();
      if (!(await this.deps.operations.lease(op.id, token, real, new Date(real.getTime() + ACTIVATION_LEASE_MS))))
        return { outcome: 'busy', operation: op };
    }
    let failure: string | null = await this.refusedNow(op);
    try {
      if (failure === null) await this.applyAtRegistry(op);
    } catch (err) {
      if (err instanceof RegistryError)
        failure =
          op.kind === 'dnssec_ds_publish'
            ? `dnssec_ds_refused: ${err.message}`
            : op.kind === 'dnssec_disable' || op.kind === 'dnssec_ds_remove'
              ? `dnssec_ds_removal_refused: ${err.message}`
              : `${err.reason}: ${err.message}`;
      else if (isDomainError(err) && err.code === 'registrar_capability_missing')
        failure = `registrar_capability_missing: ${String(err.fact('registrar'))} cannot ${String(err.fact('capability'))}`;
      else {
        // Not the registry's answer (a network fault, a crash of ours): leave it pending for a later pass.
        await this.deps.operations.releaseLease(op.id, token);
        return { outcome: 'retry', operation: op };
      }
    }
    for (let attempt = 0; ; attempt++) {
      try {
        const done = await this.deps.uow.transaction(async () => this.finish(op, token, failure, actor));
        if (done.zone) await this.deps.zoneService.publishOrReport(done.zone);
        if (!done.operation) return { outcome: 'busy', operation: op };
        return { outcome: failure === null ? 'activated' : 'failed', operation: done.operation };
      } catch (err) {
        if (!(err instanceof ZoneChanged) || attempt >= 5) {
          await this.deps.operations.releaseLease(op.id, token);
          throw err;
        }
      }
    }
  }

  /**
   * What the state of the zone now forbids, checked again when the operation takes effect: switching DNSSEC
   * off while another operator signs the zone too (its keys in our DNSKEY set; their DS stays at the parent,
   * so our unsigned answers would be bogus); publishing a DS that no live key of the zone matches any more
   * (DNSSEC switched off, or the key rolled, while the operation waited: at the parent it would take the
   * domain off the internet). The registry is not asked. A second owner's confirmation activates through here too.
   */
  private async refusedNow(op: Operation): Promise<string | null> {
    if ((op.kind !== 'dnssec_disable' && op.kind !== 'dnssec_ds_publish') || !this.deps.dnssec) return null;
    const zone = await this.deps.zones.find(op.accountId, op.environment, op.domain);
    const state = zone ? await this.deps.dnssec.find(zone.id) : null;
    if (op.kind === 'dnssec_ds_publish') {
      const stale = staleDs(state, op.params.ds ?? [], op.params.ownDs);
      return stale === null
        ? null
        : `dnssec_ds_stale: the DS ${stale} matches no live key of ${op.domain}; nothing was sent to the registry`;
    }
    const tags = (state?.foreignKeys ?? []).map((k) => k.tag);
    return tags.length > 0 ? `dnssec_foreign_keys_present: another operator's keys (${tags.join(', ')}) are in the DNSKEY set` : null;
  }

  private async applyAtRegistry(op: Operation): Promise<void> {
    if (op.kind === 'labels' || op.kind === 'hosted_delete' || op.kind === 'dnssec_foreign_key_remove') return;
    const registrar = this.deps.environments.get(op.environment).registrar;
    if (op.kind === 'dnssec_ds_publish') {
      const ds = (op.params.ds ?? []).map(dsRecordOf);
      await requireCapability(registrar, 'ds_set').setDs(op.domain, ds, transactionIdOf(op));
      return;
    }
    if (op.kind === 'dnssec_disable' || op.kind === 'dnssec_ds_remove') {
      const ds = (op.params.ds ?? []).map(dsRecordOf);
      await requireCapability(registrar, 'ds_remove').removeDs(op.domain, ds, transactionIdOf(op));
      return;
    }
    if (op.kind === 'nameservers') {
      const p = op.params as { nameservers: string[] };
      await requireCapability(registrar, 'nameservers').setNameservers(op.domain, p.nameservers, transactionIdOf(op));
    } else {
      // Lifting the lock: domain:update removing clientTransferProhibited. It never fetches the transfer code (A7).
      await requireCapability(registrar, 'transfer_lock').setTransferLock(op.domain, false, transactionIdOf(op));
    }
  }

  private async finish(
    op: Operation,
    token: string,
    failure: string | null,
    actor: string,
  ): Promise<{ operation: Operation | null; zone: StoredZone | null }> {
    const now = await this.deps.time.now(op.accountId, op.environment);
    const next: Operation =
      failure === null
        ? { ...op, status: 'active', resolvedAt: now }
        : { ...op, status: 'failed', resolvedAt: now, failureReason: failure };
    if (!(await this.deps.operations.update(next, { token }))) return { operation: null, zone: null };
    const domain = await this.deps.domains.find(op.accountId, op.environment, op.domain);
    let zone: StoredZone | null = null;
    if (domain && failure === null && op.kind === 'hosted_delete') {
      await this.deps.zoneService.remove(op.accountId, op.environment, op.domain);
      await this.deps.domains.remove(domain.id);
      await this.deps.log.record(next, 'activated', actor);
      await this.deps.log.hostingDeleted(op, actor, 'deleted');
      return { operation: next, zone: null };
    }
    if (domain) {
      let updated: Domain = { ...domain, status: withoutPendingUpdate(domain.status) };
      if (failure === null) {
        if (op.kind === 'nameservers') {
          const nameservers = [...(op.params as { nameservers: string[] }).nameservers];
          updated = { ...updated, nameservers };
          zone = await this.apexFollows(op, nameservers);
        } else if (op.kind === 'dnssec_ds_publish') {
          await this.parentHoldsDs(op);
        } else if (op.kind === 'dnssec_disable') {
          await this.parentDroppedDs(op, now, actor);
        } else if (op.kind === 'dnssec_foreign_key_remove') {
          zone = await this.dropForeignKey(op, actor);
        } else if (op.kind === 'dnssec_ds_remove') {
          // Another operator's DS left the registry: nothing of ours changes.
        } else if (op.kind === 'transfer_unlock') {
          const rest = updated.status.filter((s) => s !== 'clientTransferProhibited');
          updated = { ...updated, transferLock: false, status: rest.length > 0 ? rest : ['ok'] };
        } else if (op.kind === 'labels') {
          await this.deps.labels.setLabels(domain.id, (op.params as { labels: string[] }).labels);
        }
      }
      await this.deps.domains.update(updated);
    }
    await this.deps.log.record(next, failure === null ? 'activated' : 'failed', actor);
    return { operation: next, zone };
  }

  /**
   * The registry took the DS records: when one of them is our active key's, the zone is secure (validators
   * now check its signatures); another operator's alone changes nothing of ours. During a rollover the
   * parent holds our DS from now on, and the status stays "rolling" until its last step.
   */
  private async parentHoldsDs(op: Operation): Promise<void> {
    // Under the zone's lock: the state read is the one saved back (a foreign key added meanwhile stays).
    await this.deps.zones.lock(op.accountId, op.environment, op.domain);
    const zone = await this.deps.zones.find(op.accountId, op.environment, op.domain);
    const state = zone && this.deps.dnssec ? await this.deps.dnssec.find(zone.id) : null;
    if (!state) return;
    const published = new Set((op.params.ds ?? []).map((d) => d.toUpperCase()));
    if (!state.keys.some((k) => k.state === 'active' && published.has(k.ds.toUpperCase()))) return;
    // A rollover under way stays "rolling" (its steps now swap the DS at the registry); it ends secure.
    await this.deps.dnssec!.save({ ...state, status: state.rollover ? state.status : 'secure', dsAtParent: true });
  }

  /**
   * The registry removed our DS: validators that cached it still expect signatures until its TTL has
   * passed (RFC 6781 §4.3.1, in reverse), so the zone stays signed, "disabling", until then; the worker's
   * DNSSEC pass stops signing at `stopSigningAt` (account time, like the operation's own schedule).
   */
  private async parentDroppedDs(op: Operation, now: Date, actor: string): Promise<void> {
    await this.deps.zones.lock(op.accountId, op.environment, op.domain);
    const zone = await this.deps.zones.find(op.accountId, op.environment, op.domain);
    const state = zone && this.deps.dnssec ? await this.deps.dnssec.find(zone.id) : null;
    if (!state) return;
    const timings = this.deps.dnssecTimings ?? DEFAULT_TIMINGS;
    const stopSigningAt = new Date(now.getTime() + waitAfter(timings, timings.dsTtlS) * 1000);
    await this.deps.dnssec!.save({ ...state, status: 'disabling', dsAtParent: false, stopSigningAt, rollover: null, nextRolloverAt: null });
    await this.deps.log.dnssecDisabling(op, [...(op.params.ds ?? [])], stopSigningAt, actor);
  }

  /**
   * The other operator's key leaves our DNSKEY set (the end of a multi-signer move): the zone is committed
   * (a new serial, the DNSKEY set re-signed) and published. Already gone (DNSSEC switched off meanwhile,
   * or the key removed another way): nothing to do.
   */
  private async dropForeignKey(op: Operation, actor: string): Promise<StoredZone | null> {
    const zone = await this.deps.zones.find(op.accountId, op.environment, op.domain);
    const state = zone && this.deps.dnssec ? await this.deps.dnssec.find(zone.id) : null;
    if (!zone || !state) return null;
    const { next, gone } = withoutForeignKeys(state, op.params.dnskey ?? []);
    if (gone.length === 0) return null;
    await this.deps.dnssec!.save(next);
    const committed = await this.deps.zoneService.commit(zone, [], []);
    for (const k of gone) await this.deps.log.foreignKeyRemoved(op, k.tag, committed.serial, actor);
    return { ...committed, signing: zoneSigningOf(next) };
  }

  /** DESIGN: the apex NS belongs to the service and follows the nameservers operation (parent and child
   * NS sets agree, RFC 1034 §4.2.2). Outside nameservers: our zone is kept, its apex NS says who serves it. */
  private async apexFollows(op: Operation, nameservers: readonly string[]): Promise<StoredZone | null> {
    const zone = await this.deps.zones.find(op.accountId, op.environment, op.domain);
    if (!zone) return null;
    const current = zone.recordSets.find((s) => s.name === zone.domain && s.type === 'NS');
    const values = nameservers.map((n) => `${n}.`);
    if (current && current.values.join() === values.join()) return null;
    return this.deps.zoneService.commit(zone, [{ name: zone.domain, type: 'NS', ttl: current?.ttl ?? 3600, values }], []);
  }
}
