/**
 * Runs work atomically. Repositories used inside `fn` join the same transaction, and so does any
 * nested `transaction` call: a use case can be atomic on its own and still commit together with
 * what its caller (e.g. the idempotency store) writes.
 */
export interface UnitOfWork {
  transaction<T>(fn: () => Promise<T>): Promise<T>;
  /** Runs `fn` once the surrounding transaction has committed (at once when there is none). */
  afterCommit(fn: () => void): void;
}
