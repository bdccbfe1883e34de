import type { SandboxClocks } from '../../../core/sandbox/ports/sandbox-clock.port.js';
import { num } from '../rows.js';
import type { KnexUnitOfWork } from '../unit-of-work.js';

export class SqlSandboxClocks implements SandboxClocks {
  constructor(private readonly uow: KnexUnitOfWork) {}

  async offset(accountId: string): Promise<number> {
    const r = await this.uow.db()('sandbox_clocks').where({ account_id: accountId }).first();
    return num(r?.offset_ms);
  }

  async advance(accountId: string, ms: number): Promise<number> {
    const db = this.uow.db();
    await db('sandbox_clocks').insert({ account_id: accountId, offset_ms: 0 }).onConflict('account_id').ignore();
    await db('sandbox_clocks').where({ account_id: accountId }).update({ offset_ms: db.raw('offset_ms + ?', [ms]) });
    return this.offset(accountId);
  }

  async travelled(): Promise<Array<{ accountId: string; offsetMs: number }>> {
    const rows = await this.uow.db()('sandbox_clocks').where('offset_ms', '>', 0);
    return rows.map((r: { account_id: string; offset_ms: unknown }) => ({ accountId: r.account_id, offsetMs: num(r.offset_ms) }));
  }
}
