import type { DomainEvent } from '../../../core/kernel/events.js';
import type { EventLog } from '../../../core/kernel/event-log.port.js';
import type { Notice } from '../../../core/notices/notice.js';
import type { NoticeRepository } from '../../../core/notices/ports/notice-repository.port.js';
import type { Environment } from '../../../core/kernel/environment.js';
import { date, iso, json, parse } from '../rows.js';
import type { KnexUnitOfWork } from '../unit-of-work.js';

export class SqlEventLog implements EventLog {
  constructor(private readonly uow: KnexUnitOfWork) {}

  async append(e: DomainEvent): Promise<void> {
    await this.uow.db()('events').insert({
      id: e.id, account_id: e.accountId, environment: e.environment, type: e.type, subject: e.subject, actor: e.actor,
      data: json(e.data), occurred_at: iso(e.occurredAt),
    });
  }
}

export class SqlNoticeRepository implements NoticeRepository {
  constructor(private readonly uow: KnexUnitOfWork) {}

  async insert(notices: readonly Notice[]): Promise<void> {
    if (notices.length === 0) return;
    await this.uow.db()('notices').insert(notices.map((n) => ({
      id: n.id, group_id: n.groupId, account_id: n.accountId, environment: n.environment, recipient_id: n.recipientId, kind: n.kind,
      domain: n.domain, message_uk: n.message.uk, message_en: n.message.en, data: json(n.data), created_at: iso(n.createdAt),
    })));
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
      id: r.id!, groupId: r.group_id ?? r.id!, accountId: r.account_id!, environment: r.environment as Environment, recipientId: r.recipient_id!,
      kind: r.kind!, domain: r.domain ?? null, message: { uk: r.message_uk!, en: r.message_en! },
      data: parse<Record<string, unknown>>(r.data!), createdAt: date(r.created_at!),
});
