import type { Authorizer } from '../access/authorize.js';
import type { ApiKey } from '../kernel/caller.js';
import { RIGHT_NAMES } from '../kernel/rights.js';
import type { Visibility } from '../kernel/visibility.port.js';
import type { AccountRepository } from '../accounts/ports/account-repository.port.js';
import type { DomainRepository } from '../domains/ports/domain-repository.port.js';
import { DomainError } from '../kernel/errors.js';
import { personOf, type OperationActor } from '../kernel/actor.js';
import { RIGHT_OF, type Operation, type OperationKind } from './operation.js';

/**
 * Who may request, see, confirm and cancel an operation (DESIGN "Decisions": class 3). One place for
 * the rules, used by the API (keys) and the console (people) alike.
 */
export class OperationAccess {
  constructor(
    private readonly authorizer: Pick<Authorizer, 'check'>,
    private readonly accounts: Pick<AccountRepository, 'findPerson'>,
    private readonly domains: Pick<DomainRepository, 'find'>,
    private readonly visibility: Pick<Visibility, 'sees'>,
  ) {}

  /** A key needs the kind's right on the domain; a person must be an owner (members: keys of class ≤ 1 only). */
  async mayRequest(actor: OperationActor, kind: OperationKind, domain: string): Promise<void> {
    if (actor.kind === 'key') {
      await this.authorizer.check(actor.key, RIGHT_OF[kind], domain);
      return;
    }
    if (actor.role !== 'owner') throw new DomainError('owner_required', { action: 'request', right: RIGHT_OF[kind] });
  }

  /** Whether a key's policies reach the domain at all (any right): lists and reads show only those. */
  async reaches(key: ApiKey, op: Operation): Promise<boolean> {
    if (key.environment !== op.environment) return false;
    // Named outright: no need to read the domain's labels.
    if (this.visibility.sees(key, RIGHT_NAMES, { name: op.domain, labels: [] })) return true;
    const d = await this.domains.find(op.accountId, op.environment, op.domain);
    return d !== null && this.visibility.sees(key, RIGHT_NAMES, { name: op.domain, labels: d.labels });
  }

  /** The operation as this actor may see it, or operation_not_found (never "exists but not yours"). */
  visible = async (actor: OperationActor, op: Operation | null, id: string): Promise<Operation> => {
    if (
      !op ||
      (actor.kind === 'key'
        ? !(await this.reaches(actor.key, op))
        : actor.environment !== undefined && actor.environment !== op.environment)
    ) {
      throw new DomainError('operation_not_found', { operation_id: id });
    }
    return op;
  };

  /**
   * Confirm: a second owner — not the person who requested (for a key: who issued it) — with, through a
   * key, the operation's right on that domain. Cancel: any owner (a key: issued by an owner, holding the right).
   */
  async mayDecide(actor: OperationActor, op: Operation, action: 'confirm' | 'cancel'): Promise<void> {
    const right = RIGHT_OF[op.kind];
    if (actor.kind === 'key') {
      // The issuer first: a member's key is refused as such, whatever rights it carries.
      const issuer = await this.accounts.findPerson(actor.key.createdBy);
      if (!issuer || issuer.accountId !== op.accountId || issuer.role !== 'owner') {
        throw new DomainError('owner_required', { action, right, key_id: actor.key.id });
      }
      await this.authorizer.check(actor.key, right, op.domain);
    } else if (actor.role !== 'owner') {
      throw new DomainError('owner_required', { action, right });
    }
    if (action === 'confirm' && personOf(actor) === op.requestedBy.personId) {
      throw new DomainError('confirmation_by_requester', { operation_id: op.id, person_id: op.requestedBy.personId });
    }
  }
}
