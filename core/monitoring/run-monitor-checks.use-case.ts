import type { RecordingDeps } from '../kernel/recording-deps.js';
import type { DomainRepository } from '../domains/ports/domain-repository.port.js';
import type { AccountClock } from '../kernel/account-clock.port.js';
import type { CheckResult, Monitor, MonitorState } from './monitor.js';
import { storableText, storableValue } from '../kernel/foreign-text.js';
import { describeTarget } from './monitor-target.js';
import type { MonitorRepository } from './ports/monitor-repository.port.js';
import type { ProbeOutcome, ProbesFor } from './ports/probes.port.js';

const DAY = 24 * 3600_000;

export interface MonitorCheckOptions {
  /** Per-check timeout (ms): a probe still running then counts as failed. */
  readonly timeoutMs: number;
  /** Monitors claimed per pass (all run concurrently). */
  readonly batch: number;
}

export interface MonitorChecksReport {
  checked: number;
  failed: number;
  recovered: number;
  lost: number;
}

/** Thrown inside the transaction when another worker took the lease meanwhile: roll back, record nothing. */
class LeaseLost extends Error {}

/** What RunMonitorChecks is built from (one object, named, instead of positions). */
export interface RunMonitorChecksDeps extends RecordingDeps {
  readonly monitors: MonitorRepository;
  readonly domains: DomainRepository;
  readonly probesFor: ProbesFor;
  readonly accountTime: AccountClock;
  readonly options: MonitorCheckOptions;
}

/**
 * The worker's monitoring pass: claims due monitors under a lease, runs their probes
 * concurrently (each with its own timeout), and records each outcome in one transaction with what it
 * causes — the result row; on ok→failing (or a first check that fails) an incident, the event
 * monitor.check_failed and a notice to every owner; on failing→ok the incident's end,
 * monitor.check_recovered and a notice.
 */
export class RunMonitorChecks {
  constructor(private readonly deps: RunMonitorChecksDeps) {}

  async run(): Promise<MonitorChecksReport> {
    const now = this.deps.clock.now();
    const token = this.deps.random.id();
    const claimed = await this.deps.monitors.claimDue({
      now,
      token,
      leaseUntil: new Date(now.getTime() + this.deps.options.timeoutMs + 60_000),
      limit: this.deps.options.batch,
    });
    const report: MonitorChecksReport = { checked: 0, failed: 0, recovered: 0, lost: 0 };
    await Promise.all(
      claimed.map(async (m) => {
        const outcome = await this.probe(m);
        const moved = await this.record(m, token, outcome);
        if (moved === null) report.lost++;
        else {
          report.checked++;
          if (moved === 'failing') report.failed++;
          if (moved === 'ok') report.recovered++;
        }
      }),
    );
    return report;
  }

  /** Runs one probe (each honours the timeout itself; src/ adds a backstop around every probe). */
  private async probe(m: Monitor): Promise<ProbeOutcome> {
    try {
      return await this.run1(m, this.deps.options.timeoutMs);
    } catch (err) {
      return { ok: false, latencyMs: null, reason: `check could not run: ${err instanceof Error ? err.message : String(err)}`, detail: {} };
    }
  }

  private async run1(m: Monitor, timeoutMs: number): Promise<ProbeOutcome> {
    const probes = this.deps.probesFor(m.environment);
    switch (m.spec.kind) {
      case 'http':
        return probes.http.check(m.spec, timeoutMs);
      case 'tls':
        return probes.tls.check(m.spec, await this.deps.accountTime.now(m.accountId, m.environment), timeoutMs);
      case 'dns':
        return probes.dns.check(m.spec, timeoutMs);
      case 'domain_expiry': {
        const d = await this.deps.domains.find(m.accountId, m.environment, m.domain);
        if (!d) return { ok: false, latencyMs: null, reason: `${m.domain} is no longer in the account`, detail: {} };
        const now = await this.deps.accountTime.now(m.accountId, m.environment);
        const daysLeft = Math.floor((Date.parse(`${d.expiresOn}T00:00:00Z`) - now.getTime()) / DAY);
        const ok = daysLeft >= m.spec.minDaysValid;
        return {
          ok,
          latencyMs: null,
          detail: { expires_at: d.expiresOn, days_left: daysLeft, auto_renew: d.autoRenew },
          reason: ok
            ? null
            : daysLeft < 0
              ? `${m.domain} expired on ${d.expiresOn}`
              : `${m.domain} expires on ${d.expiresOn}, in ${daysLeft} days (fewer than ${m.spec.minDaysValid})`,
        };
      }
    }
  }

