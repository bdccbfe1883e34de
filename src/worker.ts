import type { Logger } from 'pino';
import { IDEMPOTENCY_RETENTION_MS } from '../core/kernel/idempotency-store.port.js';
import type { System } from './system.js';
import { TOKENS } from './tokens.js';
import { WebhookDispatcher } from './webhook-dispatcher.js';

/** One job of the worker's pass (see Worker.jobs). */
interface WorkerJob {
  readonly name: string;
  /** Logged with the error when the job throws. */
  readonly failure: string;
  /** Logged with the report when it is not quiet; none: never logged. */
  readonly log?: string;
  /** At most once per this many milliseconds; none: every pass. */
  readonly every?: () => number;
  /** Whether the job is configured in this process at all. */
  readonly enabled?: () => boolean;
  /** A failure ends the pass instead of being logged (the store itself is unreachable). */
  readonly throws?: boolean;
  readonly run: (now: Date) => Promise<any>;
  readonly quiet: (report: any) => boolean;
}

/** What the worker reports as it runs (metrics); nothing by default. */
export interface WorkerHooks {
  jobRan(job: string, seconds: number, ok: boolean): void;
  /** How late a pass started after it was due. */
  passLag(seconds: number): void;
}

/**
 * The background worker: the domain lifecycle (automatic renewal, expiry, redemption, release),
 * certificates (issuance left over, renewal 30 days before expiry, expiry), the e-mail outbox of notices, monitoring checks (also on their own 5 s beat) and their 30-day retention, the completer (phased requests whose client went away, adapters/http/completer.ts) and housekeeping (idempotency records past their 24 h). Runs inside
 * `npm start` or alone as `npm run worker`; several workers may share one Postgres (claims are leases
 * taken with FOR UPDATE SKIP LOCKED).
 */
export class Worker {
  private timer: NodeJS.Timeout | null = null;
  private readonly log: Logger;
  /** Publishes events and sends webhooks continuously (not on the 30 s tick). */
  private dispatcher: WebhookDispatcher | null = null;

  /** Set by finish(): the pass in progress ends after its current job, and no new one starts. */
  private stopping = false;
  /** The pass in progress (start()'s tick), if any. */
  private pass: Promise<unknown> | null = null;

  constructor(
    private readonly system: System,
    private readonly intervalMs = 30_000,
    private readonly hooks?: WorkerHooks,
  ) {
    this.log = system.logger.child({ component: 'worker' });
  }

