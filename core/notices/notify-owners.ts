import type { Clock } from '../shared/clock.port.js';
import type { Environment } from '../shared/environment.js';
import type { Random } from '../shared/random.port.js';
import type { AccountRepository } from '../accounts/ports/account-repository.port.js';
import type { Notice } from './notice.js';
import type { NoticeRepository } from './ports/notice-repository.port.js';

/** Sends every owner of an account the same notice (seed A5). Runs inside the caller's transaction. */
export class NotifyOwners {
  constructor(
    private readonly accounts: AccountRepository,
    private readonly notices: NoticeRepository,
    private readonly clock: Clock,
    private readonly random: Random,
  ) {}

  async send(input: {
    accountId: string;
    environment: Environment;
    kind: string;
    domain?: string | null;
    message: { uk: string; en: string };
    data: Record<string, unknown>;
  }): Promise<number> {
    const owners = await this.accounts.owners(input.accountId);
    const at = this.clock.now();
    const rows: Notice[] = owners.map((o) => ({
      id: this.random.id(),
      accountId: input.accountId,
      environment: input.environment,
      recipientId: o.id,
      kind: input.kind,
      domain: input.domain ?? null,
      message: input.message,
      data: input.data,
      createdAt: at,
    }));
    await this.notices.insert(rows);
    return rows.length;
  }
}
