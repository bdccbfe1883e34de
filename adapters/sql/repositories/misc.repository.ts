import type { Ledger, LedgerEntry } from '../../../core/billing/ports/ledger.port.js';
import type { DomainEvent } from '../../../core/events/event.js';
import type { EventLog } from '../../../core/events/ports/event-log.port.js';
import type { Notice } from '../../../core/notices/notice.js';
import type { NoticeRepository } from '../../../core/notices/ports/notice-repository.port.js';
import type { Environment } from '../../../core/shared/environment.js';
import { date, iso, json, num, parse } from '../rows.js';
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
      id: n.id, account_id: n.accountId, environment: n.environment, recipient_id: n.recipientId, kind: n.kind,
      domain: n.domain, message_uk: n.message.uk, message_en: n.message.en, data: json(n.data), created_at: iso(n.createdAt),
    })));
  }

  async listForPerson(personId: string, environment: Environment | undefined, after: string | undefined, limit: number): Promise<Notice[]> {
    // Newest first: ids are time-ordered, so "after" means "older than".
    const q = this.uow.db()('notices').where({ recipient_id: personId }).orderBy('id', 'desc').limit(limit);
    if (environment) q.andWhere({ environment });
    if (after) q.andWhere('id', '<', after);
    return (await q).map((r: Record<string, string>) => ({
      id: r.id!, accountId: r.account_id!, environment: r.environment as Environment, recipientId: r.recipient_id!,
      kind: r.kind!, domain: r.domain ?? null, message: { uk: r.message_uk!, en: r.message_en! },
      data: parse<Record<string, unknown>>(r.data!), createdAt: date(r.created_at!),
    }));
  }
}

export class SqlLedger implements Ledger {
  constructor(private readonly uow: KnexUnitOfWork) {}

  async append(e: LedgerEntry): Promise<void> {
    await this.uow.db()('ledger_entries').insert({
      id: e.id, account_id: e.accountId, environment: e.environment, amount: e.amount, kind: e.kind, key_id: e.keyId,
      domain: e.domain, description: e.description, created_at: iso(e.createdAt),
    });
  }

  async balance(accountId: string, environment: Environment): Promise<number> {
    const r = await this.uow.db()('ledger_entries').where({ account_id: accountId, environment }).sum({ total: 'amount' }).first();
    return num(r?.total);
  }

  async spentByKey(keyId: string, from: Date, to: Date): Promise<number> {
    // Charges are negative; top-ups are positive but also count as spend through the key (DESIGN).
    const r = await this.uow.db()('ledger_entries')
      .where({ key_id: keyId }).andWhere('created_at', '>=', iso(from)).andWhere('created_at', '<', iso(to))
      .select(this.uow.db().raw('coalesce(sum(abs(amount)), 0) as total')).first();
    return num((r as { total?: unknown } | undefined)?.total);
  }
}
