import type { Environment } from '../../kernel/environment.js';
import type { DomainEvent, EventType } from '../../kernel/events.js';
import type { PublishedEvent } from '../public-event.js';
import type { DomainScope } from '../../kernel/visibility.port.js';

/**
 * What a reader may see, for the store to filter by its indexes: domain events whose every domain is among
 * `domains` — the names themselves, or the named or labelled domains of a scope when a key sees too many to
 * list (an event about several domains is shown only to a key that may read them all, as a certificate is
 * listed only to such a key) — and account events (no domain) of `accountTypes`.
 */
export interface EventVisibility {
  readonly domains: { readonly names: readonly string[] } | { readonly scope: DomainScope };
  readonly accountTypes: readonly EventType[];
}

/** One event of a publisher batch: its cursor position and public name (null: internal), and its domains. */
export interface AssignedEvent {
  readonly id: string;
  readonly accountId: string;
  readonly environment: Environment | null;
  readonly pubSeq: string | null;
  readonly publicType: string | null;
  /** Every account domain the event is about, the first being the one shown as its `domain` ([] for none). */
  readonly domains: readonly string[];
}

/**
 * The published side of the event log. `takeUnpublished` and `assign` run inside the publisher's
 * transaction: `takeUnpublished` first locks the single publisher row (Postgres: a row lock held to
 * commit; SQLite: the write lock), so only one publisher numbers events at a time and pub_seq grows in
 * the order the publisher commits — a reader that has seen pub_seq N never later finds a row ≤ N.
 */
export interface EventFeed {
  takeUnpublished(limit: number): Promise<{ lastSeq: bigint; events: Array<DomainEvent & { environment: Environment | null }> }>;
  /** Numbers the public ones (pubSeq set), stores every domain each is about, and marks every given event published. */
  assign(now: Date, rows: ReadonlyArray<AssignedEvent>, lastSeq: bigint): Promise<void>;
  /**
   * Published public events that `visible` admits: after the cursor in cursor order, or — `order: 'desc'` —
   * before `before` (every one when null), newest first.
   */
  page(q: {
    accountId: string;
    environment: Environment;
    after: string | null;
    before?: string | null;
    order?: 'asc' | 'desc';
    types: readonly EventType[] | null;
    domain: string | null;
    visible: EventVisibility;
    limit: number;
  }): Promise<PublishedEvent[]>;
  get(accountId: string, id: string): Promise<PublishedEvent | null>;
  getMany(ids: readonly string[]): Promise<PublishedEvent[]>;
  /** Deletes events that occurred before `before` (retention). */
  purge(before: Date): Promise<number>;
}
