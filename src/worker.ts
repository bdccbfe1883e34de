import type { Logger } from 'pino';
import { IDEMPOTENCY_RETENTION_MS } from '../core/kernel/idempotency-store.port.js';
import type { CompleterReport } from '../adapters/http/completer.js';
import type { LifecycleReport } from '../core/domains/advance-lifecycle.use-case.js';
import type { System } from './system.js';
import { TOKENS } from './tokens.js';
import { WebhookDispatcher } from './webhook-dispatcher.js';

/**
 * The background worker: the domain lifecycle (automatic renewal, expiry, redemption, release),
 * certificates (issuance left over, renewal 30 days before expiry, expiry), the e-mail outbox of notices, monitoring checks (also on their own 5 s beat) and their 30-day retention, the completer (phased requests whose client went away, adapters/http/completer.ts) and housekeeping (idempotency records past their 24 h). Runs inside
 * `npm start` or alone as `npm run worker`; several workers may share one Postgres (claims are leases
 * taken with FOR UPDATE SKIP LOCKED).
 */
export class Worker {
  private timer: NodeJS.Timeout | null = null;
  private readonly log: Logger;
  /** Issue 11: publishes events and sends webhooks continuously (not on the 30 s tick). */
  private dispatcher: WebhookDispatcher | null = null;
  private lastRegistryPoll = 0;
  private readonly registryPollMs = () => (this.system.config.epp?.pollSeconds ?? 60) * 1000;

  constructor(private readonly system: System, private readonly intervalMs = 30_000) {
    this.log = system.logger.child({ component: 'worker' });
  }

  /** One pass: the domain lifecycle, e-mailed notices, housekeeping. Each part fails on its own. */
  async tick(now = new Date()): Promise<{ idempotencyPurged: number; completer: CompleterReport | null; lifecycle: LifecycleReport | null; certificates: unknown; notices: unknown; operations: unknown; monitors?: unknown }> {
    // Phased requests whose client went away (a charge reserved, then silence): finished before anything
    // else, so what they hold is settled. Their records are kept by the purge below until then.
    let completer: CompleterReport | null = null;
    try {
      completer = await this.system.completeAbandonedRequests();
      if (completer.completed + completer.failed + completer.skipped > 0) this.log.info({ completer }, 'abandoned requests');
    } catch (err) {
      this.log.error({ err }, 'completer pass failed');
    }
    const idempotencyPurged = await this.system.store.idempotency.purge(new Date(now.getTime() - IDEMPOTENCY_RETENTION_MS));
    if (idempotencyPurged > 0) this.log.info({ idempotencyPurged }, 'purged idempotency records');
    let lifecycle: LifecycleReport | null = null;
    try {
      lifecycle = await this.system.get(TOKENS.AdvanceLifecycle).run();
      if (lifecycle.renewed + lifecycle.renewalFailed + lifecycle.moved + lifecycle.released > 0) this.log.info({ lifecycle }, 'domain lifecycle');
    } catch (err) {
      this.log.error({ err }, 'domain lifecycle pass failed');
    }
    try {
      const expired = await this.system.get(TOKENS.AcmeChallenges).expire();
      if (expired > 0) this.log.info({ expired }, 'expired ACME challenge values');
    } catch (err) {
      this.log.error({ err }, 'ACME challenge expiry failed');
    }
    let certificates: unknown = null;
    try {
      const report = await this.system.get(TOKENS.CertificateIssuance).run();
      certificates = report;
      if (Object.values(report).some((n) => n > 0)) this.log.info({ certificates: report }, 'certificates');
    } catch (err) {
      this.log.error({ err }, 'certificate pass failed');
    }
    // Class 3 operations whose activation time came (issue 10): claimed with leases, applied once.
    let operations: unknown = null;
    try {
      const report = await this.system.get(TOKENS.ActivateDueOperations).run();
      operations = report;
      if (report.activated + report.failed + report.retry > 0) this.log.info({ operations: report }, 'class 3 operations');
    } catch (err) {
      this.log.error({ err }, 'class 3 operations pass failed');
    }
    let notices: unknown = null;
    if (this.system.container.isBound(TOKENS.DeliverNotices)) {
      try {
        notices = await this.system.get(TOKENS.DeliverNotices).run();
      } catch (err) {
        this.log.error({ err }, 'notice delivery pass failed');
      }
    }
    // Issue 11: the event log keeps 30 days (EVENTS_RETENTION_DAYS); delivery logs go with their events.
    try {
      const before = new Date(this.system.get(TOKENS.Clock).now().getTime() - this.system.config.eventsRetentionDays * 86_400_000);
      const events = await this.system.store.eventFeed.purge(before);
      const deliveries = await this.system.store.webhooks.purge(before);
      if (events + deliveries > 0) this.log.info({ events, deliveries }, 'purged old events and webhook deliveries');
    } catch (err) {
      this.log.error({ err }, 'event retention pass failed');
    }
    let monitors: unknown = null;
    try {
      monitors = await this.monitors();
    } catch (err) {
      this.log.error({ err }, 'monitoring pass failed');
    }
    // The live registry's messages (EPP poll → DomainEvents), when the live registrar is EPP.
    if (this.system.container.isBound(TOKENS.ProcessRegistryMessages) && now.getTime() - this.lastRegistryPoll >= this.registryPollMs()) {
      this.lastRegistryPoll = now.getTime();
      try {
        const registry = await this.system.get(TOKENS.ProcessRegistryMessages).run();
        if (registry.recorded + registry.unmatched > 0) this.log.info({ registry }, 'registry messages');
      } catch (err) {
        this.log.error({ err }, 'registry message pass failed');
      }
    }
    return { idempotencyPurged, completer, lifecycle, certificates, notices, operations, monitors };
  }

