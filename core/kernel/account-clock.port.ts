import type { Environment } from './environment.js';

/**
 * "Now" for an account's domain lifecycle (DESIGN: the sandbox clock moves the lifecycle, class 3
 * delays and certificate times of that account's test environment; key validity, idempotency and the
 * spend month follow real time). Live is always real time.
 */
export interface AccountClock {
  now(accountId: string, environment: Environment): Promise<Date>;
  /** Accounts whose test environment runs ahead of real time, with how far ahead (ms). */
  travelled(): Promise<ReadonlyArray<{ readonly accountId: string; readonly offsetMs: number }>>;
}
