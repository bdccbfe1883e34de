import type { Environment } from '../../../core/kernel/environment.js';
import type { TopUp, TopUps } from '../../../core/billing/top-up.js';
import { date, iso } from '../rows.js';
import type { KnexUnitOfWork } from '../unit-of-work.js';

export class SqlTopUps implements TopUps {
  constructor(private readonly uow: KnexUnitOfWork) {}

  async insert(t: TopUp): Promise<void> {
    await this.uow.db()('topups').insert({
      id: t.id, account_id: t.accountId, environment: t.environment, key_id: t.keyId, amount: t.amount, status: t.status,
      provider_id: t.providerId, failure_code: t.failureCode, created_at: iso(t.createdAt),
    });
  }

  async update(id: string, fields: Pick<TopUp, 'status' | 'providerId' | 'failureCode'>): Promise<void> {
    await this.uow.db()('topups').where({ id }).update({ status: fields.status, provider_id: fields.providerId, failure_code: fields.failureCode });
  }

  async find(id: string): Promise<TopUp | null> {
    const r = await this.uow.db()('topups').where({ id }).first();
    return r
      ? {
          id: r.id, accountId: r.account_id, environment: r.environment as Environment, keyId: r.key_id, amount: Number(r.amount),
          status: r.status, providerId: r.provider_id, failureCode: r.failure_code, createdAt: date(r.created_at),
        }
      : null;
  }
}
