import type { RecordingDeps } from '../kernel/recording-deps.js';
import type { DomainZones } from './ports/zones.port.js';
import type { AccountClock } from '../kernel/account-clock.port.js';
import type { DurableCheckpoints, DurableRun } from '../kernel/checkpoints.port.js';
import { addDays, endOfKyivDay, kyivDate } from '../kernel/dates.js';
import type { Environment } from '../kernel/environment.js';
import { isDomainError } from '../kernel/errors.js';
import { isRegistered, type RegisteredDomain } from './domain.js';
import { AUTO_RENEW_LEAD_DAYS, phaseOfStatus, phaseOn, statusFor, type Phase } from './lifecycle.js';
import type { DomainRepository } from './ports/domain-repository.port.js';
import type { RenewDomain } from './renew-domain.use-case.js';
import type { KeyRepository } from '../access/ports/key-repository.port.js';

const LEASE_MS = 5 * 60_000;
const AUTO_RENEW_SCOPE = 'system:auto-renew';
const BATCH = 100;

export interface LifecycleReport {
  renewed: number;
  renewalFailed: number;
  moved: number;
  released: number;
}

/** What AdvanceLifecycle is built from (one object, named, instead of positions). */
export interface AdvanceLifecycleDeps extends RecordingDeps {
  readonly domains: DomainRepository;
  readonly accountClock: AccountClock;
  readonly renew: RenewDomain;
  readonly zones: Pick<DomainZones, 'remove'>;
  readonly checkpoints: DurableCheckpoints;
  /** Where the key that switched auto-renew on is looked up (absent: renewals follow the account's rules). */
  readonly keys?: Pick<KeyRepository, 'findById'>;
}

/**
 * The worker's pass over the domain lifecycle (see lifecycle.ts). Domains are claimed with a lease
 * (FOR UPDATE SKIP LOCKED on Postgres), so two workers sharing a database never handle one domain at
 * once. Each account's test environment runs on its own sandbox clock.
 */
export class AdvanceLifecycle {
  constructor(private readonly deps: AdvanceLifecycleDeps) {}

  async run(only?: { accountId: string; environment: Environment }): Promise<LifecycleReport> {
    const report: LifecycleReport = { renewed: 0, renewalFailed: 0, moved: 0, released: 0 };
    const real = this.deps.clock.now();
    const travelled = await this.deps.accountClock.travelled();
    const groups: Array<{ environment: Environment; accountId?: string; exclude?: string[]; now: Date }> = [];
    if (only) {
      groups.push({
        environment: only.environment,
        accountId: only.accountId,
        now: await this.deps.accountClock.now(only.accountId, only.environment),
      });
    } else {
      groups.push({ environment: 'live', now: real });
      groups.push({ environment: 'test', exclude: travelled.map((t) => t.accountId), now: real });
      for (const t of travelled) groups.push({ environment: 'test', accountId: t.accountId, now: new Date(real.getTime() + t.offsetMs) });
    }
    let failure: unknown = null;
    // Domains whose automatic renewal an earlier pass left with its charge reserved: claimed first and
    // whatever their expiry now (a manual renewal may have moved it), and settled before anything else.
    const unfinished = new Set(await this.deps.checkpoints.unfinished(AUTO_RENEW_SCOPE, 1000));
    const handle = async (claimed: readonly RegisteredDomain[], token: string, now: Date): Promise<void> => {
      for (const d of claimed) {
        try {
          await this.advance(d, now, report, unfinished.delete(d.id));
        } catch (err) {
          // An unknown outcome (the registry cut off): this domain waits for the next pass, the others
          // go on (and their leases are released), and the pass reports the first error.
          failure ??= err;
        } finally {
          await this.deps.domains.releaseLease(d.id, token);
        }
      }
    };
    for (const g of groups) {
      const today = kyivDate(g.now);
      const base = {
        environment: g.environment,
        ...(g.accountId ? { accountId: g.accountId } : {}),
        ...(g.exclude ? { excludeAccounts: g.exclude } : {}),
        until: addDays(today, AUTO_RENEW_LEAD_DAYS),
        now: real,
        leaseUntil: new Date(real.getTime() + LEASE_MS),
        limit: BATCH,
      };
      if (unfinished.size > 0) {
        const token = this.deps.random.id();
        await handle(await this.deps.domains.claimExpiring({ ...base, ids: [...unfinished].slice(0, BATCH), token }), token, g.now);
      }
      // Every due domain once per pass, in (expiry, id) order: a cursor, so domains that stay due with
      // nothing to do (lapsed, auto-renew off or failed) cannot keep the ones behind them from their turn.
      let after: { expiresOn: string; id: string } | undefined;
      for (let page = 0; page < 100; page++) {
        const token = this.deps.random.id();
        const claimed = await this.deps.domains.claimExpiring({ ...base, ...(after ? { after } : {}), token });
        if (claimed.length === 0) break;
        const last = claimed[claimed.length - 1]!;
        after = { expiresOn: last.expiresOn, id: last.id };
        await handle(claimed, token, g.now);
        if (claimed.length < BATCH) break;
      }
    }
    if (failure !== null) throw failure;
    return report;
  }

