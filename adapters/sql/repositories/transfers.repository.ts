import type { Environment } from '../../../core/kernel/environment.js';
import type { TransferRepository } from '../../../core/domains/ports/transfer-repository.port.js';
import { ACTIVE_PHASES, type DomainTransfer, type TransferPhase } from '../../../core/domains/transfer.js';
import { bool, date, dateOrNull, iso, json, newestFirstPage, num, parse } from '../rows.js';
import type { KnexUnitOfWork } from '../unit-of-work.js';

type Row = {
  id: string;
  account_id: string;
  environment: string;
  domain: string;
  direction: string;
  status: string;
  years: number | null;
  amount: unknown;
  ledger_entry_id: string | null;
  key_id: string | null;
  requested_by: string;
  labels: string;
  auth_code: string | null;
  client_transaction_id: string;
  registry_status: string | null;
  action_at: string | null;
  registered_until: string | null;
  error: string | null;
  created_at: string;
  finished_at: string | null;
  keep_zone?: unknown;
};

const toTransfer = (r: Row): DomainTransfer => ({
  id: r.id,
  accountId: r.account_id,
  environment: r.environment as Environment,
  domain: r.domain,
  direction: r.direction as 'in' | 'out',
  status: r.status as TransferPhase,
  years: r.years === null ? null : num(r.years),
  amount: r.amount === null || r.amount === undefined ? null : num(r.amount),
  ledgerEntryId: r.ledger_entry_id,
  keyId: r.key_id,
  requestedBy: r.requested_by,
  labels: parse(r.labels),
  authCode: r.auth_code,
  clientTransactionId: r.client_transaction_id,
  registryStatus: r.registry_status,
  actionAt: r.action_at,
  registeredUntil: r.registered_until,
  error: r.error,
  createdAt: date(r.created_at),
  finishedAt: dateOrNull(r.finished_at),
  keepZone: bool(r.keep_zone),
});

const isUniqueViolation = (err: unknown): boolean => {
  const e = err as { code?: string; message?: string };
  return e.code === '23505' || e.code === 'SQLITE_CONSTRAINT_UNIQUE' || /UNIQUE constraint failed/i.test(e.message ?? '');
};

/** Transfers between registrars. `active` (unique) holds `<environment>:<domain>` while one is under way. */
export class SqlTransferRepository implements TransferRepository {
  constructor(
    private readonly uow: KnexUnitOfWork,
    private readonly engine: 'sqlite' | 'postgres' = 'sqlite',
  ) {}

  async insertActive(t: DomainTransfer): Promise<boolean> {
    const db = this.uow.db();
    const row = {
      id: t.id,
      account_id: t.accountId,
      environment: t.environment,
      domain: t.domain,
      direction: t.direction,
      status: t.status,
      active: `${t.environment}:${t.domain}`,
      years: t.years,
      amount: t.amount,
      ledger_entry_id: t.ledgerEntryId,
      key_id: t.keyId,
      requested_by: t.requestedBy,
      labels: json(t.labels),
      auth_code: t.authCode,
      client_transaction_id: t.clientTransactionId,
      registry_status: t.registryStatus,
      action_at: t.actionAt,
      registered_until: t.registeredUntil,
      error: t.error,
      created_at: iso(t.createdAt),
      finished_at: t.finishedAt ? iso(t.finishedAt) : null,
      keep_zone: t.keepZone ?? false,
    };
    if (this.engine === 'postgres') {
      // A failed statement would abort the surrounding Postgres transaction: let the index decide quietly.
      const r = await db('domain_transfers').insert(row).onConflict('active').ignore().returning('id');
      return (r as unknown[]).length > 0;
    }
    try {
      await db('domain_transfers').insert(row);
      return true;
    } catch (err) {
      if (isUniqueViolation(err)) return false;
      throw err;
    }
  }

  async find(accountId: string, environment: Environment, id: string): Promise<DomainTransfer | null> {
    const r: Row | undefined = await this.uow.db()('domain_transfers').where({ account_id: accountId, environment, id }).first();
    return r ? toTransfer(r) : null;
  }

  async listFor(accountId: string, environment: Environment, domain: string, limit: number): Promise<DomainTransfer[]> {
    const rows: Row[] = await this.uow
      .db()('domain_transfers')
      .where({ account_id: accountId, environment, domain })
      .orderBy([
        { column: 'created_at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .limit(limit);
    return rows.map(toTransfer);
  }

  async listRecent(
    accountId: string,
    environment: Environment,
    q: { before?: string; limit: number; active?: boolean },
  ): Promise<DomainTransfer[]> {
    const sel = this.uow.db()('domain_transfers').where({ account_id: accountId, environment });
    if (q.active) sel.whereIn('status', [...ACTIVE_PHASES]);
    const rows: Row[] = await newestFirstPage(sel, 'created_at', 'id', q);
    return rows.map(toTransfer);
  }

  async activeFor(environment: Environment, domain: string): Promise<DomainTransfer | null> {
    const r: Row | undefined = await this.uow
      .db()('domain_transfers')
      .where({ active: `${environment}:${domain}` })
      .first();
    return r ? toTransfer(r) : null;
  }

  async listActive(q: {
    environment: Environment;
    accountId?: string;
    excludeAccounts?: readonly string[];
    limit: number;
  }): Promise<DomainTransfer[]> {
    let query = this.uow
      .db()('domain_transfers')
      .where({ environment: q.environment })
      .whereIn('status', [...ACTIVE_PHASES]);
    if (q.accountId) query = query.where({ account_id: q.accountId });
    if (q.excludeAccounts && q.excludeAccounts.length > 0) query = query.whereNotIn('account_id', [...q.excludeAccounts]);
    const rows: Row[] = await query.orderBy([{ column: 'created_at' }, { column: 'id' }]).limit(q.limit);
    return rows.map(toTransfer);
  }

  async setKeepZone(id: string, keep: boolean): Promise<boolean> {
    const n = await this.uow
      .db()('domain_transfers')
      .where({ id, direction: 'out' })
      .whereIn('status', [...ACTIVE_PHASES])
      .update({ keep_zone: keep });
    return num(n) === 1;
  }

  async advance(
    id: string,
    from: readonly TransferPhase[],
    to: TransferPhase,
    fields: Partial<Pick<DomainTransfer, 'registryStatus' | 'actionAt' | 'registeredUntil' | 'error' | 'finishedAt'>>,
  ): Promise<boolean> {
    const ended = !ACTIVE_PHASES.includes(to);
    const n = await this.uow
      .db()('domain_transfers')
      .where({ id })
      .whereIn('status', [...from])
      .update({
        status: to,
        ...(fields.registryStatus !== undefined ? { registry_status: fields.registryStatus } : {}),
        ...(fields.actionAt !== undefined ? { action_at: fields.actionAt } : {}),
        ...(fields.registeredUntil !== undefined ? { registered_until: fields.registeredUntil } : {}),
        ...(fields.error !== undefined ? { error: fields.error } : {}),
        ...(fields.finishedAt ? { finished_at: iso(fields.finishedAt) } : {}),
        // The authInfo is deleted, and the name freed for another transfer, the moment the transfer ends.
        ...(ended ? { auth_code: null, active: null } : {}),
      });
    return num(n) === 1;
  }
}
