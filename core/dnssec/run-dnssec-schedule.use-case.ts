import type { StoredZone } from '../dns/zone/zone.js';
import { ZoneChanged } from '../dns/zone/zone-service.js';
import { requireCapability } from '../domains/capabilities.js';
import { isHosted } from '../domains/domain.js';
import type { DomainRepository } from '../domains/ports/domain-repository.port.js';
import { RegistryError, type DsRecord, type RegistrarEnvironments } from '../domains/ports/registrar.port.js';
import type { AccountClock } from '../kernel/account-clock.port.js';
import { isDomainError } from '../kernel/errors.js';
import type { DnssecDeps } from './dnssec-deps.js';
import { zoneSigningOf, type DnssecState, type RolloverEntry } from './dnssec-state.js';
import { waitAfter, type DnssecTimings } from './dnssec-timings.js';
import { newCsk } from './new-key.js';
import { advanceRollover, holdRollover, nextStepOf, startRollover } from './rollover.js';

/** What the schedule is built from: the dnssec capability's, plus account time, the registrars and timings. */
export interface RunDnssecScheduleDeps extends DnssecDeps {
  /** Account time: the sandbox clock drives test zones' schedules; signatures stay in real time (`clock`). */
  readonly time: AccountClock;
  readonly registrars: RegistrarEnvironments;
  readonly domains: Pick<DomainRepository, 'find'>;
  readonly timings: DnssecTimings;
}

export interface ScheduleReport {
  disabled: number;
  steps: number;
  started: number;
  held: number;
}

const ACTOR = 'system:dnssec';

/** "<tag> <alg> <digest type> <hex>" → the registry's DS record. */
const dsRecordOf = (presentation: string): DsRecord => {
  const [tag, alg, type, digest] = presentation.trim().split(/\s+/);
  return { keyTag: Number(tag), algorithm: Number(alg), digestType: Number(type), digest: (digest ?? '').toUpperCase() };
};

/** The longest TTL in the zone: how long a cache may keep an RRset with its old signatures. */
const zoneTtlOf = (zone: StoredZone): number => zone.recordSets.reduce((m, s) => Math.max(m, s.ttl), 0);

/**
 * The worker's DNSSEC pass (and sandbox time travel's): every zone whose next scheduled step has come —
 * in account time, so the sandbox clock moves test zones' schedules — takes it:
 * - "disabling" past stopSigningAt: signing stops, the zone is served unsigned;
 * - a rollover step (rollover.ts), the DS replacement at the registry being a system step of its own
 *   (no class 3 operation: the owners agreed to DNSSEC, and the DS swap keeps what they agreed to);
 * - a CSK past its lifetime: an automatic CSK rollover starts.
 * Each step records `dns.dnssec_rollover` (or `dns.dnssec_disabled`), and every owner gets a notice.
 */
export class RunDnssecSchedule {
  constructor(private readonly deps: RunDnssecScheduleDeps) {}

  async run(limit = 100): Promise<ScheduleReport> {
    const report: ScheduleReport = { disabled: 0, steps: 0, started: 0, held: 0 };
    const real = this.deps.clock.now();
    const ahead = Math.max(0, ...(await this.deps.time.travelled()).map((t) => t.offsetMs));
    const due = await this.deps.dnssec.scheduled(new Date(real.getTime() + ahead), limit);
    for (const d of due) {
      const now = await this.deps.time.now(d.accountId, d.environment);
      if (d.at.getTime() > now.getTime()) continue;
      try {
        const outcome = await this.step(d.zoneId, now);
        if (outcome) report[outcome]++;
      } catch (err) {
        if (!(err instanceof ZoneChanged)) throw err; // another write won: the next pass tries again
      }
    }
    return report;
  }

