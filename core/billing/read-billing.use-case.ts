import type { ApiKey } from '../kernel/caller.js';
import { clampLimit, decodeCursor, encodeCursor, type Page } from '../kernel/pagination.js';
import { uah, type Money } from '../kernel/money.js';
import type { Ledger, LedgerEntry } from './ports/ledger.port.js';
import type { Accounting } from './accounting.js';

export interface TransactionView {
  id: string;
  amount: Money;
  kind: LedgerEntry['kind'];
  status: LedgerEntry['status'];
  domain: string | null;
  key_id: string | null;
  description: string;
  created_at: string;
}

export const viewTransaction = (e: LedgerEntry): TransactionView => ({
  id: e.id,
  amount: uah(e.amount),
  kind: e.kind,
  status: e.status,
  domain: e.domain,
  key_id: e.keyId,
  description: e.description,
  created_at: e.createdAt.toISOString(),
});

/** GET /v1/billing/balance and /v1/billing/transactions (billing.read). */
export class ReadBilling {
  constructor(
    private readonly accounting: Accounting,
    private readonly ledger: Ledger,
  ) {}

  async balance(key: ApiKey): Promise<{ balance: Money }> {
    return { balance: uah(await this.accounting.balance(key.accountId, key.environment)) };
  }

  async transactions(key: ApiKey, opts: { cursor?: string; limit?: number }): Promise<Page<TransactionView>> {
    const limit = clampLimit(opts.limit);
    const after = decodeCursor(opts.cursor);
    const rows = await this.ledger.list({
      accountId: key.accountId,
      environment: key.environment,
      ...(after ? { after } : {}),
      limit: limit + 1,
    });
    const page = rows.slice(0, limit);
    return { data: page.map(viewTransaction), next_cursor: rows.length > limit ? encodeCursor(page[page.length - 1]!.id) : null };
  }
}
