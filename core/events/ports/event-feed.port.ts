import type { Environment } from '../../kernel/environment.js';
import type { DomainEvent, EventType } from '../../kernel/events.js';
import type { PublishedEvent } from '../public-event.js';
import type { DomainScope } from '../../kernel/visibility.port.js';

/**
 * What a reader may see, for the store to filter by its indexes: domain events whose (first) domain is
 * among `domains` — the names themselves, or the store's prefilter of named or labelled domains when a key
 * sees too many to list — and account events (no domain) of `accountTypes`.
 */
export interface EventVisibility {
  readonly domains: { readonly names: readonly string[] } | { readonly scope: DomainScope };
  readonly accountTypes: readonly EventType[];
}

/**
 * The published side of the event log. `takeUnpublished` and `assign` run inside the publisher's
 * transaction: `takeUnpublished` first locks the single publisher row (Postgres: a row lock held to
 * commit; SQLite: the write lock), so only one publisher numbers events at a time and pub_seq grows in
 * the order the publisher commits — a reader that has seen pub_seq N never later finds a row ≤ N.
 */
export interface EventFeed {
  takeUnpublished(limit: number): Promise<{ lastSeq: bigint; events: Array<DomainEvent & { environment: Environment | null }> }>;
  /** Numbers the public ones (pubSeq set) and marks every given event published. */
  assign(
    now: Date,
    rows: ReadonlyArray<{ id: string; pubSeq: string | null; publicType: string | null; domains: readonly string[] }>,
    lastSeq: bigint,
  ): Promise<void>;
  /** Published public events after the cursor that `visible` admits, in cursor order. */
  page(q: {
    accountId: string;
    environment: Environment;
    after: string | null;
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
