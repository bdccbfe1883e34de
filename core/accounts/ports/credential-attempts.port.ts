/**
 * One counter of failed credential checks: for a source address, for a person's sign-in identity, or for
 * the pair of both (core/accounts/credential-throttle.ts says which and why).
 */
export interface AttemptCounter {
  readonly key: string;
  /** Failed checks since the counter last started from zero (attempts in flight count as failed). */
  readonly failures: number;
  readonly lastFailedAt: Date | null;
  /** A pair counter only: when an address that never failed for this person gets its one try through
   * the person's backoff (set on its first refusal, so an attacker's failures cannot push it back). */
  readonly admitAt: Date | null;
  /** A person counter only: when the owners were told of this burst (null: not yet). */
  readonly notifiedAt: Date | null;
}

/** Kept in the store, so every API process (and the console, on the same processes) sees the same counts. */
export interface CredentialAttempts {
  /**
   * The counters of these keys (absent ones as zero), locked for the rest of the caller's transaction
   * so two processes never decide on the same counts (Postgres: row locks; SQLite: the one writer).
   */
  lock(keys: readonly string[]): Promise<AttemptCounter[]>;
  /** The counters of these keys as they are now, unlocked (absent ones are not returned): for a decision that writes nothing. */
  peek(keys: readonly string[]): Promise<AttemptCounter[]>;
  save(counters: readonly AttemptCounter[]): Promise<void>;
  /** Forgets counters with no failure since `before` (housekeeping; they would start from zero anyway). */
  prune(before: Date): Promise<number>;
}
