import type { NoticeDelivery, NoticeOutbox } from '../../../core/notices/ports/notice-outbox.port.js';
import { date, iso, num } from '../rows.js';
import type { KnexUnitOfWork } from '../unit-of-work.js';

type Row = { id: string; notice_id: string; recipient_id: string; address: string; subject: string; body: string; attempts: number; created_at: string };
const toDelivery = (r: Row): NoticeDelivery => ({
  id: r.id, noticeId: r.notice_id, recipientId: r.recipient_id, address: r.address, subject: r.subject, body: r.body,
  attempts: Number(r.attempts), createdAt: date(r.created_at),
});

export class SqlNoticeOutbox implements NoticeOutbox {
  constructor(private readonly uow: KnexUnitOfWork, private readonly engine: 'sqlite' | 'postgres') {}

  async enqueue(deliveries: readonly NoticeDelivery[]): Promise<void> {
    if (deliveries.length === 0) return;
    await this.uow.db()('notice_deliveries').insert(deliveries.map((d) => ({
      id: d.id, notice_id: d.noticeId, recipient_id: d.recipientId, address: d.address, subject: d.subject, body: d.body,
      status: 'pending', attempts: d.attempts, next_attempt_at: iso(d.createdAt), created_at: iso(d.createdAt),
    })));
  }

  async claimDue(now: Date, limit: number, leaseUntil: Date): Promise<NoticeDelivery[]> {
    return this.uow.transaction(async () => {
      const db = this.uow.db();
      const q = db('notice_deliveries').where({ status: 'pending' }).andWhere('next_attempt_at', '<=', iso(now))
        .orderBy('next_attempt_at').limit(limit);
      // Two workers on one Postgres never take the same row; SQLite has one writer anyway.
      if (this.engine === 'postgres') q.forUpdate().skipLocked();
      const rows: Row[] = await q;
      if (rows.length > 0) {
        // The lease: the row stays pending but is not due again until the lease runs out.
        await db('notice_deliveries').whereIn('id', rows.map((r) => r.id)).update({ next_attempt_at: iso(leaseUntil) });
      }
      return rows.map(toDelivery);
    });
  }

  async markSent(id: string, at: Date): Promise<void> {
    const db = this.uow.db();
    // Only a pending row: a slow worker whose lease ran out must not undo another worker's outcome.
    await db('notice_deliveries').where({ id, status: 'pending' }).update({ status: 'sent', sent_at: iso(at), attempts: db.raw('attempts + 1'), last_error: null });
  }

  async markFailed(id: string, error: string, retryAt: Date | null): Promise<void> {
    const db = this.uow.db();
    await db('notice_deliveries').where({ id, status: 'pending' }).update({
      status: retryAt ? 'pending' : 'failed', attempts: db.raw('attempts + 1'), last_error: error.slice(0, 2000),
      ...(retryAt ? { next_attempt_at: iso(retryAt) } : {}),
    });
  }

  async counts(): Promise<Record<'pending' | 'sent' | 'failed', number>> {
    const rows: Array<{ status: string; n: unknown }> = await this.uow.db()('notice_deliveries').select('status').count({ n: '*' }).groupBy('status');
    const out = { pending: 0, sent: 0, failed: 0 };
    for (const r of rows) out[r.status as keyof typeof out] = num(r.n);
    return out;
  }
}
