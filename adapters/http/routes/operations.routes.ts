import { route, type Route } from '../route.js';
import { schema } from '../schema-type.js';
import type { ConfirmOperation } from '../../../core/operations/confirm-operation.use-case.js';
import type { CancelOperation } from '../../../core/operations/cancel-operation.use-case.js';
import type { GetOperation, ListOperations } from '../../../core/operations/read-operations.use-case.js';
import { RIGHT_OF } from '../../../core/operations/operation.js';
import { i18n, page, pageQuery } from '../schemas.js';

const party = schema({
  type: 'object',
  properties: { type: { type: 'string', enum: ['key', 'person'] }, key_id: { type: 'string' }, person_id: { type: 'string' } },
});

export const operationView = schema({
  type: 'object',
  required: ['id', 'kind', 'domain', 'status', 'requested_by', 'activates_at', 'confirmations', 'links'],
  properties: {
    id: { type: 'string' },
    kind: {
      type: 'string',
      enum: [
        'nameservers',
        'transfer_unlock',
        'labels',
        'hosted_delete',
        'dnssec_ds_publish',
        'dnssec_disable',
        'dnssec_foreign_key_remove',
        'dnssec_ds_remove',
      ],
    },
    domain: { type: 'string' },
    status: { type: 'string', enum: ['pending', 'active', 'cancelled', 'failed'] },
    environment: { type: 'string', enum: ['test', 'live'] },
    right: { type: 'string' },
    requested_by: party,
    created_at: { type: 'string', format: 'date-time' },
    activates_at: {
      type: 'string',
      format: 'date-time',
      description:
        "When it takes effect by itself (24 h after the request, on the sandbox clock for test domains); a second owner's confirmation moves it to now.",
    },
    resolved_at: { type: ['string', 'null'], format: 'date-time' },
    confirmations: { type: 'array', items: { type: 'object', properties: { by: party, at: { type: 'string', format: 'date-time' } } } },
    effect: i18n,
    warnings: { type: 'array', items: { type: 'object', properties: { code: { type: 'string' }, message: i18n } } },
    nameservers: { type: 'array', items: { type: 'string' } },
    labels: { type: 'array', items: { type: 'string' } },
    previous: { type: 'array', items: { type: 'string' } },
    ds: { type: 'array', items: { type: 'string' }, description: 'dnssec_ds_publish / dnssec_disable: the DS records.' },
    dnskey: { type: 'array', items: { type: 'string' }, description: "dnssec_foreign_key_remove: the other operator's DNSKEY." },
    cancelled_by: { ...party, type: ['object', 'null'] },
    failure_reason: {
      type: ['string', 'null'],
      description:
        'Why it failed (status failed): "<code>: <text>". The registry\'s refusal, or ours when the state of the zone forbade it as it was to take effect (dnssec_ds_stale, dnssec_foreign_keys_present, registrar_capability_missing; the registry was not asked).',
    },
    links: {
      type: 'object',
      properties: { self: { type: 'string' }, confirm: { type: 'string' }, cancel: { type: 'string' }, domain: { type: 'string' } },
    },
  },
});

/** The answer of every route that requests a class 3 operation: 202 with the operation, waiting. */
export const pendingOperation = schema({
  description: 'The operation, pending: it takes effect when a second owner confirms it, or by itself 24 hours later',
  schema: operationView,
});

const idParam = schema({ type: 'object', required: ['id'], properties: { id: { type: 'string', minLength: 1, maxLength: 60 } } });
/** Deciding on an operation needs its kind's right on its domain (the use case reads both from the operation). */
const OPERATION_RIGHTS = [...new Set(Object.values(RIGHT_OF))];
const DECIDE_ERRORS = ['operation_not_found', 'operation_not_pending', 'owner_required', 'right_missing'] as const;

/**
 * Class 3 operations (/v1/operations): they wait for a second owner or 24 hours (DESIGN "Decisions":
 * class 3). Requesting one is a route of its domain (PUT /v1/domains/{domain}/nameservers…).
 */
export interface OperationsUseCases {
  readonly listOperations: Pick<ListOperations, 'execute'>;
  readonly getOperation: Pick<GetOperation, 'execute'>;
  readonly confirmOperation: Pick<ConfirmOperation, 'execute'>;
  readonly cancelOperation: Pick<CancelOperation, 'execute'>;
}

export const operationRoutes = (uc: OperationsUseCases): Route[] => [
  route({
    id: 'listOperations',
    method: 'GET',
    path: '/v1/operations',
    tag: 'Operations',
    writes: false,
    summary: "Class 3 operations on domains the key's policies reach, newest first",
    access: { kind: 'key', anyKey: true },
    query: pageQuery({
      domain: { type: 'string', maxLength: 300 },
      status: { type: 'string', enum: ['pending', 'active', 'cancelled', 'failed'] },
    }),
    responses: { 200: { description: 'A page of operations', schema: page(operationView) } },
    errors: ['cursor_invalid'],
    handle: async (i) => ({
      status: 200,
      body: await uc.listOperations.execute(
        { kind: 'key', key: i.key },
        {
          ...(i.query.domain !== undefined ? { domain: i.query.domain } : {}),
          ...(i.query.status !== undefined ? { status: i.query.status } : {}),
          ...(i.query.cursor !== undefined ? { cursor: i.query.cursor } : {}),
          ...(i.query.limit !== undefined ? { limit: i.query.limit } : {}),
        },
      ),
    }),
  }),
  route({
    id: 'getOperation',
    method: 'GET',
    path: '/v1/operations/{id}',
    tag: 'Operations',
    writes: false,
    summary: 'One operation (on a domain the key reaches)',
    access: { kind: 'key', anyKey: true },
    params: idParam,
    responses: { 200: { description: 'The operation', schema: operationView } },
    errors: ['operation_not_found'],
    handle: async (i) => ({ status: 200, body: await uc.getOperation.execute({ kind: 'key', key: i.key }, i.params.id) }),
  }),
  route({
    id: 'confirmOperation',
    method: 'POST',
    path: '/v1/operations/{id}/confirm',
    tag: 'Operations',
    writes: true,
    phased: true,
    summary: 'Confirm as a second owner: the operation takes effect at once',
    description:
      "The key must be issued by an owner other than the person who requested the operation (or issued the requesting key), and hold the operation's right on that domain. A member's key, or the requester's own keys, are refused.",
    access: { kind: 'key', rightsOfRecord: OPERATION_RIGHTS },
    params: idParam,
    responses: {
      200: { description: 'The operation after confirming: active (or failed, with its failure_reason)', schema: operationView },
    },
    errors: [...DECIDE_ERRORS, 'confirmation_by_requester'],
    handle: async (i) => ({ status: 200, body: await uc.confirmOperation.execute({ kind: 'key', key: i.key }, i.params.id) }),
  }),
  route({
    id: 'cancelOperation',
    method: 'POST',
    path: '/v1/operations/{id}/cancel',
    tag: 'Operations',
    writes: true,
    summary: "Cancel a pending operation (any owner: a key issued by an owner holding the operation's right)",
    access: { kind: 'key', rightsOfRecord: OPERATION_RIGHTS },
    params: idParam,
    responses: { 200: { description: 'The operation, cancelled', schema: operationView } },
    errors: [...DECIDE_ERRORS],
    handle: async (i) => ({ status: 200, body: await uc.cancelOperation.execute({ kind: 'key', key: i.key }, i.params.id) }),
  }),
];
