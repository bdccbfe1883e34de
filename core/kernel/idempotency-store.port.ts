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

/**
 * What a phased request asked for, kept with its record so the completer can finish it when its client
 * never comes back (a charge reserved by an abandoned request stayed pending for good).
 * Adapter-neutral: the HTTP adapter stores its route id and the validated input.
 */
export interface ResumableRequest {
  readonly route: string;
  readonly keyId: string;
  readonly params: Readonly<Record<string, string>>;
  readonly query: Readonly<Record<string, unknown>>;
  readonly body: unknown;
  readonly ip: string;
  /**
   * Body fields (dot paths) held sealed with the data key: a secret (a transfer's auth code) is never
   * stored in the clear; the completer opens them when it runs the request again.
   */
  readonly sealed?: readonly string[];
  /**
   * Body fields a migration removed because they were stored in the clear before they were sealed: such a
   * request cannot be run again by the completer (a retry by its client, which sends them, still can).
   */
  readonly withheld?: readonly string[];
}

/**
 * Recovery points at which a request holds nothing for its client: 'started' (nothing committed yet) and
 * 'voided' (what was reserved was given back). Any other point has committed something (a pending charge,
 * a result not yet answered), so an abandoned request there is finished by the completer.
 */
export const SETTLED_POINTS: readonly string[] = ['started', 'voided'];

export interface IdempotencyRecord {
  readonly scope: string;
  readonly key: string;
  readonly fingerprint: string;
  readonly lockedAt: Date | null;
  readonly recoveryPoint: string;
  readonly recoveryData: Readonly<Record<string, unknown>> | null;
  readonly response: StoredResponse | null;
  readonly createdAt: Date;
  /** Set for phased requests (those the completer can finish) until they are finished: complete() drops it. */
  readonly request: ResumableRequest | null;
  /** How many times the completer tried it and failed. */
  readonly attempts: number;
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
  claim(scope: string, key: string, fingerprint: string, at: Date, token: string, request?: ResumableRequest): Promise<ClaimResult>;
  /**
   * Takes over an unlocked record, or one whose lock is `previousLockedAt` (its process died). Returns the
   * record as it is now, read after the takeover (resume from this, never from an earlier read: another
   * holder may have reached a later point meanwhile), or null when another process took it first.
   */
  takeOver(scope: string, key: string, previousLockedAt: Date | null, at: Date, token: string): Promise<IdempotencyRecord | null>;
  /** The writes below throw ClaimLostError when `token` no longer holds the record. */
  setRecoveryPoint(scope: string, key: string, token: string, point: string, data: Readonly<Record<string, unknown>>): Promise<void>;
  /** Stores the outcome; the request kept for the completer is dropped with it (nothing left to finish). */
  complete(scope: string, key: string, token: string, response: StoredResponse): Promise<void>;
  /** Leaves a phased request resumable: unlocked, its recovery point kept. */
  unlock(scope: string, key: string, token: string): Promise<void>;
  /** Forgets an in-flight record whose outcome is not kept (500s), so the client may retry. */
  release(scope: string, key: string, token: string): Promise<void>;
  /**
   * Deletes records created before the cut-off; returns how many. A record that holds something for its
   * client (no response, a recovery point outside SETTLED_POINTS) is kept until the completer finishes it.
   */
  purge(createdBefore: Date): Promise<number>;
  /**
   * Abandoned phased requests, oldest first: no response, a request kept, a recovery point outside
   * SETTLED_POINTS, created before `createdBefore`, unlocked or locked before `lockedBefore` (the
   * process that held it died), and not postponed past `now`.
   */
  abandoned(q: {
    readonly createdBefore: Date;
    readonly lockedBefore: Date;
    readonly now: Date;
    readonly limit: number;
  }): Promise<IdempotencyRecord[]>;
  /** The completer could not finish it (the peer still failing, the key gone): not before `until`. */
  postpone(scope: string, key: string, until: Date): Promise<void>;
}
