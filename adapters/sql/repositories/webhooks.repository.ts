import type { Environment } from '../../../core/kernel/environment.js';
import type { NewDelivery, WebhookRepository } from '../../../core/webhooks/ports/webhook-repository.port.js';
import type { Attempt, Delivery, Webhook, WebhookTarget } from '../../../core/webhooks/webhook.js';
import type { Engine } from '../connection.js';
import { bool, date, dateOrNull, iso, json, num, parse, rawRows } from '../rows.js';
import type { KnexUnitOfWork } from '../unit-of-work.js';

type Row = Record<string, unknown>;

const toWebhook = (r: Row): Webhook => ({
  id: r.id as string,
  accountId: r.account_id as string,
  environment: r.environment as Environment,
  url: r.url as string,
  description: (r.description as string | null) ?? null,
  events: parse<string[]>(r.events as string),
  domains: r.domains ? parse<string[]>(r.domains as string) : null,
  enabled: bool(r.enabled),
  disabledReason: (r.disabled_reason as Webhook['disabledReason']) ?? null,
  secretSealed: r.secret_sealed as string,
  oldSecretSealed: (r.old_secret_sealed as string | null) ?? null,
  oldSecretExpiresAt: dateOrNull(r.old_secret_expires_at as string | null),
  failingSince: dateOrNull(r.failing_since as string | null),
  createdBy: r.created_by as string,
  createdAt: date(r.created_at as string),
  updatedAt: date(r.updated_at as string),
});

const webhookRow = (w: Webhook): Row => ({
  id: w.id,
  account_id: w.accountId,
  environment: w.environment,
  url: w.url,
  description: w.description,
  events: json(w.events),
  domains: w.domains ? json(w.domains) : null,
  enabled: w.enabled,
  disabled_reason: w.disabledReason,
  secret_sealed: w.secretSealed,
  old_secret_sealed: w.oldSecretSealed,
  old_secret_expires_at: w.oldSecretExpiresAt ? iso(w.oldSecretExpiresAt) : null,
  failing_since: w.failingSince ? iso(w.failingSince) : null,
  created_by: w.createdBy,
  created_at: iso(w.createdAt),
  updated_at: iso(w.updatedAt),
});

const toDelivery = (r: Row): Delivery => ({
  id: r.id as string,
  webhookId: r.webhook_id as string,
  accountId: r.account_id as string,
  environment: r.environment as Environment,
  eventId: r.event_id as string,
  eventSeq: String(r.event_seq),
  status: r.status as Delivery['status'],
  attempts: num(r.attempts),
  nextAttemptAt: dateOrNull(r.next_attempt_at as string | null),
  eventCommittedAt: date(r.event_committed_at as string),
  firstAttemptAt: dateOrNull(r.first_attempt_at as string | null),
  deliveredAt: dateOrNull(r.delivered_at as string | null),
  createdAt: date(r.created_at as string),
});

const toAttempt = (r: Row): Attempt => ({
  id: r.id as string,
  deliveryId: r.delivery_id as string,
  webhookId: r.webhook_id as string,
  number: num(r.number),
  attemptedAt: date(r.attempted_at as string),
  outcome: r.outcome as Attempt['outcome'],
  responseCode: r.response_code === null ? null : num(r.response_code),
  latencyMs: r.latency_ms === null ? null : num(r.latency_ms),
  responseBody: (r.response_body as string | null) ?? null,
  error: (r.error as string | null) ?? null,
});

/** Webhook endpoints, their deliveries (the work queue) and the attempt log. */
const attemptRow = (a: Attempt): Row => ({
  id: a.id,
  delivery_id: a.deliveryId,
  webhook_id: a.webhookId,
  number: a.number,
  attempted_at: iso(a.attemptedAt),
  outcome: a.outcome,
  response_code: a.responseCode,
  latency_ms: a.latencyMs,
  response_body: a.responseBody,
  error: a.error,
});

export class SqlWebhookRepository implements WebhookRepository {
  constructor(
    private readonly uow: KnexUnitOfWork,
    private readonly engine: Engine,
  ) {}

