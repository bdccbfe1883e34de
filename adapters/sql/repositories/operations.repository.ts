import type { Knex } from 'knex';
import type { Confirmation, Operation, OperationKind, OperationStatus, Party } from '../../../core/operations/operation.js';
import type {
  DomainLabelWriter,
  OperationListQuery,
  OperationRepository,
} from '../../../core/operations/ports/operation-repository.port.js';
import type { Environment } from '../../../core/kernel/environment.js';
import { date, dateOrNull, iso, json, parse } from '../rows.js';
import type { KnexUnitOfWork } from '../unit-of-work.js';
import type { ChangeAnnouncer } from '../../../core/kernel/change-feed.port.js';

type Row = {
  id: string;
  account_id: string;
  environment: string;
  domain_id: string;
  domain: string;
  kind: string;
  status: string;
  params: string;
  warnings: string;
  requested_by_key: string | null;
  requested_by_person: string;
  confirmations: string;
  created_at: string;
  activates_at: string;
  resolved_at: string | null;
  cancelled_by: string | null;
  failure_reason: string | null;
};

const isUniqueViolation = (err: unknown): boolean => {
  const e = err as { code?: string; message?: string };
  return e.code === '23505' || e.code === 'SQLITE_CONSTRAINT_UNIQUE' || /UNIQUE constraint failed/i.test(e.message ?? '');
};

/** Class 3 operations. Instants are ISO strings, so text order is time order on both engines. */
export class SqlOperationRepository implements OperationRepository, DomainLabelWriter {
  constructor(
    private readonly uow: KnexUnitOfWork,
    private readonly engine: 'sqlite' | 'postgres' = 'sqlite',
    private readonly announcer: ChangeAnnouncer | null = null,
  ) {}

  async insert(op: Operation): Promise<boolean> {
    const db = this.uow.db();
    const row = { ...this.toRow(op), pending_domain: op.status === 'pending' ? op.domainId : null };
    if (this.engine === 'postgres') {
      // A failed statement would abort the surrounding Postgres transaction: let the index decide quietly.
      const r = await db('operations').insert(row).onConflict('pending_domain').ignore().returning('id');
      return (r as unknown[]).length > 0;
    }
    try {
      await db('operations').insert(row);
      return true;
    } catch (err) {
      if (isUniqueViolation(err)) return false;
      throw err;
    }
  }

  async find(accountId: string, id: string): Promise<Operation | null> {
    const row: Row | undefined = await this.uow.db()('operations').where({ account_id: accountId, id }).first();
    return row ? this.toOperation(row) : null;
  }

  async pendingOn(domainId: string): Promise<Operation | null> {
    const row: Row | undefined = await this.uow.db()('operations').where({ pending_domain: domainId }).first();
    return row ? this.toOperation(row) : null;
  }

  async pendingRequestedBy(accountId: string, by: { readonly keyId: string } | { readonly personId: string }): Promise<Operation[]> {
    const rows: Row[] = await this.uow
      .db()('operations')
      .where({ account_id: accountId, status: 'pending' })
      .andWhere('keyId' in by ? { requested_by_key: by.keyId } : { requested_by_person: by.personId })
      .orderBy('id');
    return rows.map((r) => this.toOperation(r));
  }

