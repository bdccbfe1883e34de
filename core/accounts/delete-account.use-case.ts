import type { RecordingDeps } from '../kernel/recording-deps.js';
import { formatUah } from '../kernel/money.js';
import { DomainError } from '../kernel/errors.js';
import { requireOwner, requireRecentSignIn } from '../kernel/human-guards.js';
import type { HumanContext } from './sign-in.use-case.js';
import type { PeopleRepository } from './ports/people.port.js';
import type { Balances } from './ports/balances.port.js';

/** What DeleteAccount is built from (one object, named, instead of positions). */
export interface DeleteAccountDeps extends RecordingDeps {
  readonly people: PeopleRepository;
  readonly accounting: Balances;
}

/**
 * Delete the account — a human-only action (seed A6): an owner, signed in again. Refused while the account
 * holds any domain or a non-zero balance in either environment (the error says which). Deleting ends every
 * session and key at once; the records stay for the ledger and the event log.
 */
export class DeleteAccount {
  constructor(private readonly deps: DeleteAccountDeps) {}

  async execute(human: HumanContext): Promise<{ deleted: true }> {
    requireOwner(human.actor, 'delete_account');
    const now = this.deps.clock.now();
    requireRecentSignIn(human.session, now);
    const accountId = human.actor.accountId;
    await this.deps.uow.transaction(async () => {
      await this.deps.people.lockAccount(accountId);
      const domains = await this.deps.people.countDomains(accountId);
      const live = await this.deps.accounting.balance(accountId, 'live');
      const test = await this.deps.accounting.balance(accountId, 'test');
      if (domains > 0 || live !== 0 || test !== 0) {
        throw new DomainError('account_not_empty', { domains, balance_live: formatUah(live), balance_test: formatUah(test) });
      }
      await this.deps.people.markAccountDeleted(accountId, now);
      await this.deps.people.revokeSessions({ accountId }, now);
      const keys = await this.deps.people.revokeKeys({ accountId }, now, human.person.id);
      await this.deps.events.record(
        'account.deleted',
        { accountId, environment: null, subject: `account:${accountId}`, actor: `person:${human.person.id}`, occurredAt: now },
        { keys_revoked: keys.length },
      );
    });
    return { deleted: true };
  }
}