  async insert(w: Webhook): Promise<void> {
    await this.uow.db()('webhooks').insert(webhookRow(w));
    await this.writeTypes(w);
  }

  async update(w: Webhook): Promise<void> {
    const { id: _id, created_at: _c, created_by: _b, ...rest } = webhookRow(w);
    await this.uow.db()('webhooks').where({ id: w.id }).update(rest);
    await this.writeTypes(w);
  }

  /** The endpoint's names as rows of webhook_event_types (the publisher's index), replacing what was there. */
  private async writeTypes(w: Webhook): Promise<void> {
    const db = this.uow.db();
    await db('webhook_event_types').where({ webhook_id: w.id }).delete();
    const rows = [...new Set(w.events)].map((event_type) => ({
      webhook_id: w.id,
      account_id: w.accountId,
      environment: w.environment,
      event_type,
    }));
    if (rows.length > 0) await db('webhook_event_types').insert(rows);
  }

  async delete(id: string): Promise<void> {
    const db = this.uow.db();
    await db('webhooks').where({ id }).update({ deleted: true, enabled: false });
    await db('webhook_deliveries').where({ webhook_id: id, status: 'pending' }).update({ status: 'failed', next_attempt_at: null });
  }

  async find(accountId: string, environment: Environment, id: string): Promise<Webhook | null> {
    const r = await this.uow.db()('webhooks').where({ account_id: accountId, environment, id, deleted: false }).first();
    return r ? toWebhook(r) : null;
  }

  async findById(id: string): Promise<Webhook | null> {
    const r = await this.uow.db()('webhooks').where({ id, deleted: false }).first();
    return r ? toWebhook(r) : null;
  }

  async list(accountId: string, environment: Environment, after: string | null, limit: number): Promise<Webhook[]> {
    const q = this.uow.db()('webhooks').where({ account_id: accountId, environment, deleted: false }).orderBy('id', 'asc').limit(limit);
    if (after) q.andWhere('id', '>', after);
    return (await q).map(toWebhook);
  }

  async wanting(
    scopes: ReadonlyArray<{ accountId: string; environment: Environment }>,
    publicTypes: readonly string[],
  ): Promise<WebhookTarget[]> {
    if (publicTypes.length === 0) return [];
    const types = [...new Set([...publicTypes, '*'])];
    const rows: Row[] = [];
    // One indexed read per account and environment (a batch holds few): (account, environment, type) → endpoint.
    for (const k of new Set(scopes.map((x) => `${x.accountId}/${x.environment}`))) {
      const [accountId, environment] = [k.slice(0, k.lastIndexOf('/')), k.slice(k.lastIndexOf('/') + 1)];
      rows.push(
        ...(await this.uow
          .db()('webhook_event_types as t')
          .join('webhooks as w', 'w.id', 't.webhook_id')
          .select('w.id', 'w.account_id', 'w.environment', 'w.events', 'w.domains')
          .where({ 't.account_id': accountId, 't.environment': environment })
          .whereIn('t.event_type', types)
          .where({ 'w.enabled': true, 'w.deleted': false })),
      );
    }
    const seen = new Set<string>();
    const out: WebhookTarget[] = [];
    for (const r of rows) {
      if (seen.has(r.id as string)) continue;
      seen.add(r.id as string);
      out.push({
        id: r.id as string,
        accountId: r.account_id as string,
        environment: r.environment as Environment,
        events: parse<string[]>(r.events as string),
        domains: r.domains ? parse<string[]>(r.domains as string) : null,
        enabled: true,
      });
    }
    return out;
  }

  async insertDeliveries(rows: readonly NewDelivery[]): Promise<void> {
    const db = this.uow.db();
    const mapped = rows.map((d) => ({
      id: d.id,
      webhook_id: d.webhookId,
      account_id: d.accountId,
      environment: d.environment,
      event_id: d.eventId,
      event_seq: d.eventSeq,
      status: 'pending',
      attempts: 0,
      next_attempt_at: iso(d.nextAttemptAt),
      event_committed_at: iso(d.eventCommittedAt),
      created_at: iso(d.createdAt),
    }));
    for (let i = 0; i < mapped.length; i += 200) await db('webhook_deliveries').insert(mapped.slice(i, i + 200));
  }