  /**
   * What one pass runs, in this order, each on its own: a job that fails is logged and the pass goes on.
   * `every`: on every pass (the 30 s tick), or at most once per that many milliseconds. `quiet` says
   * when a report is not worth a log line. Phased requests whose client went away (a charge reserved,
   * then silence) are finished first, so what they hold is settled before anything else runs.
   */
  private readonly jobs: readonly WorkerJob[] = [
    {
      name: 'completer',
      failure: 'completer pass failed',
      log: 'abandoned requests',
      run: () => this.system.completeAbandonedRequests(),
      quiet: (r) => r.completed + r.failed + r.skipped === 0,
    },
    {
      name: 'idempotencyPurged',
      log: 'purged idempotency records',
      failure: 'idempotency purge failed',
      throws: true,
      run: (now) => this.system.store.idempotency.purge(new Date(now.getTime() - IDEMPOTENCY_RETENTION_MS)),
      quiet: (n) => n === 0,
    },
    {
      name: 'credentialAttemptsPruned',
      log: 'pruned credential attempt counters',
      failure: 'credential attempt prune failed',
      every: () => 10 * 60_000,
      run: () => this.system.get(TOKENS.CredentialThrottle).prune(),
      quiet: (n) => n === 0,
    },
    {
      name: 'lifecycle',
      failure: 'domain lifecycle pass failed',
      log: 'domain lifecycle',
      run: () => this.system.get(TOKENS.AdvanceLifecycle).run(),
      quiet: (r) => r.renewed + r.renewalFailed + r.moved + r.released === 0,
    },
    {
      // Transfers between registrars under way: asked again after an outage, answered, settled once.
      name: 'transfers',
      failure: 'domain transfer pass failed',
      log: 'domain transfers',
      run: () => this.system.get(TOKENS.AdvanceTransfers).run(),
      quiet: (r) => r.completed + r.ended === 0,
    },
    {
      name: 'acmeChallenges',
      failure: 'ACME challenge expiry failed',
      log: 'expired ACME challenge values',
      run: () => this.system.get(TOKENS.AcmeChallenges).expire(),
      quiet: (n) => n === 0,
    },
    {
      name: 'certificates',
      failure: 'certificate pass failed',
      log: 'certificates',
      run: () => this.system.get(TOKENS.CertificateIssuance).run(),
      quiet: (r: Record<string, number>) => !Object.values(r).some((n) => n > 0),
    },
    {
      // Class 3 operations whose activation time came: claimed with leases, applied once.
      name: 'operations',
      failure: 'class 3 operations pass failed',
      log: 'class 3 operations',
      run: () => this.system.get(TOKENS.ActivateDueOperations).run(),
      quiet: (r) => r.activated + r.failed + r.retry === 0,
    },
    {
      name: 'notices',
      failure: 'notice delivery pass failed',
      enabled: () => this.system.container.isBound(TOKENS.DeliverNotices),
      run: () => this.system.get(TOKENS.DeliverNotices).run(),
      quiet: () => true,
    },
    {
      // The event log keeps EVENTS_RETENTION_DAYS; delivery logs go with their events.
      name: 'retention',
      failure: 'event retention pass failed',
      log: 'purged old events and webhook deliveries',
      run: async () => {
        const before = new Date(this.system.get(TOKENS.Clock).now().getTime() - this.system.config.eventsRetentionDays * 86_400_000);
        return { events: await this.system.store.eventFeed.purge(before), deliveries: await this.system.store.webhooks.purge(before) };
      },
      quiet: (r) => r.events + r.deliveries === 0,
    },
    {
      // DNSSEC signatures: a zone whose signature window is half used gets a new one and a new serial.
      name: 'dnssecSignatures',
      failure: 'DNSSEC signature refresh failed',
      log: 'refreshed DNSSEC signatures',
      every: () => 10 * 60_000,
      run: () => this.system.get(TOKENS.RefreshSignatures).execute(),
      quiet: (n) => n === 0,
    },
    {
      // DNSSEC schedules: switch-offs past the DS TTL, rollover steps (the DS swap among them), CSKs past their lifetime.
      name: 'dnssecSchedule',
      failure: 'DNSSEC schedule pass failed',
      log: 'DNSSEC schedule steps',
      run: () => this.system.get(TOKENS.RunDnssecSchedule).run(),
      quiet: (r) => r.disabled + r.steps + r.started + r.held === 0,
    },
    { name: 'monitors', failure: 'monitoring pass failed', run: () => this.monitors(), quiet: () => true },
    {
      // Active hosted zones: is the delegation still ours? (HOSTING_RECHECK_SECONDS per zone.)
      name: 'hosting',
      failure: 'hosted delegation re-check failed',
      log: 'hosted delegations re-checked',
      every: () => Math.min(this.system.config.hosting.recheckSeconds * 1000, 60_000),
      run: () => this.system.get(TOKENS.RecheckHosting).run(),
      quiet: (r) => r.checked === 0,
    },
    {
      // The live registry's messages (EPP poll → DomainEvents), when the live registrar is EPP.
      name: 'registry',
      failure: 'registry message pass failed',
      log: 'registry messages',
      every: () => (this.system.config.epp?.pollSeconds ?? 60) * 1000,
      enabled: () => this.system.container.isBound(TOKENS.ProcessRegistryMessages),
      run: () => this.system.get(TOKENS.ProcessRegistryMessages).run(),
      quiet: (r) => r.recorded + r.unmatched === 0,
    },
  ];

