import type { Clock } from '../kernel/clock.port.js';
import { kyivMonth } from '../kernel/dates.js';
import type { Environment } from '../kernel/environment.js';
import { DomainError } from '../kernel/errors.js';
import { formatUah } from '../kernel/money.js';
import type { Random } from '../kernel/random.port.js';
import type { Ledger, LedgerEntry, LedgerKind, SpendCounters, Wallets } from './ports/ledger.port.js';

/** The key a charge is made with, if any (the worker's automatic renewals have none: no spend limit). */
export interface ChargingKey {
  readonly id: string;
  readonly spendLimit: number | null;
}

/** What Accounting is built from (one object, named, instead of positions). */
export interface AccountingDeps {
  readonly ledger: Ledger;
  readonly wallets: Wallets;
  readonly spend: SpendCounters;
  readonly random: Random;
  readonly clock: Clock;
}

/**
 * Every movement of money goes through here, inside the caller's transaction, so the checks and the
 * change are one atomic step (seed 2.3, 8; DESIGN: a charge that would pass the limit is refused whole):
 * - reserve(): spend limit (per key, Europe/Kyiv month) and balance are checked by conditional updates,
 *   then a pending ledger entry is written — or nothing at all;
 * - post(): the registry or the card confirmed: the entry stands;
 * - void(): they refused: the entry is voided and the money and spend come back.
 */
export class Accounting {
  constructor(private readonly deps: AccountingDeps) {}

  async balance(accountId: string, environment: Environment): Promise<number> {
    return this.deps.wallets.balance(accountId, environment);
  }

  /** Checks and counts spend through a key; throws spend_limit_exceeded saying what is left. */
  async reserveSpend(key: ChargingKey | null, amount: number, at: Date): Promise<void> {
    if (!key || key.spendLimit === null) return;
    const month = kyivMonth(at).month;
    if (!(await this.deps.spend.reserve(key.id, month, amount, key.spendLimit))) {
      const spent = await this.deps.spend.spent(key.id, month);
      const left = Math.max(0, key.spendLimit - spent);
      throw new DomainError('spend_limit_exceeded', {
        key_id: key.id,
        month,
        limit: formatUah(key.spendLimit),
        spent: formatUah(spent),
        left: formatUah(left),
        amount: formatUah(amount),
      });
    }
  }

  async releaseSpend(keyId: string | null, amount: number, at: Date): Promise<void> {
    if (keyId) await this.deps.spend.release(keyId, kyivMonth(at).month, amount);
  }

  /** A charge, pending until post() or void(). */
  async reserve(input: {
    accountId: string;
    environment: Environment;
    amount: number;
    kind: LedgerKind;
    domain: string | null;
    description: string;
    key: ChargingKey | null;
  }): Promise<LedgerEntry> {
    if (!Number.isSafeInteger(input.amount) || input.amount <= 0)
      throw new Error(`a charge must be positive kopiykas, got ${input.amount}`);
    const now = this.deps.clock.now();
    await this.reserveSpend(input.key, input.amount, now);
    if (!(await this.deps.wallets.debit(input.accountId, input.environment, input.amount))) {
      const balance = await this.deps.wallets.balance(input.accountId, input.environment);
      // Thrown inside the caller's transaction: the spend counted above is rolled back with it.
      throw new DomainError('insufficient_funds', { balance: formatUah(balance), amount: formatUah(input.amount) });
    }
    const entry: LedgerEntry = {
      id: this.deps.random.id(),
      accountId: input.accountId,
      environment: input.environment,
      amount: -input.amount,
      kind: input.kind,
      status: 'pending',
      keyId: input.key?.id ?? null,
      domain: input.domain,
      description: input.description,
      createdAt: now,
    };
    await this.deps.ledger.append(entry);
    return entry;
  }

  async post(entryId: string): Promise<void> {
    await this.deps.ledger.setStatus(entryId, 'posted');
  }

  /** Undoes a pending charge: nothing was charged in the end. */
  async void(entryId: string): Promise<void> {
    const e = await this.deps.ledger.find(entryId);
    if (!e || e.status !== 'pending') return;
    await this.deps.ledger.setStatus(e.id, 'voided');
    // The key's spend row before the wallet row, the order reserve() takes them in: on Postgres a void
    // running beside a reserve in the other order deadlocked (40P01, answered 500), seen by the crash suite.
    await this.releaseSpend(e.keyId, -e.amount, e.createdAt);
    await this.deps.wallets.credit(e.accountId, e.environment, -e.amount);
  }

  /** A credit that stands at once (grant, top-up confirmed by the card). */
  async credit(input: {
    accountId: string;
    environment: Environment;
    amount: number;
    kind: LedgerKind;
    description: string;
    keyId: string | null;
  }): Promise<LedgerEntry> {
    const entry: LedgerEntry = {
      id: this.deps.random.id(),
      accountId: input.accountId,
      environment: input.environment,
      amount: input.amount,
      kind: input.kind,
      status: 'posted',
      keyId: input.keyId,
      domain: null,
      description: input.description,
      createdAt: this.deps.clock.now(),
    };
    await this.deps.ledger.append(entry);
    await this.deps.wallets.credit(input.accountId, input.environment, input.amount);
    return entry;
  }
}
