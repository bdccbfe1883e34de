import type { DomainRepository } from '../domains/ports/domain-repository.port.js';
import type { AccountClock } from '../kernel/account-clock.port.js';
import type { Clock } from '../kernel/clock.port.js';
import { DomainError } from '../kernel/errors.js';
import type { UnitOfWork } from '../kernel/unit-of-work.port.js';
import { accountOf, type OperationActor } from '../kernel/actor.js';
import { partyOf } from './operation.js';
import type { OperationAccess } from './operation-access.js';
import type { CancelReason, OperationLog } from './operation-log.js';
import { partyLabel, viewOperation, withoutPendingUpdate, type Operation, type OperationView, type Party } from './operation.js';
import type { OperationRepository } from './ports/operation-repository.port.js';

/** What CancelOperation is built from (one object, named, instead of positions). */
export interface CancelOperationDeps {
  readonly operations: OperationRepository;
  readonly domains: DomainRepository;
  readonly access: OperationAccess;
  readonly log: OperationLog;
  readonly uow: UnitOfWork;
  readonly time: AccountClock;
  readonly clock: Clock;
}

/**
 * POST /v1/operations/{id}/cancel, and the console's cancel button: any owner (through a key: one
 * issued by an owner and holding the operation's right) cancels a pending operation before it activates.
 * An operation being applied at this moment (leased) cannot be cancelled any more: operation_not_pending.
 */
export class CancelOperation {
  constructor(private readonly deps: CancelOperationDeps) {}

  async execute(actor: OperationActor, operationId: string): Promise<OperationView> {
    const found = await this.deps.access.visible(actor, await this.deps.operations.find(accountOf(actor), operationId), operationId);
    await this.deps.access.mayDecide(actor, found, 'cancel');
    return viewOperation(await this.cancel(found, actor));
  }

  /** Cancels inside the caller's transaction (also used when a key sets the transfer lock again). */
  async cancel(found: Operation, actor: OperationActor): Promise<Operation> {
    const by = partyOf(actor);
    const next = await this.resolve(found, by, partyLabel(by));
    if ('skipped' in next) throw new DomainError('operation_not_pending', { operation_id: found.id, status: next.skipped });
    return next;
  }

  /**
   * The requester lost the power to ask for it (their key was revoked, they were demoted or removed):
   * cancelled, not held for a fresh confirmation — a request whose author no longer holds the right has
   * no author to confirm it again, and any owner who still wants the change can ask for it anew. `by` is
   * who caused it (the owner who revoked, demoted or removed). Runs in the caller's transaction and never
   * fails it: an operation already resolved is skipped, and one being applied at this very moment (its
   * 24 hours or a second owner's confirmation came first, under a lease) is left to finish.
   */
  async cancelForRevocation(found: Operation, by: Party, actor: string, reason: CancelReason): Promise<Operation | null> {
    const next = await this.resolve(found, by, actor, reason);
    return 'skipped' in next ? null : next;
  }

  private async resolve(found: Operation, by: Party, actor: string, reason?: CancelReason): Promise<Operation | { skipped: string }> {
    return this.deps.uow.transaction(async () => {
      const op = (await this.deps.operations.find(found.accountId, found.id))!;
      if (op.status !== 'pending') return { skipped: op.status };
      const now = await this.deps.time.now(op.accountId, op.environment);
      const next: Operation = { ...op, status: 'cancelled', resolvedAt: now, cancelledBy: by };
      // Only while nobody is applying it: the conditional update refuses a leased row.
      if (!(await this.deps.operations.update(next, { unleasedAt: this.deps.clock.now() }))) return { skipped: 'activating' };
      const domain = await this.deps.domains.find(op.accountId, op.environment, op.domain);
      if (domain) await this.deps.domains.update({ ...domain, status: withoutPendingUpdate(domain.status) });
      await this.deps.log.record(next, 'cancelled', actor, reason);
      return next;
    });
  }
}
