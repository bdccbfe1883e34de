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

/**
 * Runs `fn` as one phase and returns what it made: with `checkpoints`, through `reach(point)`, recording
 * `dataOf(result)` as the point's data in the same transaction; without (a caller with no request to
 * resume: the console, MCP, the worker), in one transaction of `uow`.
 */
export const inPhase = async <T>(
  checkpoints: Checkpoints | null,
  uow: { transaction<R>(fn: () => Promise<R>): Promise<R> },
  point: string,
  fn: () => Promise<T>,
  dataOf: (made: T) => Record<string, unknown>,
): Promise<T> => {
  if (!checkpoints) return uow.transaction(fn);
  const made: { value?: T } = {};
  await checkpoints.reach(point, async () => {
    made.value = await fn();
    return dataOf(made.value);
  });
  return made.value as T;
};

/** Checkpoints without a request to resume (the worker's own operations): each phase is atomic. */
export const transientCheckpoints = (uow: { transaction<T>(fn: () => Promise<T>): Promise<T> }): Checkpoints => ({
  last: null,
  reach: (_point, fn) => uow.transaction(fn),
});

/** A stored run of the worker's own phased operation: resumed by the next pass until it ends. */
export interface DurableRun extends Checkpoints {
  /** The operation ended (done, or refused for good): its recovery points are forgotten. */
  finish(): Promise<void>;
  /** It stopped with an unknown outcome: the points stay, and the next open() resumes from them. */
  suspend(): Promise<void>;
}

/**
 * Recovery points kept in the store for operations the worker starts itself (automatic renewal), which
 * have no client to retry them: after a crash between the registry call and the commit, the next pass
 * opens the same name and resumes from the last point (the same client transaction id) instead of
 * reserving a second charge. The caller must hold what makes the name exclusive (the domain's lease).
 */
export interface DurableCheckpoints {
  open(scope: string, name: string): Promise<DurableRun>;
  /** Names of the runs in `scope` that stopped past a point that holds something (a reserved charge). */
  unfinished(scope: string, limit: number): Promise<string[]>;
}

/**
 * Checkpoints over a stored record of recovery points: resume from its last point past 'started'; each
 * phase is one transaction that also saves the point it reached (through `save`, which must fail when
 * the record is no longer held, so a taken-over run cannot commit).
 */
export const storedCheckpoints = (
  record: { readonly recoveryPoint: string; readonly recoveryData: Readonly<Record<string, unknown>> | null },
  uow: { transaction<T>(fn: () => Promise<T>): Promise<T> },
  save: (point: string, data: Readonly<Record<string, unknown>>) => Promise<void>,
): Checkpoints => ({
  last: record.recoveryPoint !== 'started' && record.recoveryData ? { point: record.recoveryPoint, data: record.recoveryData } : null,
  reach: (point, fn) =>
    uow.transaction(async () => {
      const data = await fn();
      await save(point, data);
      return data;
    }),
});