  async claimDue(q: { now: Date; leaseUntil: Date; token: string; limit: number; busy: readonly string[] }): Promise<Delivery[]> {
    const now = iso(q.now);
    const busy = q.busy.length > 0 ? `and d.webhook_id not in (${q.busy.map(() => '?').join(', ')})` : '';
    const pick = `select d.id from webhook_deliveries d join webhooks w on w.id = d.webhook_id
      where d.status = 'pending' and d.next_attempt_at <= ? and (d.lease_expires_at is null or d.lease_expires_at < ?)
        and w.enabled = ? and w.deleted = ? ${busy}
      order by d.event_seq, d.created_at limit ?`;
    const params = [now, now, true, false, ...q.busy, q.limit];
    const run = async () => {
      if (this.engine === 'postgres') {
        return rawRows<Row>(
          this.uow.db(),
          `update webhook_deliveries set lease_token = ?, lease_expires_at = ?
          where id in (${pick} for update of d skip locked) returning *`,
          [q.token, iso(q.leaseUntil), ...params],
        );
      }
      // SQLite: one statement under the write lock; the conditions are re-checked by the UPDATE itself.
      return rawRows<Row>(
        this.uow.db(),
        `update webhook_deliveries set lease_token = ?, lease_expires_at = ?
        where id in (${pick}) and status = 'pending' and (lease_expires_at is null or lease_expires_at < ?) returning *`,
        [q.token, iso(q.leaseUntil), now, now, 1, 0, ...q.busy, q.limit, now],
      );
    };
    const rows = await run();
    return rows
      .map(toDelivery)
      .sort((a, b) =>
        BigInt(a.eventSeq) < BigInt(b.eventSeq)
          ? -1
          : BigInt(a.eventSeq) > BigInt(b.eventSeq)
            ? 1
            : a.createdAt.getTime() - b.createdAt.getTime(),
      );
  }

  async recordAttempt(
    a: Attempt,
    next: { status: Delivery['status']; nextAttemptAt: Date | null; firstAttemptAt: Date; deliveredAt: Date | null },
    token: string,
  ): Promise<boolean> {
    const db = this.uow.db();
    const n = await db('webhook_deliveries')
      .where({ id: a.deliveryId, lease_token: token, status: 'pending' })
      .update({
        status: next.status,
        attempts: a.number,
        next_attempt_at: next.nextAttemptAt ? iso(next.nextAttemptAt) : null,
        first_attempt_at: iso(next.firstAttemptAt),
        delivered_at: next.deliveredAt ? iso(next.deliveredAt) : null,
        lease_token: null,
        lease_expires_at: null,
      });
    if (n === 0) return false;
    await db('webhook_attempts').insert(attemptRow(a));
    return true;
  }