  private async step(zoneId: string, now: Date): Promise<keyof ScheduleReport | null> {
    const state = await this.deps.dnssec.find(zoneId);
    if (!state) return null;
    if (state.status === 'disabling' && state.stopSigningAt && state.stopSigningAt <= now) return this.stopSigning(state);
    if (state.rollover && state.rollover.nextAt <= now) {
      if (nextStepOf(state.rollover) === 'ds_replaced') {
        const refused = await this.replaceDs(state);
        if (refused) return this.hold(state, now, refused);
      }
      return this.commit(state, (s, zone) => advanceRollover(s, now, this.deps.timings, zoneTtlOf(zone)), 'steps');
    }
    if (!state.rollover && state.status !== 'disabling' && state.nextRolloverAt && state.nextRolloverAt <= now) {
      const active = state.keys.find((k) => k.state === 'active');
      if (!active) return null;
      // A multi-signer move under way (RFC 8901): the other operator's DNSKEY set names our current key
      // only, so a new one would sign answers their validators cannot check. Wait a day and look again.
      if (state.foreignKeys?.length) return this.postponeRollover(state, now);
      const key = newCsk(this.deps, state.domain, active.algorithm, this.deps.clock.now());
      return this.commit(
        state,
        (s, zone) => ({ ...startRollover(s, key, 'csk', now, this.deps.timings, zoneTtlOf(zone)), nextRolloverAt: null }),
        'started',
        // Still due and still ours alone once locked: a key added meanwhile holds the rollover back.
        (c) => !c.foreignKeys?.length && !!c.nextRolloverAt && c.nextRolloverAt <= now,
      );
    }
    return null;
  }

  /**
   * The DS swap at the registry: the new key's DS added, then the old one removed (the registry never
   * holds none of ours). Only for a domain registered through us whose parent holds our DS; a hosted
   * domain's DS is its owner's to change, and the CDS/CDNSKEY we publish tell them what it should be.
   * Returns the registry's refusal, or null.
   */
  private async replaceDs(state: DnssecState): Promise<string | null> {
    const r = state.rollover!;
    if (!state.dsAtParent) return null;
    const zone = await this.deps.zones.findById(state.zoneId);
    if (!zone) return null;
    const domain = await this.deps.domains.find(zone.accountId, zone.environment, zone.domain);
    if (!domain || isHosted(domain)) return null;
    const newKey = state.keys.find((k) => k.id === r.newKeyId)!;
    const oldKey = state.keys.find((k) => k.id === r.oldKeyId)!;
    const registrar = this.deps.registrars.get(zone.environment).registrar;
    // Derived from the rollover, so a retry after a crash is recognised by the registry (EPP clTRID).
    const txid = `dnssec-${state.zoneId}-${r.startedAt.getTime()}`;
    try {
      await requireCapability(registrar, 'ds_set').setDs(zone.domain, [dsRecordOf(newKey.ds)], `${txid}-add`);
      await requireCapability(registrar, 'ds_remove').removeDs(zone.domain, [dsRecordOf(oldKey.ds)], `${txid}-rem`);
      return null;
    } catch (err) {
      if (err instanceof RegistryError) return err.message;
      if (isDomainError(err) && err.code === 'registrar_capability_missing')
        return `${String(err.fact('registrar'))} cannot ${String(err.fact('capability'))}`;
      throw err; // not the registry's answer: the next pass tries again
    }
  }

  /** The registry refused the DS swap: both keys keep signing (safe with either DS), the owners hear why, and it is tried again later. */
  private async hold(state: DnssecState, now: Date, reason: string): Promise<keyof ScheduleReport> {
    const retryS = waitAfter(this.deps.timings, this.deps.timings.dnskeyTtlS);
    const entry: Omit<RolloverEntry, 'at'> = { step: 'ds_replace_failed', note: reason };
    await this.deps.uow.transaction(async () => {
      const zone = await this.deps.zones.findById(state.zoneId);
      if (!zone) return;
      await this.deps.zones.lock(zone.accountId, zone.environment, zone.domain);
      const current = await this.deps.dnssec.find(state.zoneId);
      if (!current?.rollover || current.rollover.step !== state.rollover!.step) return;
      const held = holdRollover(current, now, retryS, entry);
      await this.deps.dnssec.save(held);
      await this.record(zone, held, 'ds_replace_failed', reason);
    });
    return 'held';
  }