  /**
   * Records the outcome; returns the state it moved to ('same' when none), or null when the lease was
   * lost. When the store refuses the record (anything but a lost lease), a failed check that says so is
   * recorded instead, so the monitor still moves on to its next check and its owners hear of it.
   */
  private async record(m: Monitor, token: string, outcome: ProbeOutcome, fallback = false): Promise<MonitorState | 'same' | null> {
    try {
      return await this.recordOnce(m, token, outcome);
    } catch (err) {
      if (fallback) throw err;
      const why = err instanceof Error ? err.message : String(err);
      const failed: ProbeOutcome = {
        ok: false,
        latencyMs: outcome.latencyMs,
        reason: `the check's result could not be stored (${why.slice(0, 300)})`,
        detail: {},
      };
      return this.record(m, token, failed, true);
    }
  }

  private async recordOnce(m: Monitor, token: string, outcome: ProbeOutcome): Promise<MonitorState | 'same' | null> {
    const at = this.deps.clock.now();
    // A reason and a detail can carry what a target answered (a body, a TXT value, an error's text):
    // stored so that any store takes them.
    const result: CheckResult = {
      id: this.deps.random.id(),
      monitorId: m.id,
      checkedAt: at,
      ok: outcome.ok,
      latencyMs: outcome.latencyMs === null ? null : Math.round(outcome.latencyMs),
      reason: outcome.ok || outcome.reason === null ? null : storableText(outcome.reason),
      detail: storableValue(outcome.detail),
    };
    const turnsFailing = !outcome.ok && m.state !== 'failing';
    const recovers = outcome.ok && m.state === 'failing';
    const state: MonitorState = outcome.ok ? 'ok' : 'failing';
    try {
      await this.deps.uow.transaction(async () => {
        let openIncidentId = m.openIncidentId;
        if (turnsFailing) {
          openIncidentId = this.deps.random.id();
          await this.deps.monitors.insertIncident({
            id: openIncidentId,
            monitorId: m.id,
            startedAt: at,
            endedAt: null,
            reason: result.reason,
          });
        }
        if (recovers && m.openIncidentId) {
          await this.deps.monitors.closeIncident(m.openIncidentId, at);
          openIncidentId = null;
        }
        const next: Monitor = {
          ...m,
          state,
          stateChangedAt: state !== m.state ? at : m.stateChangedAt,
          lastReason: result.reason,
          lastCheckedAt: at,
          nextCheckAt: new Date(at.getTime() + m.intervalSeconds * 1000),
          openIncidentId,
        };
        if (!(await this.deps.monitors.completeCheck(next, token))) throw new LeaseLost();
        await this.deps.monitors.insertResult(result);
        if (turnsFailing || recovers)
          await this.announce(m, result, turnsFailing ? 'failed' : 'recovered', turnsFailing ? openIncidentId : m.openIncidentId, at);
      });
    } catch (err) {
      if (err instanceof LeaseLost) return null;
      throw err;
    }
    return turnsFailing ? 'failing' : recovers ? 'ok' : 'same';
  }

  private async announce(m: Monitor, r: CheckResult, how: 'failed' | 'recovered', incidentId: string | null, at: Date): Promise<void> {
    const target = describeTarget(m);
    const data = {
      monitor_id: m.id,
      domain: m.domain,
      kind: m.spec.kind,
      target,
      incident_id: incidentId,
      reason: r.reason,
      checked_at: at.toISOString(),
      latency_ms: r.latencyMs,
    };
    await this.deps.events.record(
      how === 'failed' ? 'monitor.check_failed' : 'monitor.check_recovered',
      { accountId: m.accountId, environment: m.environment, subject: `monitor:${m.id}`, actor: 'system:monitoring', occurredAt: at },
      data,
    );
  }
}
