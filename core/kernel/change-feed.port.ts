/**
 * What another process changed, so that what this process keeps in memory (key lookups, domain reads,
 * zone data) can be dropped. DESIGN: a revocation takes effect at once in the revoking process and within
 * 5 seconds everywhere else; the feed delivers within about one second.
 */
export type ChangeTopic = 'key' | 'domain' | 'zone';

export interface Change {
  readonly topic: ChangeTopic;
  /** The changed row's id (a key id, a domain id, a zone id). */
  readonly ref: string;
}

/**
 * Announces a change. Called inside the transaction that makes it, so the announcement is delivered
 * when — and only if — that transaction commits.
 */
export interface ChangeAnnouncer {
  announce(topic: ChangeTopic, ref: string): Promise<void>;
}

/**
 * Delivers changes made by any process (this one included). `null` means changes may have been missed
 * (the feed reconnected): drop everything. A cache may trust its entries only while `live()` is true.
 */
export interface ChangeFeed {
  subscribe(listener: (change: Change | null) => void): () => void;
  /** Starts listening if not yet started (idempotent); resolves once live or once the first attempt failed. */
  start(): Promise<void>;
  live(): boolean;
}