  /** Moves one domain as far as `now` allows; returns how many changes it made. */
  private async advance(start: RegisteredDomain, now: Date, report: LifecycleReport, resumeRenewal: boolean): Promise<number> {
    const today = kyivDate(now);
    let d = start;
    let changes = 0;
    // A renewal an earlier pass left with its charge reserved is settled first, whatever changed since
    // (auto_renew switched off, a manual renewal, the phase): the registry may already have renewed.
    let resume = resumeRenewal;
    for (let step = 0; step < 12; step++) {
      const phase = phaseOn(d.expiresOn, today);
      // Catch up: judge by the phase last recorded, so a pass that comes late (or a sandbox time jump)
      // still makes the automatic renewal the worker would have made before the domain moved on.
      const recorded = phaseOfStatus(d.status);
      const renewable = (recorded === 'active' || recorded === 'autoRenewPeriod') && phase !== 'released';
      let run: DurableRun | null = null;
      if (resume) {
        resume = false;
        run = await this.deps.checkpoints.open(AUTO_RENEW_SCOPE, d.id);
        // Settled meanwhile by another pass (the list was read at the start of this one): nothing to resume.
        if (run.last === null) {
          await run.finish();
          run = null;
        }
      }
      const resuming = run !== null;
      if (
        resuming ||
        (d.autoRenew && renewable && today >= addDays(d.expiresOn, -AUTO_RENEW_LEAD_DAYS) && d.autoRenewFailedFor !== d.expiresOn)
      ) {
        // Kept in the store under the domain: a pass cut off after the registry renewed leaves the charge
        // pending, and the next pass resumes it (the same client transaction id, the expiry it renewed from).
        run ??= await this.deps.checkpoints.open(AUTO_RENEW_SCOPE, d.id);
        try {
          await this.deps.renew.execute(
            { kind: 'auto', accountId: d.accountId, environment: d.environment, leaseHeld: true, spendingKey: await this.spendingKey(d) },
            { domain: d.name, years: 1 },
            run,
          );
          await run.finish();
          report.renewed++;
          changes++;
          d = (await this.deps.domains.find(d.accountId, d.environment, d.name)) as RegisteredDomain;
          continue;
        } catch (err) {
          if (!isDomainError(err)) {
            await run.suspend();
            throw err;
          }
          await run.finish();
          changes++;
          if (resuming) {
            // The registry refused the renewal an earlier pass began (the domain moved on meanwhile): its
            // charge was voided; the domain is judged afresh, and no failure is recorded for it.
            const fresh = await this.deps.domains.find(d.accountId, d.environment, d.name);
            if (!fresh || !isRegistered(fresh)) break;
            d = fresh;
            continue;
          }
          report.renewalFailed++;
          d = await this.markAutoRenewFailed(d, err.code, now);
          continue;
        }
      }
      const current = phaseOfStatus(d.status);
      if (phase === current) break;
      changes++;
      if (phase === 'released') {
        await this.release(d, now);
        report.released++;
        break;
      }
      d = await this.move(d, phase, now);
      report.moved++;
    }
    return changes;
  }

  /**
   * A renewal that follows from a key's switch is that key's spending: it counts against the key's spend
   * limit (its Kyiv month, real time) while the key is valid — not revoked, not expired, of this account
   * and environment. Once the key is gone, the account's rules apply: the balance alone, as for a domain
   * whose auto-renew no key switched on.
   */
  private async spendingKey(d: RegisteredDomain): Promise<{ id: string; spendLimit: number | null } | null> {
    if (!d.autoRenewKeyId || !this.deps.keys) return null;
    const key = await this.deps.keys.findById(d.autoRenewKeyId);
    if (!key || key.revokedAt || key.accountId !== d.accountId || key.environment !== d.environment) return null;
    if (this.deps.clock.now() > endOfKyivDay(key.conditions.expiresOn)) return null;
    return { id: key.id, spendLimit: key.conditions.spendLimit };
  }

  private async markAutoRenewFailed(d: RegisteredDomain, reason: string, now: Date): Promise<RegisteredDomain> {
    const updated: RegisteredDomain = { ...d, autoRenewFailedFor: d.expiresOn };
    await this.deps.uow.transaction(async () => {
      await this.deps.domains.update(updated);
      await this.deps.events.record(
        'domain.auto_renew_failed',
        { accountId: d.accountId, environment: d.environment, subject: `domain:${d.name}`, actor: 'system:auto-renew', occurredAt: now },
        { domain: d.name, expires_at: d.expiresOn, reason },
      );
    });
    return updated;
  }

  private async move(d: RegisteredDomain, phase: Phase, now: Date): Promise<RegisteredDomain> {
    const updated: RegisteredDomain = { ...d, status: statusFor(d.status, phase, d.transferLock) };
    await this.deps.uow.transaction(async () => {
      await this.deps.domains.update(updated);
      await this.deps.events.record(
        'domain.status_changed',
        { accountId: d.accountId, environment: d.environment, subject: `domain:${d.name}`, actor: 'system:lifecycle', occurredAt: now },
        { domain: d.name, from: d.status, to: updated.status, expires_at: d.expiresOn },
      );
    });
    return updated;
  }

  private async release(d: RegisteredDomain, now: Date): Promise<void> {
    await this.deps.uow.transaction(async () => {
      await this.deps.domains.remove(d.id);
      await this.deps.zones.remove(d.accountId, d.environment, d.name);
      await this.deps.events.record(
        'domain.released',
        { accountId: d.accountId, environment: d.environment, subject: `domain:${d.name}`, actor: 'system:lifecycle', occurredAt: now },
        { domain: d.name, expired_on: d.expiresOn },
      );
    });
  }
}
