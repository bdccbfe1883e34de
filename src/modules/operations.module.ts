import { Recorder } from '../../core/kernel/recorder.js';
import type { Visibility } from '../../core/kernel/visibility.port.js';
import type { Domain } from '../../core/domains/domain.js';
import { ContainerModule, type Container, type ServiceIdentifier } from 'inversify';
import type { UseCases } from '../../adapters/http/index.js';
import { SqlStore } from '../../adapters/sql/index.js';
import { Authorizer } from '../../core/access/authorize.js';
import { TOKENS as T } from '../tokens.js';
import { OperationAccess } from '../../core/operations/operation-access.js';
import { OperationLog } from '../../core/operations/operation-log.js';
import { RequestOperation } from '../../core/operations/request-operation.use-case.js';
import { ConfirmOperation } from '../../core/operations/confirm-operation.use-case.js';
import { CancelOperation } from '../../core/operations/cancel-operation.use-case.js';
import { GetOperation, ListOperations } from '../../core/operations/read-operations.use-case.js';
import { ActivateOperation } from '../../core/operations/activate-operation.js';
import { ActivateDueOperations } from '../../core/operations/activate-due-operations.use-case.js';
import { LockTransfer } from '../../core/operations/lock-transfer.use-case.js';
import { DeleteHostedDomain } from '../../core/operations/delete-hosted-domain.use-case.js';
import { cancelOnRevocation } from '../../core/operations/cancel-on-revocation.js';
import type { EventSubscriber } from '../../core/kernel/recorder.js';

/** The operations capability's use cases, constructed by hand from their ports (no decorators in core/). */
export const operationsModule = () =>
  new ContainerModule(({ bind, onActivation }) => {
    const s = id(T.Store);
    // A revoked key, or a requester demoted or removed, cancels their pending operations in the transaction
    // that records it. CancelOperation itself records through the Recorder, so the subscriber is resolved on
    // the first event, once the Recorder exists, rather than when the Recorder is built.
    onActivation(T.Recorder, (ctx, recorder) => {
      let subscriber: EventSubscriber | null = null;
      return recorder.subscribe(async (event) => {
        subscriber ??= cancelOnRevocation({ operations: ctx.get(T.Store).operations, cancel: ctx.get(T.CancelOperation) });
        await subscriber(event);
      });
    });
    // class 3 operations
    bind(T.OperationAccess)
      .toResolvedValue(
        (st: SqlStore, a: Authorizer<Domain>, v: Visibility) => new OperationAccess(a, st.accounts, st.domains, v),
        [s, T.Authorizer, T.Visibility],
      )
      .inSingletonScope();
    bind(T.OperationLog)
      .toResolvedValue((st: SqlStore, r, c, rec: Recorder) => new OperationLog(rec, r, c), [s, T.Random, T.Clock, T.Recorder])
      .inSingletonScope();
    bind(T.RequestOperation)
      .toResolvedValue(
        (st: SqlStore, a, l, t, r, e) =>
          new RequestOperation({
            domains: st.domains,
            operations: st.operations,
            access: a,
            log: l,
            uow: st.uow,
            time: t,
            random: r,
            zones: st.zones,
            dnssec: st.dnssec,
            environments: e,
          }),
        [s, T.OperationAccess, T.OperationLog, T.AccountTime, T.Random, T.Environments],
      )
      .inSingletonScope();
    bind(T.ActivateOperation)
      .toResolvedValue(
        (st: SqlStore, e, z, l, t, c, r, config) =>
          new ActivateOperation({
            operations: st.operations,
            domains: st.domains,
            labels: st.operations,
            environments: e,
            zones: st.zones,
            zoneService: z,
            log: l,
            uow: st.uow,
            time: t,
            clock: c,
            random: r,
            dnssec: st.dnssec,
            dnssecTimings: config.dnssec.timings,
          }),
        [s, T.Environments, T.ZoneService, T.OperationLog, T.AccountTime, T.Clock, T.Random, T.Config],
      )
      .inSingletonScope();
    bind(T.ConfirmOperation)
      .toResolvedValue(
        (st: SqlStore, a, x, l, t, c) =>
          new ConfirmOperation({ operations: st.operations, access: a, activation: x, log: l, uow: st.uow, time: t, clock: c }),
        [s, T.OperationAccess, T.ActivateOperation, T.OperationLog, T.AccountTime, T.Clock],
      )
      .inSingletonScope();
    bind(T.CancelOperation)
      .toResolvedValue(
        (st: SqlStore, a, l, t, c) =>
          new CancelOperation({ operations: st.operations, domains: st.domains, access: a, log: l, uow: st.uow, time: t, clock: c }),
        [s, T.OperationAccess, T.OperationLog, T.AccountTime, T.Clock],
      )
      .inSingletonScope();
    bind(T.GetOperation)
      .toResolvedValue((st: SqlStore, a) => new GetOperation(st.operations, a), [s, T.OperationAccess])
      .inSingletonScope();
    bind(T.ListOperations)
      .toResolvedValue((st: SqlStore, v: Visibility) => new ListOperations(st.operations, v), [s, T.Visibility])
      .inSingletonScope();
    bind(T.ActivateDueOperations)
      .toResolvedValue(
        (st: SqlStore, at, x, c, r) =>
          new ActivateDueOperations({ operations: st.operations, accountClock: at, activation: x, clock: c, random: r }),
        [s, T.AccountTime, T.ActivateOperation, T.Clock, T.Random],
      )
      .inSingletonScope();
    bind(T.DeleteHostedDomain)
      .toResolvedValue(
        (st: SqlStore, z, rq, l) => new DeleteHostedDomain({ domains: st.domains, zones: z, request: rq, log: l, uow: st.uow }),
        [s, T.ZoneService, T.RequestOperation, T.OperationLog],
      )
      .inSingletonScope();
    bind(T.LockTransfer)
      .toResolvedValue(
        (st: SqlStore, x, a, e, r, c, rec: Recorder) =>
          new LockTransfer({
            domains: st.domains,
            operations: st.operations,
            cancelOperation: x,
            authorizer: a,
            environments: e,
            events: rec,
            uow: st.uow,
            random: r,
            clock: c,
          }),
        [s, T.CancelOperation, T.Authorizer, T.Environments, T.Random, T.Clock, T.Recorder],
      )
      .inSingletonScope();
  });

const id = <X>(token: ServiceIdentifier<X>) => token;

/** What the routes (and the console) call of this capability. */
export const operationsUseCases = (
  c: Container,
): Pick<
  UseCases,
  'requestOperation' | 'confirmOperation' | 'cancelOperation' | 'getOperation' | 'listOperations' | 'lockTransfer' | 'deleteHostedDomain'
> => ({
  requestOperation: c.get(T.RequestOperation),
  confirmOperation: c.get(T.ConfirmOperation),
  cancelOperation: c.get(T.CancelOperation),
  getOperation: c.get(T.GetOperation),
  listOperations: c.get(T.ListOperations),
  lockTransfer: c.get(T.LockTransfer),
  deleteHostedDomain: c.get(T.DeleteHostedDomain),
});
