import type { SandboxClocks } from '../../../core/sandbox/ports/sandbox-clock.port.js';
import { bool, num, json, parse } from '../rows.js';
import type { SimulatedParents } from '../../../core/domains/ports/delegation-resolver.port.js';
import type { KnexUnitOfWork } from '../unit-of-work.js';
import type { SandboxRegistryEntry, SandboxRegistryStore } from '../../../core/sandbox/ports/sandbox-registry.port.js';
import type { DsRecord } from '../../../core/domains/ports/registrar.port.js';

const toRow = (e: SandboxRegistryEntry) => ({
  domain: e.domain,
  registered_until: e.registeredUntil,
  status: json(e.status),
  nameservers: json(e.nameservers),
  transfer_code: e.transferCode,
  registrant: e.registrant ? json(e.registrant) : null,
  transfer: e.transfer ? json(e.transfer) : null,
});

export class SqlSandboxClocks implements SandboxClocks {
  constructor(private readonly uow: KnexUnitOfWork) {}

  async offset(accountId: string): Promise<number> {
    const r = await this.uow.db()('sandbox_clocks').where({ account_id: accountId }).first();
    return num(r?.offset_ms);
  }

  async advance(accountId: string, ms: number): Promise<number> {
    const db = this.uow.db();
    await db('sandbox_clocks').insert({ account_id: accountId, offset_ms: 0 }).onConflict('account_id').ignore();
    await db('sandbox_clocks')
      .where({ account_id: accountId })
      .update({ offset_ms: db.raw('offset_ms + ?', [ms]) });
    return this.offset(accountId);
  }

  async travelled(): Promise<Array<{ accountId: string; offsetMs: number }>> {
    const rows = await this.uow.db()('sandbox_clocks').where('offset_ms', '>', 0);
    return rows.map((r: { account_id: string; offset_ms: unknown }) => ({ accountId: r.account_id, offsetMs: num(r.offset_ms) }));
  }
}

type Row = {
  domain: string;
  registered_until: string;
  status: string;
  nameservers: string;
  transfer_code: string;
  registrant?: string | null;
  transfer?: string | null;
};
const toEntry = (r: Row): SandboxRegistryEntry => ({
  domain: r.domain,
  registeredUntil: r.registered_until,
  status: parse(r.status),
  nameservers: parse(r.nameservers),
  transferCode: r.transfer_code,
  registrant: r.registrant ? parse(r.registrant) : null,
  transfer: r.transfer ? parse(r.transfer) : null,
});

export class SqlSandboxRegistryStore implements SandboxRegistryStore {
  constructor(private readonly uow: KnexUnitOfWork) {}

  async find(domain: string): Promise<SandboxRegistryEntry | null> {
    const r = await this.uow.db()('sandbox_registry').where({ domain }).first();
    return r ? toEntry(r) : null;
  }

  async findMany(domains: readonly string[]): Promise<SandboxRegistryEntry[]> {
    if (domains.length === 0) return [];
    return (
      await this.uow
        .db()('sandbox_registry')
        .whereIn('domain', [...domains])
    ).map(toEntry);
  }

  async put(e: SandboxRegistryEntry): Promise<void> {
    await this.uow.db()('sandbox_registry').insert(toRow(e)).onConflict('domain').merge();
  }

  async putIfAbsent(e: SandboxRegistryEntry): Promise<boolean> {
    const inserted = await this.uow.db()('sandbox_registry').insert(toRow(e)).onConflict('domain').ignore().returning('domain');
    return inserted.length > 0;
  }

  atomically<T>(command: () => Promise<T>): Promise<T> {
    return this.uow.transaction(command);
  }

  async transaction(id: string): Promise<{ op: string; domain: string; result: string } | null> {
    const r = await this.uow.db()('sandbox_registry_transactions').where({ client_transaction_id: id }).first();
    return r ? { op: r.op, domain: r.domain, result: r.result } : null;
  }

  async recordTransaction(id: string, op: string, domain: string, result: string): Promise<void> {
    await this.uow.db()('sandbox_registry_transactions').insert({ client_transaction_id: id, op, domain, result });
  }

  async dsOf(domain: string): Promise<DsRecord[]> {
    const r = await this.uow.db()('sandbox_registry_ds').where({ domain }).first();
    return r ? parse<DsRecord[]>(r.records) : [];
  }

  async putDs(domain: string, records: readonly DsRecord[]): Promise<void> {
    const db = this.uow.db();
    if (records.length === 0) {
      await db('sandbox_registry_ds').where({ domain }).delete();
      return;
    }
    await db('sandbox_registry_ds')
      .insert({ domain, records: json(records) })
      .onConflict('domain')
      .merge();
  }
}

/** The sandbox's simulated parent zones: whether a hosted name is delegated (POST /v1/sandbox/delegations). */
export class SqlSimulatedParents implements SimulatedParents {
  constructor(private readonly uow: KnexUnitOfWork) {}

  async delegated(accountId: string, domain: string): Promise<boolean | null> {
    const r = await this.uow.db()('sandbox_delegations').where({ account_id: accountId, domain }).first();
    return r ? bool(r.delegated) : null;
  }

  async set(accountId: string, domain: string, delegated: boolean): Promise<void> {
    await this.uow
      .db()('sandbox_delegations')
      .insert({ account_id: accountId, domain, delegated })
      .onConflict(['account_id', 'domain'])
      .merge({ delegated });
  }
}
