import type { ImportOutcome, ZoneImportRecord } from '../../../core/dns/imports/zone-import.js';
import type { ZoneImportRepository } from '../../../core/dns/ports/zone-import.port.js';
import type { Environment } from '../../../core/kernel/environment.js';
import { date, dateOrNull, iso, json, parse } from '../rows.js';
import type { KnexUnitOfWork } from '../unit-of-work.js';

/** A dns_imports row as the record. */
const recordOf = (r: Record<string, any>): ZoneImportRecord => ({
  id: r.id,
  accountId: r.account_id,
  environment: r.environment,
  domain: r.domain,
  keyId: r.key_id,
  source: r.source,
  server: r.server ?? null,
  tsigSealed: r.tsig_sealed ?? null,
  status: r.status,
  recordsRead: Number(r.records_read),
  skipped: parse(r.skipped),
  planId: r.plan_id ?? null,
  error: r.error ? parse(r.error) : null,
  createdAt: date(r.created_at),
  finishedAt: dateOrNull(r.finished_at),
});

/** Zone import jobs (dns_imports). */
export class SqlZoneImports implements ZoneImportRepository {
  constructor(private readonly uow: KnexUnitOfWork) {}

  async insert(r: ZoneImportRecord): Promise<void> {
    await this.uow
      .db()('dns_imports')
      .insert({
        id: r.id,
        account_id: r.accountId,
        environment: r.environment,
        domain: r.domain,
        key_id: r.keyId,
        source: r.source,
        server: r.server,
        tsig_sealed: r.tsigSealed,
        status: r.status,
        records_read: r.recordsRead,
        skipped: json(r.skipped),
        plan_id: r.planId,
        error: r.error ? json(r.error) : null,
        created_at: iso(r.createdAt),
        finished_at: r.finishedAt ? iso(r.finishedAt) : null,
      });
  }

  async find(accountId: string, environment: Environment, id: string): Promise<ZoneImportRecord | null> {
    const r = await this.uow.db()('dns_imports').where({ id, account_id: accountId, environment }).first();
    return r ? recordOf(r) : null;
  }

  async running(accountId: string, environment: Environment, domain: string): Promise<ZoneImportRecord | null> {
    const r = await this.uow
      .db()('dns_imports')
      .where({ account_id: accountId, environment, domain, status: 'running' })
      .orderBy('created_at', 'desc')
      .first();
    return r ? recordOf(r) : null;
  }

  async finish(id: string, o: ImportOutcome): Promise<void> {
    await this.uow
      .db()('dns_imports')
      .where({ id })
      .update({
        status: o.status,
        records_read: o.recordsRead,
        skipped: json(o.skipped),
        plan_id: o.planId,
        error: o.error ? json(o.error) : null,
        finished_at: iso(o.finishedAt),
        tsig_sealed: null,
      });
  }

  async discardSecret(id: string): Promise<void> {
    await this.uow.db()('dns_imports').where({ id }).update({ tsig_sealed: null });
  }
}
