import type { Logger } from 'pino';
import { IDEMPOTENCY_RETENTION_MS } from '../core/idempotency/ports/idempotency-store.port.js';
import type { LifecycleReport } from '../core/domains/advance-lifecycle.use-case.js';
import type { System } from './system.js';
import { TOKENS } from './tokens.js';

/**
 * The background worker: the domain lifecycle (automatic renewal, expiry, redemption, release),
 * certificates (issuance left over, renewal 30 days before expiry, expiry), the e-mail outbox of notices, and housekeeping (idempotency records past their 24 h). Runs inside
 * `npm start` or alone as `npm run worker`; several workers may share one Postgres (claims are leases
 * taken with FOR UPDATE SKIP LOCKED).
 */
export class Worker {
  private timer: NodeJS.Timeout | null = null;
  private readonly log: Logger;

  constructor(private readonly system: System, private readonly intervalMs = 30_000) {
    this.log = system.logger.child({ component: 'worker' });
  }

  /** One pass: the domain lifecycle, e-mailed notices, housekeeping. Each part fails on its own. */
  async tick(now = new Date()): Promise<{ idempotencyPurged: number; lifecycle: LifecycleReport | null; certificates: unknown; notices: unknown }> {
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
    let notices: unknown = null;
    if (this.system.container.isBound(TOKENS.DeliverNotices)) {
      try {
        notices = await this.system.get(TOKENS.DeliverNotices).run();
      } catch (err) {
        this.log.error({ err }, 'notice delivery pass failed');
      }
    }
    return { idempotencyPurged, lifecycle, certificates, notices };
  }

  start(): void {
    const run = () => {
      this.tick().catch((err) => this.log.error({ err }, 'worker tick failed'));
    };
    run();
    this.timer = setInterval(run, this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
