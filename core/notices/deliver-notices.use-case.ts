import type { Clock } from '../kernel/clock.port.js';
import type { Mailer } from './ports/mailer.port.js';
import type { NoticeDelivery, NoticeOutbox } from './ports/notice-outbox.port.js';

export interface DeliverNoticesOptions {
  /** Deliveries claimed per run. */
  readonly batch?: number;
  /** How long a claimed delivery is hidden from other workers; must exceed the mailer's worst send time. */
  readonly leaseMs?: number;
  /** Attempts before a delivery is given up for good (status `failed`). */
  readonly maxAttempts?: number;
  /** The longest one send may take (the SMTP adapter gives up after 3 × its 10 s timeout). A send is
   * started only if it can end before the lease does, so no other worker can have re-claimed it. */
  readonly sendBudgetMs?: number;
}

export interface DeliveryReport {
  /** Accepted by the mail server. */
  sent: number;
  /** Given up for good after the last allowed attempt. */
  failed: number;
  /** Failed this time, scheduled again with backoff. */
  retried: number;
}

const MINUTE = 60_000;
/** The backoff never waits longer than this between two attempts. */
export const MAX_BACKOFF_MS = 6 * 60 * MINUTE;

/** Wait after the n-th failed attempt (n = attempts before it): 1, 2, 4, … minutes, capped at 6 h. */
export const backoffMs = (attemptsBefore: number): number => Math.min(2 ** attemptsBefore * MINUTE, MAX_BACKOFF_MS);

const reason = (e: unknown): string => (e instanceof Error ? e.message : String(e)) || 'unknown error';

/**
 * Sends the e-mailed notices waiting in the outbox (seed A5: live notices also go by e-mail; a mail
 * server that is down delays them, loses none). One run claims a batch under a lease, so two workers
 * never take the same delivery; each delivery is marked sent or failed on its own, so one bad address or
 * a dead server never makes the run throw. Errors of the outbox itself (the database) do propagate: the
 * leased deliveries then come due again when the lease runs out.
 *
 * Delivery is at least once: if the process dies between the server's "250 OK" and `markSent`, the
 * delivery is sent again after the lease. E-mail has no way to make that exactly once.
 */
export class DeliverNotices {
  private readonly batch: number;
  private readonly leaseMs: number;
  private readonly maxAttempts: number;
  private readonly sendBudgetMs: number;

  constructor(
    private readonly outbox: NoticeOutbox,
    private readonly mailer: Mailer,
    private readonly clock: Clock,
    options: DeliverNoticesOptions = {},
  ) {
    this.batch = options.batch ?? 20;
    this.leaseMs = options.leaseMs ?? 120_000;
    this.sendBudgetMs = options.sendBudgetMs ?? Math.min(30_000, Math.floor(this.leaseMs / 2));
    this.maxAttempts = options.maxAttempts ?? 12;
    if (!Number.isInteger(this.batch) || this.batch < 1) throw new RangeError('batch must be a positive integer');
    if (!Number.isInteger(this.leaseMs) || this.leaseMs < 1) throw new RangeError('leaseMs must be a positive integer');
    if (!Number.isInteger(this.maxAttempts) || this.maxAttempts < 1) throw new RangeError('maxAttempts must be a positive integer');
  }

  async run(): Promise<DeliveryReport> {
    const now = this.clock.now();
    const leaseUntil = new Date(now.getTime() + this.leaseMs);
    const due = await this.outbox.claimDue(now, this.batch, leaseUntil);
    const report: DeliveryReport = { sent: 0, failed: 0, retried: 0 };
    for (const d of due) {
      // Past the lease another worker may have claimed the rest: leave them to it rather than send twice.
      if (this.clock.now().getTime() + this.sendBudgetMs >= leaseUntil.getTime()) break;
      await this.deliver(d, report);
    }
    return report;
  }

  private async deliver(d: NoticeDelivery, report: DeliveryReport): Promise<void> {
    try {
      await this.mailer.send({ to: d.address, subject: d.subject, text: d.body });
    } catch (e) {
      const at = this.clock.now();
      const last = d.attempts + 1 >= this.maxAttempts;
      await this.outbox.markFailed(d.id, reason(e), last ? null : new Date(at.getTime() + backoffMs(d.attempts)));
      if (last) report.failed += 1;
      else report.retried += 1;
      return;
    }
    await this.outbox.markSent(d.id, this.clock.now());
    report.sent += 1;
  }
}
