import type { Environment } from '../../kernel/environment.js';
import type { Attempt, Delivery, Webhook, WebhookTarget } from '../webhook.js';

export interface NewDelivery {
  readonly id: string;
  readonly webhookId: string;
  readonly accountId: string;
  readonly environment: Environment;
  readonly eventId: string;
  readonly eventSeq: string;
  readonly eventCommittedAt: Date;
  readonly nextAttemptAt: Date;
  readonly createdAt: Date;
}

export interface WebhookRepository {
  insert(w: Webhook): Promise<void>;
  update(w: Webhook): Promise<void>;
  /** Soft delete: deliveries still pending are dropped. */
  delete(id: string): Promise<void>;
  find(accountId: string, environment: Environment, id: string): Promise<Webhook | null>;
  findById(id: string): Promise<Webhook | null>;
  list(accountId: string, environment: Environment, after: string | null, limit: number): Promise<Webhook[]>;
  /**
   * Enabled endpoints of these accounts and environments that want any of these public event names, or every
   * name (the publisher's fan-out): read through an index of each endpoint's names, never every endpoint of
   * the account.
   */
  wanting(scopes: ReadonlyArray<{ accountId: string; environment: Environment }>, publicTypes: readonly string[]): Promise<WebhookTarget[]>;
  insertDeliveries(rows: readonly NewDelivery[]): Promise<void>;
  /**
   * Leases due deliveries (status pending, next_attempt_at ≤ now, no live lease), oldest event first,
   * skipping endpoints in `busy`. Postgres: FOR UPDATE SKIP LOCKED; SQLite: one conditional UPDATE
   * under the write lock. A lease that runs out (a crashed worker) frees the delivery again.
   */
  claimDue(q: { now: Date; leaseUntil: Date; token: string; limit: number; busy: readonly string[] }): Promise<Delivery[]>;
  /** Records one attempt and the delivery's next state, only while `token` still holds the lease. */
  recordAttempt(
    a: Attempt,
    next: { status: Delivery['status']; nextAttemptAt: Date | null; firstAttemptAt: Date; deliveredAt: Date | null },
    token: string,
  ): Promise<boolean>;
  /**
   * Records many successful (2xx) attempts at once: each delivery becomes `delivered` and its attempt is
   * logged only while its own token still holds its lease. Returns the ids of the deliveries recorded
   * (the others had lost their lease). Call inside one transaction.
   */
  recordDelivered(items: ReadonlyArray<{ attempt: Attempt; token: string; firstAttemptAt: Date; deliveredAt: Date }>): Promise<Set<string>>;
  /** Moves a leased delivery's next attempt later without an attempt (its endpoint is busy or disabled). */
  release(deliveryId: string, token: string): Promise<void>;
  findDelivery(webhookId: string, id: string): Promise<Delivery | null>;
  listDeliveries(webhookId: string, after: string | null, limit: number): Promise<Array<Delivery & { eventType: string; log: Attempt[] }>>;
  /** Starts the failing streak unless one is running; returns when it started. */
  markFailing(id: string, at: Date): Promise<Date>;
  /** Ends the failing streak (a delivery succeeded). */
  markHealthy(id: string): Promise<void>;
  /** Disables an enabled endpoint; false when it was not enabled (someone else got there first). */
  disable(id: string, reason: 'gone' | 'failing', at: Date): Promise<boolean>;
  /** Cancels pending deliveries of a disabled endpoint. */
  cancelPending(webhookId: string): Promise<number>;
  /** Deletes delivery and attempt records older than `before`. */
  purge(before: Date): Promise<number>;
}
