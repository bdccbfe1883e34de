import type { Environment } from '../../shared/environment.js';

/**
 * The balance ledger: signed integer kopiykas; the balance is the sum of an account's entries in one
 * environment. Charges carry the key that made them, so spend limits can be summed per key and month.
 */
export interface LedgerEntry {
  readonly id: string;
  readonly accountId: string;
  readonly environment: Environment;
  /** Positive: credit (top-up, grant, refund); negative: charge. */
  readonly amount: number;
  readonly kind: 'grant' | 'topup' | 'registration' | 'renewal' | 'restore' | 'refund';
  readonly keyId: string | null;
  readonly domain: string | null;
  readonly description: string;
  readonly createdAt: Date;
}

export interface Ledger {
  append(entry: LedgerEntry): Promise<void>;
  balance(accountId: string, environment: Environment): Promise<number>;
  /** Kopiykas spent (charges and top-ups made) through a key in [from, to). */
  spentByKey(keyId: string, from: Date, to: Date): Promise<number>;
}
