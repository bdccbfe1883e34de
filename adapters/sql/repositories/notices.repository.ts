import type { Notice } from '../../../core/notices/notice.js';
import type { NoticeRepository } from '../../../core/notices/ports/notice-repository.port.js';
import type { Environment } from '../../../core/kernel/environment.js';
import { date, iso, json, parse, num } from '../rows.js';
import type { KnexUnitOfWork } from '../unit-of-work.js';
import type { NoticeDelivery, NoticeOutbox } from '../../../core/notices/ports/notice-outbox.port.js';

export class SqlNoticeRepository implements NoticeRepository {
  constructor(private readonly uow: KnexUnitOfWork) {}

  async insert(notices: readonly Notice[]): Promise<void> {
    if (notices.length === 0) return;
    await this.uow
      .db()('notices')
      .insert(
        notices.map((n) => ({
          id: n.id,
          group_id: n.groupId,
          account_id: n.accountId,
          environment: n.environment,
          recipient_id: n.recipientId,
          kind: n.kind,
          domain: n.domain,
          message_uk: n.message.uk,
          message_en: n.message.en,
          data: json(n.data),
          created_at: iso(n.createdAt),
        })),
      );
  }

  async listForPerson(personId: string, environment: Environment | undefined, after: string | undefined, limit: number): Promise<Notice[]> {
    // Newest first: ids are time-ordered, so "after" means "older than".
    const q = this.uow.db()('notices').where({ recipient_id: personId }).orderBy('id', 'desc').limit(limit);
    if (environment) q.andWhere({ environment });
    if (after) q.andWhere('id', '<', after);
    return (await q).map(toNotice);
  }

  async listForAccount(accountId: string, environment: Environment, after: string | undefined, limit: number): Promise<Notice[]> {
    const db = this.uow.db();
    const firsts = db('notices').min('id').where({ account_id: accountId, environment }).groupBy('group_id');
    const q = db('notices').whereIn('id', firsts).orderBy('id', 'desc').limit(limit);
    if (after) q.andWhere('id', '<', after);
    return (await q).map(toNotice);
  }
}

const toNotice = (r: Record<string, string>): Notice => ({
  id: r.id!,
  groupId: r.group_id ?? r.id!,
  accountId: r.account_id!,
  environment: r.environment as Environment,
  recipientId: r.recipient_id!,
  kind: r.kind!,
  domain: r.domain ?? null,
  message: { uk: r.message_uk!, en: r.message_en! },
  data: parse<Record<string, unknown>>(r.data!),
  createdAt: date(r.created_at!),
});

type Row = {
  id: string;
  notice_id: string;
  recipient_id: string;
  address: string;
  subject: string;
  body: string;
  attempts: number;
  created_at: string;
};
const toDelivery = (r: Row): NoticeDelivery => ({
  id: r.id,
  noticeId: r.notice_id,
  recipientId: r.recipient_id,
  address: r.address,
  subject: r.subject,
  body: r.body,
  attempts: Number(r.attempts),
  createdAt: date(r.created_at),
});

export class SqlNoticeOutbox implements NoticeOutbox {
  constructor(
    private readonly uow: KnexUnitOfWork,
    private readonly engine: 'sqlite' | 'postgres',
  ) {}

  async enqueue(deliveries: readonly NoticeDelivery[]): Promise<void> {
    if (deliveries.length === 0) return;
    await this.uow
      .db()('notice_deliveries')
      .insert(
        deliveries.map((d) => ({
          id: d.id,
          notice_id: d.noticeId,
          recipient_id: d.recipientId,
          address: d.address,
          subject: d.subject,
          body: d.body,
          status: 'pending',
          attempts: d.attempts,
          next_attempt_at: iso(d.createdAt),
          created_at: iso(d.createdAt),
        })),
      );
  }

  async claimDue(now: Date, limit: number, leaseUntil: Date): Promise<NoticeDelivery[]> {
    return this.uow.transaction(async () => {
      const db = this.uow.db();
      const q = db('notice_deliveries')
        .where({ status: 'pending' })
        .andWhere('next_attempt_at', '<=', iso(now))
        .orderBy('next_attempt_at')
        .limit(limit);
      // Two workers on one Postgres never take the same row; SQLite has one writer anyway.
      if (this.engine === 'postgres') q.forUpdate().skipLocked();
      const rows: Row[] = await q;
      if (rows.length > 0) {
        // The lease: the row stays pending but is not due again until the lease runs out.
        await db('notice_deliveries')
          .whereIn(
            'id',
            rows.map((r) => r.id),
          )
          .update({ next_attempt_at: iso(leaseUntil) });
      }
      return rows.map(toDelivery);
    });
  }

  async markSent(id: string, at: Date): Promise<void> {
    const db = this.uow.db();
    // Only a pending row: a slow worker whose lease ran out must not undo another worker's outcome.
    await db('notice_deliveries')
      .where({ id, status: 'pending' })
      .update({ status: 'sent', sent_at: iso(at), attempts: db.raw('attempts + 1'), last_error: null });
  }

  async markFailed(id: string, error: string, retryAt: Date | null): Promise<void> {
    const db = this.uow.db();
    await db('notice_deliveries')
      .where({ id, status: 'pending' })
      .update({
        status: retryAt ? 'pending' : 'failed',
        attempts: db.raw('attempts + 1'),
        last_error: error.slice(0, 2000),
        ...(retryAt ? { next_attempt_at: iso(retryAt) } : {}),
      });
  }

  async counts(): Promise<Record<'pending' | 'sent' | 'failed', number>> {
    const rows: Array<{ status: string; n: unknown }> = await this.uow
      .db()('notice_deliveries')
      .select('status')
      .count({ n: '*' })
      .groupBy('status');
    const out = { pending: 0, sent: 0, failed: 0 };
    for (const r of rows) out[r.status as keyof typeof out] = num(r.n);
    return out;
  }
}
