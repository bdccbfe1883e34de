import type { Environment } from '../../kernel/environment.js';
import type { CheckResult, Incident, Monitor } from '../monitor.js';

export interface DueClaim {
  readonly now: Date;
  readonly token: string;
  readonly leaseUntil: Date;
  readonly limit: number;
}

/** Monitors, their results and incidents. Writes join the caller's transaction (UnitOfWork). */
export interface MonitorRepository {
  insert(m: Monitor): Promise<void>;
  /** Replaces the mutable fields; false when the monitor is gone. */
  update(m: Monitor): Promise<boolean>;
  delete(id: string): Promise<boolean>;
  /**
   * How many monitors the account has in the environment. With `lock`, inside a transaction, concurrent
   * creates of the same account wait for each other until commit (Postgres: the account row is locked
   * first), so a count-then-insert cannot go past the limit.
   */
  count(accountId: string, environment: Environment, lock?: boolean): Promise<number>;
  find(id: string): Promise<Monitor | null>;
  /** Newest first; `before` is an opaque "created_at|id" sort key. */
  list(accountId: string, environment: Environment, q: { before?: string; limit: number; domain?: string }): Promise<Monitor[]>;
  /**
   * Takes a lease on enabled monitors whose next check is due (FOR UPDATE SKIP LOCKED on Postgres, a
   * conditional update on SQLite): two workers never claim one due check.
   */
  claimDue(q: DueClaim): Promise<Monitor[]>;
  /** Records a check's outcome and moves the schedule, only while `token` still holds the lease. */
  completeCheck(m: Monitor, token: string): Promise<boolean>;
  insertResult(r: CheckResult): Promise<void>;
  /** Newest first within [from, to); `before` is "checked_at|id". */
  results(monitorId: string, q: { from?: Date; to?: Date; before?: string; limit: number }): Promise<CheckResult[]>;
  /** Every result in [from, to] (both ends included), oldest first (reports). */
  resultsBetween(monitorId: string, from: Date, to: Date): Promise<CheckResult[]>;
  insertIncident(i: Incident): Promise<void>;
  closeIncident(id: string, endedAt: Date): Promise<void>;
  /** Incidents overlapping [from, to), oldest first. */
  incidentsBetween(monitorId: string, from: Date, to: Date): Promise<Incident[]>;
  /** Deletes results (and closed incidents) older than `before`; returns how many results. */
  prune(before: Date): Promise<number>;
}