  private async stopSigning(state: DnssecState): Promise<keyof ScheduleReport | null> {
    const zone = await this.deps.uow.transaction(async () => {
      const z = await this.deps.zones.findById(state.zoneId);
      if (!z) return null;
      await this.deps.zones.lock(z.accountId, z.environment, z.domain);
      const current = await this.deps.dnssec.find(state.zoneId);
      if (current?.status !== 'disabling') return null;
      await this.deps.dnssec.remove(state.zoneId);
      const next = await this.deps.zoneService.commit(z, [], []);
      await this.deps.events.record(
        'dns.dnssec_disabled',
        {
          accountId: z.accountId,
          environment: z.environment,
          subject: `domain:${z.domain}`,
          actor: ACTOR,
          occurredAt: this.deps.clock.now(),
        },
        { domain: z.domain, serial: next.serial },
      );
      const { signing: _signed, ...unsigned } = next;
      void _signed;
      return unsigned;
    });
    if (!zone) return null;
    await this.deps.zoneService.publishOrReport(zone);
    return 'disabled';
  }

  /**
   * The automatic rollover waits a day while other operators' keys are in the DNSKEY set: under the zone's
   * lock, on the state as it is then (a key added or removed meanwhile is kept as it is), moving only its time.
   */
  private async postponeRollover(state: DnssecState, now: Date): Promise<keyof ScheduleReport | null> {
    return this.deps.uow.transaction(async () => {
      const z = await this.deps.zones.findById(state.zoneId);
      if (!z) return null;
      await this.deps.zones.lock(z.accountId, z.environment, z.domain);
      const current = await this.deps.dnssec.find(state.zoneId);
      if (!current?.foreignKeys?.length || current.rollover || !current.nextRolloverAt || current.nextRolloverAt > now) return null;
      await this.deps.dnssec.save({ ...current, nextRolloverAt: new Date(now.getTime() + 86400_000) });
      return 'held';
    });
  }

  /** One step in one transaction: the state, a new serial (so secondaries transfer it), the event; published after. */
  private async commit(
    state: DnssecState,
    change: (s: DnssecState, zone: StoredZone) => DnssecState,
    outcome: keyof ScheduleReport,
    still: (current: DnssecState) => boolean = () => true,
  ): Promise<keyof ScheduleReport | null> {
    const zone = await this.deps.uow.transaction(async () => {
      const z = await this.deps.zones.findById(state.zoneId);
      if (!z) return null;
      await this.deps.zones.lock(z.accountId, z.environment, z.domain);
      const current = await this.deps.dnssec.find(state.zoneId);
      // Another worker took this step already.
      if (!current || current.rollover?.step !== state.rollover?.step || current.status !== state.status || !still(current)) return null;
      const next = change(current, z);
      await this.deps.dnssec.save(next);
      const committed = await this.deps.zoneService.commit(z, [], []);
      const r = next.rollover ?? next.lastRollover!;
      await this.record(z, next, r.history[r.history.length - 1]!.step);
      return { ...committed, signing: zoneSigningOf(next) };
    });
    if (!zone) return null;
    await this.deps.zoneService.publishOrReport(zone);
    return outcome;
  }

  private async record(zone: StoredZone, s: DnssecState, step: string, reason?: string): Promise<void> {
    const r = s.rollover ?? s.lastRollover!;
    const fresh = s.keys.find((k) => k.id === r.newKeyId)!;
    await this.deps.events.record(
      'dns.dnssec_rollover',
      {
        accountId: zone.accountId,
        environment: zone.environment,
        subject: `domain:${zone.domain}`,
        actor: ACTOR,
        occurredAt: this.deps.clock.now(),
      },
      {
        domain: zone.domain,
        kind: r.kind,
        step,
        old_key_tag: r.oldKeyTag,
        new_key_tag: r.newKeyTag,
        algorithm: fresh.algorithm,
        next_step_at: s.rollover ? s.rollover.nextAt.toISOString() : null,
        ...(step === 'ds_replaced' || step === 'ds_replace_failed' ? { ds: [fresh.ds] } : {}),
        ...(reason ? { reason } : {}),
      },
    );
  }
}