  async recordDelivered(
    items: ReadonlyArray<{ attempt: Attempt; token: string; firstAttemptAt: Date; deliveredAt: Date }>,
  ): Promise<Set<string>> {
    const db = this.uow.db();
    const done = new Set<string>();
    // One UPDATE … FROM a VALUES table per chunk (the lease and status are checked per row by the join),
    // then one multi-row INSERT of the attempts whose delivery was updated.
    for (let i = 0; i < items.length; i += 200) {
      const chunk = items.slice(i, i + 200);
      const pg = this.engine === 'postgres';
      const values = chunk.map(() => (pg ? '(?, ?, ?::int, ?, ?)' : '(?, ?, ?, ?, ?)')).join(', ');
      const params = chunk.flatMap((x) => [x.attempt.deliveryId, x.token, x.attempt.number, iso(x.firstAttemptAt), iso(x.deliveredAt)]);
      const sql = pg
        ? `update webhook_deliveries as d set status = 'delivered', attempts = v.n, next_attempt_at = null, first_attempt_at = v.f, delivered_at = v.at,
             lease_token = null, lease_expires_at = null from (values ${values}) as v(id, tok, n, f, at)
           where d.id = v.id and d.lease_token = v.tok and d.status = 'pending' returning d.id`
        : `with v(id, tok, n, f, at) as (values ${values}) update webhook_deliveries set status = 'delivered', attempts = v.n, next_attempt_at = null,
             first_attempt_at = v.f, delivered_at = v.at, lease_token = null, lease_expires_at = null
           from v where webhook_deliveries.id = v.id and webhook_deliveries.lease_token = v.tok and webhook_deliveries.status = 'pending' returning webhook_deliveries.id`;
      const rows = await rawRows<Row>(db, sql, params);
      const updated = new Set(rows.map((r) => r.id as string));
      const logged = chunk.filter((x) => updated.has(x.attempt.deliveryId)).map((x) => attemptRow(x.attempt));
      if (logged.length > 0) await db('webhook_attempts').insert(logged);
      for (const id of updated) done.add(id);
    }
    return done;
  }

  async release(deliveryId: string, token: string): Promise<void> {
    await this.uow
      .db()('webhook_deliveries')
      .where({ id: deliveryId, lease_token: token })
      .update({ lease_token: null, lease_expires_at: null });
  }

  async findDelivery(webhookId: string, id: string): Promise<Delivery | null> {
    const r = await this.uow.db()('webhook_deliveries').where({ webhook_id: webhookId, id }).first();
    return r ? toDelivery(r) : null;
  }

  async listDeliveries(
    webhookId: string,
    after: string | null,
    limit: number,
  ): Promise<Array<Delivery & { eventType: string; log: Attempt[] }>> {
    const db = this.uow.db();
    // Newest first; the cursor is the last delivery id of the previous page (ids are time-ordered).
    const q = db('webhook_deliveries as d')
      .leftJoin('events as e', 'e.id', 'd.event_id')
      .where('d.webhook_id', webhookId)
      .orderBy('d.id', 'desc')
      .limit(limit)
      .select('d.*', 'e.public_type as event_type');
    if (after) q.andWhere('d.id', '<', after);
    const rows = await q;
    const ids = rows.map((r: Row) => r.id as string);
    const attempts = ids.length ? (await db('webhook_attempts').whereIn('delivery_id', ids).orderBy('number', 'asc')).map(toAttempt) : [];
    return rows.map((r: Row) => ({
      ...toDelivery(r),
      eventType: (r.event_type as string | null) ?? 'unknown',
      log: attempts.filter((a) => a.deliveryId === r.id),
    }));
  }

  async markFailing(id: string, at: Date): Promise<Date> {
    const db = this.uow.db();
    await db('webhooks')
      .where({ id })
      .whereNull('failing_since')
      .update({ failing_since: iso(at) });
    const r = await db('webhooks').where({ id }).first('failing_since');
    return date(r.failing_since as string);
  }

  async markHealthy(id: string): Promise<void> {
    await this.uow.db()('webhooks').where({ id }).whereNotNull('failing_since').update({ failing_since: null });
  }

  async disable(id: string, reason: 'gone' | 'failing', at: Date): Promise<boolean> {
    const n = await this.uow
      .db()('webhooks')
      .where({ id, enabled: true })
      .update({ enabled: false, disabled_reason: reason, updated_at: iso(at) });
    return n > 0;
  }

  async cancelPending(webhookId: string): Promise<number> {
    return this.uow
      .db()('webhook_deliveries')
      .where({ webhook_id: webhookId, status: 'pending' })
      .update({ status: 'failed', next_attempt_at: null });
  }

  async purge(before: Date): Promise<number> {
    const db = this.uow.db();
    const old = db('webhook_deliveries').where('created_at', '<', iso(before)).whereNot('status', 'pending').select('id');
    await db('webhook_attempts').whereIn('delivery_id', old.clone()).delete();
    return db('webhook_deliveries').where('created_at', '<', iso(before)).whereNot('status', 'pending').delete();
  }
}
