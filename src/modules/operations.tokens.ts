import { token } from './token.js';
import type { OperationAccess } from '../../core/operations/operation-access.js';
import type { OperationLog } from '../../core/operations/operation-log.js';
import type { RequestOperation } from '../../core/operations/request-operation.use-case.js';
import type { ConfirmOperation } from '../../core/operations/confirm-operation.use-case.js';
import type { CancelOperation } from '../../core/operations/cancel-operation.use-case.js';
import type { GetOperation, ListOperations } from '../../core/operations/read-operations.use-case.js';
import type { ActivateOperation } from '../../core/operations/activate-operation.js';
import type { ActivateDueOperations } from '../../core/operations/activate-due-operations.use-case.js';
import type { LockTransfer } from '../../core/operations/lock-transfer.use-case.js';

/** Injection tokens of the operations capability (src/ binds them by explicit token; core/ has no decorators). */
import type { DeleteHostedDomain } from '../../core/operations/delete-hosted-domain.use-case.js';

export const OPERATIONS_TOKENS = {
  OperationAccess: token<OperationAccess>('OperationAccess'),
  OperationLog: token<OperationLog>('OperationLog'),
  RequestOperation: token<RequestOperation>('RequestOperation'),
  ConfirmOperation: token<ConfirmOperation>('ConfirmOperation'),
  CancelOperation: token<CancelOperation>('CancelOperation'),
  GetOperation: token<GetOperation>('GetOperation'),
  ListOperations: token<ListOperations>('ListOperations'),
  ActivateOperation: token<ActivateOperation>('ActivateOperation'),
  ActivateDueOperations: token<ActivateDueOperations>('ActivateDueOperations'),
  LockTransfer: token<LockTransfer>('LockTransfer'),
  DeleteHostedDomain: token<DeleteHostedDomain>('DeleteHostedDomain'),
} as const;
