import type { Clock } from '../shared/clock.port.js';
import type { Environment } from '../shared/environment.js';
import type { Random } from '../shared/random.port.js';
import type { AccountRepository } from '../accounts/ports/account-repository.port.js';
import type { Notice } from './notice.js';
import type { NoticeRepository } from './ports/notice-repository.port.js';
import type { NoticeOutbox } from './ports/notice-outbox.port.js';

/** Sends every owner of an account the same notice (seed A5). Runs inside the caller's transaction. */
export class NotifyOwners {
  constructor(
    private readonly accounts: AccountRepository,
    private readonly notices: NoticeRepository,
    private readonly outbox: NoticeOutbox,
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
    const groupId = this.random.id();
    const rows: Notice[] = owners.map((o) => ({
      id: this.random.id(),
      groupId,
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
    // DESIGN: test-environment notices are in-app only; live ones are also e-mailed, through the
    // outbox written in this same transaction (a mail server that is down delays them, loses none).
    if (input.environment === 'live') {
      await this.outbox.enqueue(rows.map((n, i) => ({
        id: this.random.id(),
        noticeId: n.id,
        recipientId: n.recipientId,
        address: owners[i]!.email,
        subject: `Domivka: ${n.message.uk.split(/[.:]/)[0]!.slice(0, 80)} / ${n.message.en.split(/[.:]/)[0]!.slice(0, 80)}`,
        body: `${n.message.uk}\n\n${n.message.en}\n\n— Domivka (${at.toISOString()})\n`,
        attempts: 0,
        createdAt: at,
      })));
    }
    return rows.length;
  }
}
