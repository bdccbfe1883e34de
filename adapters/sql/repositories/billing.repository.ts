import type {
  LedgerEntry,
  LedgerKind,
  LedgerQuery,
  LedgerStatus,
  Ledger,
  SpendCounters,
  Wallets,
} from '../../../core/billing/ports/ledger.port.js';
import type { SavedCard, SavedCards } from '../../../core/billing/ports/payments.port.js';
import type { Environment } from '../../../core/kernel/environment.js';
import { date, iso, num } from '../rows.js';
import type { KnexUnitOfWork } from '../unit-of-work.js';
import type { TopUp, TopUps } from '../../../core/billing/top-up.js';

type EntryRow = {
  id: string;
  account_id: string;
  environment: string;
  amount: string | number;
  kind: string;
  status: string;
  key_id: string | null;
  domain: string | null;
  description: string;
  created_at: string;
};
const toEntry = (r: EntryRow): LedgerEntry => ({
  id: r.id,
  accountId: r.account_id,
  environment: r.environment as Environment,
  amount: Number(r.amount),
  kind: r.kind as LedgerKind,
  status: r.status as LedgerStatus,
  keyId: r.key_id,
  domain: r.domain,
  description: r.description,
  createdAt: date(r.created_at),
});

export class SqlLedger implements Ledger {
  constructor(private readonly uow: KnexUnitOfWork) {}

  async append(e: LedgerEntry): Promise<void> {
    await this.uow
      .db()('ledger_entries')
      .insert({
        id: e.id,
        account_id: e.accountId,
        environment: e.environment,
        amount: e.amount,
        kind: e.kind,
        status: e.status,
        key_id: e.keyId,
        domain: e.domain,
        description: e.description,
        created_at: iso(e.createdAt),
      });
  }

  async setStatus(id: string, status: LedgerStatus): Promise<void> {
    await this.uow.db()('ledger_entries').where({ id }).update({ status });
  }

  async find(id: string): Promise<LedgerEntry | null> {
    const r = await this.uow.db()('ledger_entries').where({ id }).first();
    return r ? toEntry(r) : null;
  }

  async list(q: LedgerQuery): Promise<LedgerEntry[]> {
    const query = this.uow
      .db()('ledger_entries')
      .where({ account_id: q.accountId, environment: q.environment })
      .orderBy('id', 'desc')
      .limit(q.limit);
    if (q.after) query.andWhere('id', '<', q.after);
    return (await query).map(toEntry);
  }

  async sum(accountId: string, environment: Environment): Promise<number> {
    const r = await this.uow
      .db()('ledger_entries')
      .where({ account_id: accountId, environment })
      .whereIn('status', ['posted', 'pending'])
      .sum({ total: 'amount' })
      .first();
    return num(r?.total);
  }
}

export class SqlWallets implements Wallets {
  constructor(private readonly uow: KnexUnitOfWork) {}

  async debit(accountId: string, environment: Environment, amount: number): Promise<boolean> {
    const n = await this.uow
      .db()('wallets')
      .where({ account_id: accountId, environment })
      .andWhere('balance', '>=', amount)
      .update({ balance: this.uow.db().raw('balance - ?', [amount]) });
    return n > 0;
  }

  async credit(accountId: string, environment: Environment, amount: number): Promise<void> {
    const db = this.uow.db();
    await db('wallets').insert({ account_id: accountId, environment, balance: 0 }).onConflict(['account_id', 'environment']).ignore();
    await db('wallets')
      .where({ account_id: accountId, environment })
      .update({ balance: db.raw('balance + ?', [amount]) });
  }

  async balance(accountId: string, environment: Environment): Promise<number> {
    const r = await this.uow.db()('wallets').where({ account_id: accountId, environment }).first();
    return num(r?.balance);
  }
}

export class SqlSpendCounters implements SpendCounters {
  constructor(private readonly uow: KnexUnitOfWork) {}

  async reserve(keyId: string, month: string, amount: number, limit: number): Promise<boolean> {
    const db = this.uow.db();
    await db('key_spend').insert({ key_id: keyId, month, spent: 0 }).onConflict(['key_id', 'month']).ignore();
    const n = await db('key_spend')
      .where({ key_id: keyId, month })
      .andWhere('spent', '<=', limit - amount)
      .update({ spent: db.raw('spent + ?', [amount]) });
    return n > 0;
  }

  async release(keyId: string, month: string, amount: number): Promise<void> {
    const db = this.uow.db();
    await db('key_spend')
      .where({ key_id: keyId, month })
      .update({ spent: db.raw('spent - ?', [amount]) });
  }

  async spent(keyId: string, month: string): Promise<number> {
    const r = await this.uow.db()('key_spend').where({ key_id: keyId, month }).first();
    return num(r?.spent);
  }
}

export class SqlSavedCards implements SavedCards {
  constructor(private readonly uow: KnexUnitOfWork) {}

  async find(accountId: string, environment: Environment): Promise<SavedCard | null> {
    const r = await this.uow.db()('saved_cards').where({ account_id: accountId, environment }).first();
    return r
      ? {
          accountId: r.account_id,
          environment: r.environment,
          brand: r.brand,
          last4: r.last4,
          paymentMethodRef: r.payment_method_ref,
          customerRef: r.customer_ref,
        }
      : null;
  }

  async save(c: SavedCard): Promise<void> {
    await this.uow
      .db()('saved_cards')
      .insert({
        account_id: c.accountId,
        environment: c.environment,
        brand: c.brand,
        last4: c.last4,
        payment_method_ref: c.paymentMethodRef,
        customer_ref: c.customerRef,
      })
      .onConflict(['account_id', 'environment'])
      .merge();
  }
}

export class SqlTopUps implements TopUps {
  constructor(private readonly uow: KnexUnitOfWork) {}

  async insert(t: TopUp): Promise<void> {
    await this.uow
      .db()('topups')
      .insert({
        id: t.id,
        account_id: t.accountId,
        environment: t.environment,
        key_id: t.keyId,
        amount: t.amount,
        status: t.status,
        provider_id: t.providerId,
        failure_code: t.failureCode,
        created_at: iso(t.createdAt),
      });
  }

  async update(id: string, fields: Pick<TopUp, 'status' | 'providerId' | 'failureCode'>): Promise<void> {
    await this.uow
      .db()('topups')
      .where({ id })
      .update({ status: fields.status, provider_id: fields.providerId, failure_code: fields.failureCode });
  }

  async find(id: string): Promise<TopUp | null> {
    const r = await this.uow.db()('topups').where({ id }).first();
    return r
      ? {
          id: r.id,
          accountId: r.account_id,
          environment: r.environment as Environment,
          keyId: r.key_id,
          amount: Number(r.amount),
          status: r.status,
          providerId: r.provider_id,
          failureCode: r.failure_code,
          createdAt: date(r.created_at),
        }
      : null;
  }
}
