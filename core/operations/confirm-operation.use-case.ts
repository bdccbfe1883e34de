import type { AccountClock } from '../kernel/account-clock.port.js';
import type { Clock } from '../kernel/clock.port.js';
import { DomainError } from '../kernel/errors.js';
import type { UnitOfWork } from '../kernel/unit-of-work.port.js';
import { accountOf, personOf, type OperationActor } from '../kernel/actor.js';
import { partyOf } from './operation.js';
import type { ActivateOperation } from './activate-operation.js';
import type { OperationAccess } from './operation-access.js';
import type { OperationLog } from './operation-log.js';
import { partyLabel, viewOperation, type Operation, type OperationView } from './operation.js';
import type { OperationRepository } from './ports/operation-repository.port.js';

/** What ConfirmOperation is built from (one object, named, instead of positions). */
export interface ConfirmOperationDeps {
  readonly operations: OperationRepository;
  readonly access: OperationAccess;
  readonly activation: Pick<ActivateOperation, 'activate'>;
  readonly log: OperationLog;
  readonly uow: UnitOfWork;
  readonly time: AccountClock;
  readonly clock: Clock;
}

/**
 * POST /v1/operations/{id}/confirm, and the console's confirm button: a second owner confirms, and the
 * operation activates at once. The confirmation is committed first (its event and notices with it) and
 * `activates_at` moves to now, so if applying is interrupted the worker finishes it on its next pass.
 * Confirming again by the same person is answered with the operation as it stands (no second event).
 */
export class ConfirmOperation {
  constructor(private readonly deps: ConfirmOperationDeps) {}

  async execute(actor: OperationActor, operationId: string): Promise<OperationView> {
    const found = await this.deps.access.visible(actor, await this.deps.operations.find(accountOf(actor), operationId), operationId);
    await this.deps.access.mayDecide(actor, found, 'confirm');
    const confirmed = await this.deps.uow.transaction(async () => {
      const op = (await this.deps.operations.find(found.accountId, found.id))!;
      if (op.status !== 'pending') throw new DomainError('operation_not_pending', { operation_id: op.id, status: op.status });
      if (op.confirmations.some((c) => c.by.personId === personOf(actor))) return op;
      const now = await this.deps.time.now(op.accountId, op.environment);
      const next: Operation = {
        ...op,
        confirmations: [...op.confirmations, { by: partyOf(actor), at: now }],
        activatesAt: now < op.activatesAt ? now : op.activatesAt,
      };
      if (!(await this.deps.operations.update(next, { unleasedAt: this.deps.clock.now() }))) {
        const again = (await this.deps.operations.find(op.accountId, op.id))!;
        if (again.status !== 'pending') throw new DomainError('operation_not_pending', { operation_id: op.id, status: again.status });
        return null; // being applied right now (its activation time came): nothing left to confirm
      }
      await this.deps.log.record(next, 'confirmed', partyLabel(partyOf(actor)));
      return next;
    });
    // null / 'busy': a worker holds it right now and finishes it; the caller sees it as it stands.
    if (confirmed) await this.deps.activation.activate(confirmed, partyLabel(partyOf(actor)));
    return viewOperation((await this.deps.operations.find(found.accountId, found.id))!);
  }
}