  async list(q: OperationListQuery): Promise<Operation[]> {
    const db = this.uow.db();
    const query = db('operations')
      .where({ account_id: q.accountId, environment: q.environment })
      .orderBy([
        { column: 'created_at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .limit(q.limit);
    if (q.domain) query.andWhere({ domain: q.domain });
    if (q.status) query.andWhere({ status: q.status });
    if (q.before) {
      const b = q.before;
      query.andWhere((w) =>
        w.where('created_at', '<', b.createdAt).orWhere((x) => x.where('created_at', '=', b.createdAt).andWhere('id', '<', b.id)),
      );
    }
    if (!q.scope.all) {
      query.andWhere((w) => {
        w.whereIn('domain', [...q.scope.names]);
        if (q.scope.labels.length > 0)
          w.orWhereIn(
            'domain_id',
            db('domain_labels')
              .select('domain_id')
              .where({ account_id: q.accountId, environment: q.environment })
              .whereIn('label', [...q.scope.labels]),
          );
      });
    }
    return ((await query) as Row[]).map((r) => this.toOperation(r));
  }

  async update(op: Operation, expect: { token?: string; unleasedAt?: Date }): Promise<boolean> {
    const q = this.uow.db()('operations').where({ id: op.id, status: 'pending' });
    if (expect.token !== undefined) q.andWhere({ lock_token: expect.token });
    if (expect.unleasedAt !== undefined) {
      const at = iso(expect.unleasedAt);
      q.andWhere((w) => w.whereNull('lock_expires_at').orWhere('lock_expires_at', '<', at));
    }
    const resolved = op.status !== 'pending';
    const n = await q.update({
      status: op.status,
      confirmations: json(op.confirmations.map(confirmationRow)),
      activates_at: iso(op.activatesAt),
      resolved_at: op.resolvedAt ? iso(op.resolvedAt) : null,
      cancelled_by: op.cancelledBy ? json(op.cancelledBy) : null,
      failure_reason: op.failureReason,
      ...(resolved ? { pending_domain: null, lock_token: null, lock_expires_at: null } : {}),
    });
    return n > 0;
  }

  async lease(id: string, token: string, now: Date, until: Date): Promise<boolean> {
    const n = await this.uow
      .db()('operations')
      .where({ id, status: 'pending' })
      .andWhere((w) => w.whereNull('lock_expires_at').orWhere('lock_expires_at', '<', iso(now)))
      .update({ lock_token: token, lock_expires_at: iso(until) });
    return n > 0;
  }

  async claimDue(q: {
    environment: Environment;
    accountId?: string;
    excludeAccounts?: readonly string[];
    due: Date;
    now: Date;
    leaseUntil: Date;
    token: string;
    limit: number;
  }): Promise<Operation[]> {
    if (this.engine === 'sqlite') {
      // One conditional UPDATE is atomic in SQLite; a read-then-write transaction would make two
      // workers on one file fail to upgrade their locks (SQLITE_BUSY) instead of one waiting.
      const db = this.uow.db();
      const due = (qb: Knex.QueryBuilder) => {
        qb.where({ environment: q.environment, status: 'pending' })
          .andWhere('activates_at', '<=', iso(q.due))
          .andWhere((w) => w.whereNull('lock_expires_at').orWhere('lock_expires_at', '<', iso(q.now)));
        if (q.accountId) qb.andWhere({ account_id: q.accountId });
        if (q.excludeAccounts && q.excludeAccounts.length > 0) qb.whereNotIn('account_id', [...q.excludeAccounts]);
        return qb;
      };
      await due(db('operations'))
        .whereIn('id', due(db('operations').select('id')).orderBy('activates_at').limit(q.limit))
        .update({ lock_token: q.token, lock_expires_at: iso(q.leaseUntil) });
      const rows: Row[] = await db('operations').where({ lock_token: q.token, status: 'pending' }).orderBy('activates_at');
      return rows.map((r) => this.toOperation(r));
    }
    const ids: string[] = await this.uow.transaction(async () => {
      const db = this.uow.db();
      const sel = db('operations')
        .select('id')
        .where({ environment: q.environment, status: 'pending' })
        .andWhere('activates_at', '<=', iso(q.due))
        .andWhere((w) => w.whereNull('lock_expires_at').orWhere('lock_expires_at', '<', iso(q.now)))
        .orderBy('activates_at')
        .limit(q.limit);
      if (q.accountId) sel.andWhere({ account_id: q.accountId });
      if (q.excludeAccounts && q.excludeAccounts.length > 0) sel.whereNotIn('account_id', [...q.excludeAccounts]);
      if (this.engine === 'postgres') sel.forUpdate().skipLocked();
      const found = ((await sel) as Array<{ id: string }>).map((r) => r.id);
      if (found.length === 0) return [];
      // Conditional again (SQLite has no row locks; the write lock of this transaction serialises claims).
      await db('operations')
        .whereIn('id', found)
        .andWhere({ status: 'pending' })
        .andWhere((w) => w.whereNull('lock_expires_at').orWhere('lock_expires_at', '<', iso(q.now)))
        .update({ lock_token: q.token, lock_expires_at: iso(q.leaseUntil) });
      return found;
    });
    if (ids.length === 0) return [];
    const rows: Row[] = await this.uow
      .db()('operations')
      .whereIn('id', ids)
      .andWhere({ lock_token: q.token, status: 'pending' })
      .orderBy('activates_at');
    return rows.map((r) => this.toOperation(r));
  }

  async releaseLease(id: string, token: string): Promise<void> {
    await this.uow.db()('operations').where({ id, lock_token: token }).update({ lock_token: null, lock_expires_at: null });
  }

  async setLabels(domainId: string, labels: readonly string[]): Promise<void> {
    const db: Knex | Knex.Transaction = this.uow.db();
    await db('domain_labels').where({ domain_id: domainId }).delete();
    if (labels.length > 0) {
      // A label row carries its domain's account, environment and name (the list by label reads them from its index).
      const d: { account_id: string; environment: string; name: string } | undefined = await db('domains')
        .where({ id: domainId })
        .first('account_id', 'environment', 'name');
      if (!d) throw new Error(`setLabels: no domain ${domainId}`);
      await db('domain_labels').insert(labels.map((label) => ({ domain_id: domainId, label, ...d })));
    }
    // Labels are part of the domain read other processes cache: announce in this transaction.
    await this.announcer?.announce('domain', domainId);
  }

  private toRow(op: Operation) {
    return {
      id: op.id,
      account_id: op.accountId,
      environment: op.environment,
      domain_id: op.domainId,
      domain: op.domain,
      kind: op.kind,
      status: op.status,
      params: json(op.params),
      warnings: json(op.warnings),
      requested_by_key: op.requestedBy.type === 'key' ? op.requestedBy.keyId : null,
      requested_by_person: op.requestedBy.personId,
      confirmations: json(op.confirmations.map(confirmationRow)),
      created_at: iso(op.createdAt),
      activates_at: iso(op.activatesAt),
      resolved_at: op.resolvedAt ? iso(op.resolvedAt) : null,
      cancelled_by: op.cancelledBy ? json(op.cancelledBy) : null,
      failure_reason: op.failureReason,
    };
  }

  private toOperation(r: Row): Operation {
    const requestedBy: Party = r.requested_by_key
      ? { type: 'key', keyId: r.requested_by_key, personId: r.requested_by_person }
      : { type: 'person', personId: r.requested_by_person };
    return {
      id: r.id,
      accountId: r.account_id,
      environment: r.environment as Environment,
      domainId: r.domain_id,
      domain: r.domain,
      kind: r.kind as OperationKind,
      status: r.status as OperationStatus,
      params: parse(r.params),
      warnings: parse(r.warnings),
      requestedBy,
      confirmations: parse<Array<{ by: Party; at: string }>>(r.confirmations).map((c): Confirmation => ({ by: c.by, at: date(c.at) })),
      createdAt: date(r.created_at),
      activatesAt: date(r.activates_at),
      resolvedAt: dateOrNull(r.resolved_at),
      cancelledBy: r.cancelled_by ? parse<Party>(r.cancelled_by) : null,
      failureReason: r.failure_reason,
    };
  }
}

const confirmationRow = (c: Confirmation) => ({ by: c.by, at: iso(c.at) });
