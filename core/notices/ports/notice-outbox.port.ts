import type { OutboxMail } from '../../kernel/outbox-mail.js';

/**
 * The durable outbox for e-mailed notices (seed A5): a delivery is written in the same transaction as
 * its notice, and the worker sends it later. A mail server that is down delays notices, loses none.
 */
export type NoticeDelivery = OutboxMail;

export interface NoticeOutbox {
  enqueue(deliveries: readonly NoticeDelivery[]): Promise<void>;
  /**
   * Claims up to `limit` deliveries due at `now`, leasing them until `leaseUntil` so no other worker
   * takes them meanwhile (Postgres: FOR UPDATE SKIP LOCKED). A lease that runs out (the worker died)
   * makes the delivery due again.
   */
  claimDue(now: Date, limit: number, leaseUntil: Date): Promise<NoticeDelivery[]>;
  markSent(id: string, at: Date): Promise<void>;
  /** Records a failed attempt; `retryAt` null gives up for good. */
  markFailed(id: string, error: string, retryAt: Date | null): Promise<void>;
  /** Counts by status, for tests and /readyz-style reporting. */
  counts(): Promise<Record<'pending' | 'sent' | 'failed', number>>;
}
