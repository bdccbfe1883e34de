import type { TypedEvent } from '../kernel/events.js';
import type { EventSubscriber } from '../kernel/recorder.js';
import type { CancelOperation } from './cancel-operation.use-case.js';
import type { CancelReason } from './operation-log.js';
import type { Party } from './operation.js';
import type { OperationRepository } from './ports/operation-repository.port.js';

/** Whose pending operations an event ends, and why; null when it ends none. */
const endedBy = (e: TypedEvent): { by: { keyId: string } | { personId: string }; reason: CancelReason } | null => {
  switch (e.type) {
    case 'key.revoked':
      return { by: { keyId: e.data.key_id }, reason: 'key_revoked' };
    case 'person.role_changed':
      // Only an owner may request class 3 operations (in the console, or through a key of class 3).
      return e.data.to === 'member' ? { by: { personId: e.subject.slice('person:'.length) }, reason: 'requester_demoted' } : null;
    case 'person.removed':
      return { by: { personId: e.subject.slice('person:'.length) }, reason: 'requester_removed' };
    default:
      return null;
  }
};

/**
 * Subscribed to the Recorder: when a key is revoked, or the person who requested an operation is demoted
 * or removed, their pending class 3 operations are cancelled in the same transaction (with the
 * `operation.cancelled` event and the owners' notice), so none activates 24 hours later on an authority
 * that no longer exists. The cancelling party is whoever made the change (an owner, or the person leaving).
 */
export const cancelOnRevocation =
  (deps: {
    operations: Pick<OperationRepository, 'pendingRequestedBy'>;
    cancel: Pick<CancelOperation, 'cancelForRevocation'>;
  }): EventSubscriber =>
  async (event) => {
    const e = event as TypedEvent;
    const ended = endedBy(e);
    if (!ended) return;
    const pending = await deps.operations.pendingRequestedBy(e.accountId, ended.by);
    const by: Party = { type: 'person', personId: e.actor.startsWith('person:') ? e.actor.slice('person:'.length) : e.actor };
    for (const op of pending) await deps.cancel.cancelForRevocation(op, by, e.actor, ended.reason);
  };
