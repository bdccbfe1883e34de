import type { EventLog } from '../kernel/event-log.port.js';
import type { Clock } from '../kernel/clock.port.js';
import { formatUah } from '../kernel/money.js';
import { DomainError } from '../kernel/errors.js';
import type { Random } from '../kernel/random.port.js';
import type { UnitOfWork } from '../kernel/unit-of-work.port.js';
import { requireOwner, requireRecentSignIn } from '../kernel/human-guards.js';
import type { HumanContext } from './sign-in.use-case.js';
import type { PeopleRepository } from './ports/people.port.js';
import type { Balances } from './ports/balances.port.js';

/**
 * Delete the account — a human-only action (seed A6): an owner, signed in again. Refused while the account
 * holds any domain or a non-zero balance in either environment (the error says which). Deleting ends every
 * session and key at once; the records stay for the ledger and the event log.
 */
export class DeleteAccount {
  constructor(
    private readonly people: PeopleRepository,
    private readonly accounting: Balances,
    private readonly events: EventLog,
    private readonly uow: UnitOfWork,
    private readonly random: Random,
    private readonly clock: Clock,
  ) {}

  async execute(human: HumanContext): Promise<{ deleted: true }> {
    requireOwner(human.actor, 'delete_account');
    const now = this.clock.now();
    requireRecentSignIn(human.session, now);
    const accountId = human.actor.accountId;
    await this.uow.transaction(async () => {
      await this.people.lockAccount(accountId);
      const domains = await this.people.countDomains(accountId);
      const live = await this.accounting.balance(accountId, 'live');
      const test = await this.accounting.balance(accountId, 'test');
      if (domains > 0 || live !== 0 || test !== 0) {
        throw new DomainError('account_not_empty', { domains, balance_live: formatUah(live), balance_test: formatUah(test) });
      }
      await this.people.markAccountDeleted(accountId, now);
      await this.people.revokeSessions({ accountId }, now);
      const keys = await this.people.revokeKeys({ accountId }, now, human.person.id);
      await this.events.append({
        id: this.random.id(), accountId, environment: null, type: 'account.deleted', subject: `account:${accountId}`,
        actor: `person:${human.person.id}`, occurredAt: now, data: { keys_revoked: keys },
      });
    });
    return { deleted: true };
  }
}