  /** Monitoring (issue 11): due checks (leased, run concurrently), then results past 30 days pruned. */
  async monitors(): Promise<{ checks: unknown; pruned: number }> {
    const checks = await this.system.get(TOKENS.RunMonitorChecks).run();
    if (checks.checked + checks.lost > 0) this.log.info({ monitors: checks }, 'monitor checks');
    const pruned = await this.system.get(TOKENS.PruneMonitorResults).run();
    if (pruned > 0) this.log.info({ pruned }, 'pruned monitor results');
    return { checks, pruned };
  }

  start(): void {
    // One tick at a time: a slow pass (a registry timing out) is not overlapped by the next one.
    let running = false;
    const run = () => {
      if (running) return;
      running = true;
      this.tick().catch((err) => this.log.error({ err }, 'worker tick failed')).finally(() => (running = false));
    };
    run();
    this.timer = setInterval(run, this.intervalMs);
    this.timer.unref();
    const cfg = this.system.config.webhooks;
    this.dispatcher = new WebhookDispatcher(
      this.system.get(TOKENS.PublishEvents), this.system.get(TOKENS.DeliverWebhooks),
      { pollMs: cfg.pollMs, concurrency: cfg.concurrency, leaseMs: cfg.leaseMs, timeoutMs: cfg.timeoutMs, perEndpoint: cfg.perEndpoint },
      this.log.child({ component: 'webhooks' }),
    );
    this.dispatcher.start();
    this.startMonitoring();
  }

  /** Stops the webhook dispatcher and waits for attempts in flight. */
  async drain(): Promise<void> {
    await this.dispatcher?.stop();
    this.dispatcher = null;
  }

  /** Monitors may be due every 10 s (sandbox): their pass also runs on its own 5-second beat, never overlapping itself. */
  private monitorTimer: NodeJS.Timeout | null = null;
  private monitorPass: Promise<unknown> | null = null;
  private startMonitoring(): void {
    this.monitorTimer = setInterval(() => {
      if (this.monitorPass) return;
      this.monitorPass = this.monitors()
        .catch((err) => this.log.error({ err }, 'monitoring pass failed'))
        .finally(() => (this.monitorPass = null));
    }, 5_000);
    this.monitorTimer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    void this.dispatcher?.stop();
    this.dispatcher = null;
    if (this.monitorTimer) clearInterval(this.monitorTimer);
    this.monitorTimer = null;
  }
}
