/**
 * Atomic phases with recovery points, for operations that call a peer outside our database (the
 * registry, the card processor). Each phase is one transaction that also records the point it reached
 * and the data the next phase needs; a retry of the same request (same Idempotency-Key) starts from the
 * last point reached, so a crash at any moment neither loses a paid operation nor charges twice.
 */
export interface Checkpoint {
  readonly point: string;
  readonly data: Readonly<Record<string, unknown>>;
}

export interface Checkpoints {
  /** Where an earlier attempt of this same request stopped; null for a fresh start. */
  readonly last: Checkpoint | null;
  /** Runs `fn` in one transaction and records `point` with the data it returns, in that transaction. */
  reach<T extends Record<string, unknown>>(point: string, fn: () => Promise<T>): Promise<T>;
}

/** Checkpoints without a request to resume (the worker's own operations): each phase is atomic. */
export const transientCheckpoints = (uow: { transaction<T>(fn: () => Promise<T>): Promise<T> }): Checkpoints => ({
  last: null,
  reach: (_point, fn) => uow.transaction(fn),
});
