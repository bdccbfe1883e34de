/** DESIGN: an Idempotency-Key is remembered 24 hours. */
export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;

/**
 * Stored outcomes of keyed writes (seed 4: Idempotency-Key). A record is claimed before the work runs
 * (so a concurrent duplicate sees it "in flight"), and completed in the same transaction as the
 * work's own effects — a crash between them cannot double an effect.
 */
export interface StoredResponse {
  readonly status: number;
  readonly body: unknown;
  readonly headers: Readonly<Record<string, string>>;
}

export interface IdempotencyRecord {
  readonly scope: string;
  readonly key: string;
  readonly fingerprint: string;
  readonly lockedAt: Date | null;
  readonly recoveryPoint: string;
  readonly recoveryData: Readonly<Record<string, unknown>> | null;
  readonly response: StoredResponse | null;
  readonly createdAt: Date;
}

export type ClaimResult =
  | { readonly outcome: 'claimed'; readonly record: IdempotencyRecord }
  | { readonly outcome: 'existing'; readonly record: IdempotencyRecord };

/** Thrown when a claim was taken over by a retry while this request still ran: its writes roll back. */
export class ClaimLostError extends Error {
  constructor() {
    super('the idempotency claim was taken over by a retry');
    this.name = 'ClaimLostError';
  }
}

export interface IdempotencyStore {
  /** Inserts an in-flight record held by `token`, or returns the one that exists (never both). */
  claim(scope: string, key: string, fingerprint: string, at: Date, token: string): Promise<ClaimResult>;
  /** Takes over an unlocked record, or one whose lock is `previousLockedAt` (its process died). */
  takeOver(scope: string, key: string, previousLockedAt: Date | null, at: Date, token: string): Promise<boolean>;
  /** The writes below throw ClaimLostError when `token` no longer holds the record. */
  setRecoveryPoint(scope: string, key: string, token: string, point: string, data: Readonly<Record<string, unknown>>): Promise<void>;
  complete(scope: string, key: string, token: string, response: StoredResponse): Promise<void>;
  /** Leaves a phased request resumable: unlocked, its recovery point kept. */
  unlock(scope: string, key: string, token: string): Promise<void>;
  /** Forgets an in-flight record whose outcome is not kept (500s), so the client may retry. */
  release(scope: string, key: string, token: string): Promise<void>;
  /** Deletes records created before the cut-off; returns how many. */
  purge(createdBefore: Date): Promise<number>;
}
