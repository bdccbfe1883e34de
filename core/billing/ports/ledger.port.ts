import type { SpendCounters } from '../../access/ports/spend-counters.port.js';
import type { Environment } from '../../kernel/environment.js';

/**
 * The balance ledger: signed integer kopiykas. A charge is first `pending` (it already reduces what
 * can be spent, like a card authorisation), then `posted` once the registry or the card confirmed it,
 * or `voided` when they refused — so a registry failure charges nothing.
 * The balance is the sum of posted and pending entries; it can never go below 0 (see Wallets).
 */
export type LedgerKind = 'grant' | 'topup' | 'registration' | 'renewal' | 'restore' | 'transfer' | 'refund';
export type LedgerStatus = 'pending' | 'posted' | 'voided';

export interface LedgerEntry {
  readonly id: string;
  readonly accountId: string;
  readonly environment: Environment;
  /** Positive: credit (top-up, grant, refund); negative: charge. */
  readonly amount: number;
  readonly kind: LedgerKind;
  readonly status: LedgerStatus;
  readonly keyId: string | null;
  readonly domain: string | null;
  readonly description: string;
  readonly createdAt: Date;
}

export interface LedgerQuery {
  readonly accountId: string;
  readonly environment: Environment;
  readonly after?: string;
  readonly limit: number;
}

export interface Ledger {
  append(entry: LedgerEntry): Promise<void>;
  setStatus(id: string, status: LedgerStatus): Promise<void>;
  find(id: string): Promise<LedgerEntry | null>;
  /** Newest first. */
  list(query: LedgerQuery): Promise<LedgerEntry[]>;
  /** Sum of posted and pending entries (the wallet's cached balance must always equal it). */
  sum(accountId: string, environment: Environment): Promise<number>;
}

/**
 * Atomic balance and spend-limit counters. Each call is one conditional UPDATE, so the check and the
 * change are one step on both engines, even under concurrency (Postgres re-checks the condition on
 * the locked row; SQLite has one writer).
 */
export interface Wallets {
  /** Subtracts if the balance covers it; false (and nothing changes) otherwise. */
  debit(accountId: string, environment: Environment, amount: number): Promise<boolean>;
  credit(accountId: string, environment: Environment, amount: number): Promise<void>;
  balance(accountId: string, environment: Environment): Promise<number>;
}

export type { SpendCounters };
