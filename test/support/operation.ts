import type { Operation } from '../../core/operations/operation.js';

/** A stored class 3 operation for unit tests of the operations' rules: a pending transfer_unlock of x.ua requested by person p-1; override what a test is about. */
export const operationFixture = (over: Partial<Operation> = {}): Operation => ({
  id: 'op-1',
  accountId: 'acc-1',
  environment: 'test',
  domainId: 'd-1',
  domain: 'x.ua',
  kind: 'transfer_unlock',
  status: 'pending',
  params: {},
  warnings: [],
  requestedBy: { type: 'person', personId: 'p-1' },
  confirmations: [],
  createdAt: new Date('2026-11-20T10:00:00Z'),
  activatesAt: new Date('2026-11-21T10:00:00Z'),
  resolvedAt: null,
  cancelledBy: null,
  failureReason: null,
  ...over,
});