  private readonly lastRun = new Map<string, number>();

  /** One pass over the jobs; returns each job's report by name (null when it failed or did not run). */
  async tick(now = new Date()): Promise<Record<string, any>> {
    const reports: Record<string, unknown> = {};
    for (const job of this.jobs) {
      reports[job.name] = null;
      if (this.stopping) continue;
      if (job.enabled && !job.enabled()) continue;
      if (job.every) {
        if (now.getTime() - (this.lastRun.get(job.name) ?? 0) < job.every()) continue;
        this.lastRun.set(job.name, now.getTime());
      }
      const began = performance.now();
      try {
        const report = await job.run(now);
        reports[job.name] = report;
        this.hooks?.jobRan(job.name, (performance.now() - began) / 1000, true);
        if (job.log && !job.quiet(report)) this.log.info({ [job.name]: report }, job.log);
      } catch (err) {
        this.hooks?.jobRan(job.name, (performance.now() - began) / 1000, false);
        if (job.throws) throw err;
        this.log.error({ err }, job.failure);
      }
    }
    return reports;
  }

  /** Monitoring: due checks (leased, run concurrently), then results past 30 days pruned. */
  async monitors(): Promise<{ checks: unknown; pruned: number }> {
    const checks = await this.system.get(TOKENS.RunMonitorChecks).run();
    if (checks.checked + checks.lost > 0) this.log.info({ monitors: checks }, 'monitor checks');
    const pruned = await this.system.get(TOKENS.PruneMonitorResults).run();
    if (pruned > 0) this.log.info({ pruned }, 'pruned monitor results');
    return { checks, pruned };
  }

  start(): void {
    // One tick at a time: a slow pass (a registry timing out) is not overlapped by the next one.
    let due = performance.now();
    const run = () => {
      if (this.pass || this.stopping) return;
      this.hooks?.passLag(Math.max(0, performance.now() - due) / 1000);
      this.pass = this.tick()
        .catch((err) => this.log.error({ err }, 'worker tick failed'))
        .finally(() => {
          this.pass = null;
          due = Math.max(due + this.intervalMs, performance.now());
        });
    };
    run();
    this.timer = setInterval(run, this.intervalMs);
    this.timer.unref();
    const cfg = this.system.config.webhooks;
    this.dispatcher = new WebhookDispatcher(
      this.system.get(TOKENS.PublishEvents),
      this.system.get(TOKENS.DeliverWebhooks),
      {
        pollMs: cfg.pollMs,
        idleMaxMs: cfg.idleMaxMs,
        concurrency: cfg.concurrency,
        leaseMs: cfg.leaseMs,
        timeoutMs: cfg.timeoutMs,
        perEndpoint: cfg.perEndpoint,
      },
      this.log.child({ component: 'webhooks' }),
    );
    this.dispatcher.start();
    // Events this process appends wake the dispatcher (it sleeps up to a second when idle).
    const dispatcher = this.dispatcher;
    this.stopNudging = this.system.store.events.onAppended(() => dispatcher.nudge());
    this.startMonitoring();
  }

  private stopNudging: (() => void) | null = null;

  /** Stops the webhook dispatcher and waits for attempts in flight. */
  async drain(): Promise<void> {
    this.stopNudging?.();
    this.stopNudging = null;
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

  /**
   * Shutdown: no new pass or job starts; the job running finishes (up to `timeoutMs`), as do the webhook
   * attempts and the monitor checks in flight. Resolves false if something was still running at the bound.
   */
  async finish(timeoutMs: number): Promise<boolean> {
    this.stopping = true;
    if (this.timer) clearInterval(this.timer);
    if (this.monitorTimer) clearInterval(this.monitorTimer);
    this.timer = this.monitorTimer = null;
    const all = Promise.all([this.pass, this.monitorPass, this.drain()]).then(() => true);
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<boolean>((r) => (timer = setTimeout(() => r(false), timeoutMs)));
    const done = await Promise.race([all, bound]);
    clearTimeout(timer);
    return done;
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
