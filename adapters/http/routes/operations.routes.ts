import type { Route } from '../route.js';
import { domainParam, domainView, i18n, page, pageQuery } from '../schemas.js';
import type { UseCases } from './use-cases.js';

const party = {
  type: 'object',
  properties: { type: { type: 'string', enum: ['key', 'person'] }, key_id: { type: 'string' }, person_id: { type: 'string' } },
};

export const operationView = {
  type: 'object',
  required: ['id', 'kind', 'domain', 'status', 'requested_by', 'activates_at', 'confirmations', 'links'],
  properties: {
    id: { type: 'string' },
    kind: { type: 'string', enum: ['nameservers', 'transfer_unlock', 'labels'] },
    domain: { type: 'string' },
    status: { type: 'string', enum: ['pending', 'active', 'cancelled', 'failed'] },
    environment: { type: 'string', enum: ['test', 'live'] },
    right: { type: 'string' },
    requested_by: party,
    created_at: { type: 'string', format: 'date-time' },
    activates_at: { type: 'string', format: 'date-time', description: 'When it takes effect by itself (24 h after the request, on the sandbox clock for test domains); a second owner\'s confirmation moves it to now.' },
    resolved_at: { type: ['string', 'null'], format: 'date-time' },
    confirmations: { type: 'array', items: { type: 'object', properties: { by: party, at: { type: 'string', format: 'date-time' } } } },
    effect: i18n,
    warnings: { type: 'array', items: { type: 'object', properties: { code: { type: 'string' }, message: i18n } } },
    nameservers: { type: 'array', items: { type: 'string' } },
    labels: { type: 'array', items: { type: 'string' } },
    previous: { type: 'array', items: { type: 'string' } },
    cancelled_by: { ...party, type: ['object', 'null'] },
    failure_reason: { type: ['string', 'null'], description: "The registry's reason when status is failed." },
    links: { type: 'object', properties: { self: { type: 'string' }, confirm: { type: 'string' }, cancel: { type: 'string' }, domain: { type: 'string' } } },
  },
};

const idParam = { type: 'object', required: ['id'], properties: { id: { type: 'string', minLength: 1, maxLength: 60 } } };
const waiting = { 202: { description: 'The operation, pending: it takes effect when a second owner confirms it, or by itself 24 hours later', schema: operationView } };
const REQUEST_ERRORS = ['domain_not_found', 'operation_pending', 'operation_no_change', 'owner_required'] as const;
const DECIDE_ERRORS = ['operation_not_found', 'operation_not_pending', 'owner_required', 'right_missing'] as const;
const location = (id: string) => ({ Location: `/v1/operations/${id}` });

/** Issue 10: class 3 operations — they wait for a second owner or 24 hours (DESIGN "Decisions": class 3). */
export const operationRoutes = (uc: UseCases): Route[] => [
  {
    id: 'setNameservers', method: 'PUT', path: '/v1/domains/{domain}/nameservers', tag: 'Operations', writes: true,
    summary: "Change the domain's nameservers (domain.nameservers, class 3): 202, waits for a second owner or 24 hours",
    description: 'Our zone is kept and its apex NS follows the new delegation. Nameservers outside ours are flagged in `warnings` (`nameservers_outside`): the world stops seeing our zone once the change takes effect.',
    access: { kind: 'key', right: 'domain.nameservers', domainParam: 'domain' },
    params: domainParam,
    body: {
      type: 'object', additionalProperties: false, required: ['nameservers'],
      properties: { nameservers: { type: 'array', minItems: 2, maxItems: 13, items: { type: 'string', minLength: 1, maxLength: 254 } } },
    },
    responses: waiting,
    errors: [...REQUEST_ERRORS, 'nameservers_invalid'],
    handle: async (i) => {
      const op = await uc.requestOperation.execute({ kind: 'key', key: i.key! }, { kind: 'nameservers', domain: i.params.domain!, nameservers: (i.body as { nameservers: string[] }).nameservers });
      return { status: 202, headers: location(op.id), body: op };
    },
  },
  {
    id: 'liftTransferLock', method: 'DELETE', path: '/v1/domains/{domain}/transfer-lock', tag: 'Operations', writes: true,
    summary: 'Lift the transfer lock (domain.lock, class 3): 202, waits for a second owner or 24 hours',
    description: 'Removes clientTransferProhibited when it takes effect. It never yields the transfer code (seed A7): revealing it is a human-only action in the console.',
    access: { kind: 'key', right: 'domain.lock', domainParam: 'domain' },
    params: domainParam,
    responses: waiting,
    errors: [...REQUEST_ERRORS],
    handle: async (i) => {
      const op = await uc.requestOperation.execute({ kind: 'key', key: i.key! }, { kind: 'transfer_unlock', domain: i.params.domain! });
      return { status: 202, headers: location(op.id), body: op };
    },
  },
  {
    id: 'setTransferLock', method: 'PUT', path: '/v1/domains/{domain}/transfer-lock', tag: 'Operations', writes: true, phased: true,
    summary: 'Set the transfer lock again (domain.lock): at once, 200; cancels a pending request to lift it',
    access: { kind: 'key', right: 'domain.lock', domainParam: 'domain' },
    params: domainParam,
    responses: {
      200: {
        description: 'The domain, locked',
        schema: { ...domainView, properties: { ...(domainView.properties as object), cancelled_operation: { ...operationView, type: ['object', 'null'] } } },
      },
    },
    errors: ['domain_not_found', 'registry_failure', 'registrar_capability_missing'],
    handle: async (i) => ({ status: 200, body: await uc.lockTransfer.execute(i.key!, i.params.domain!) }),
  },
  {
    id: 'setLabels', method: 'PUT', path: '/v1/domains/{domain}/labels', tag: 'Operations', writes: true,
    summary: "Replace the domain's labels (domain.labels, class 3: labels widen what label-scoped keys reach): 202, waits",
    access: { kind: 'key', right: 'domain.labels', domainParam: 'domain' },
    params: domainParam,
    body: {
      type: 'object', additionalProperties: false, required: ['labels'],
      properties: { labels: { type: 'array', maxItems: 20, items: { type: 'string', minLength: 1, maxLength: 63 } } },
    },
    responses: waiting,
    errors: [...REQUEST_ERRORS, 'labels_invalid'],
    handle: async (i) => {
      const op = await uc.requestOperation.execute({ kind: 'key', key: i.key! }, { kind: 'labels', domain: i.params.domain!, labels: (i.body as { labels: string[] }).labels });
      return { status: 202, headers: location(op.id), body: op };
    },
  },
  {
    id: 'listOperations', method: 'GET', path: '/v1/operations', tag: 'Operations', writes: false,
    summary: "Class 3 operations on domains the key's policies reach, newest first",
    access: { kind: 'key' },
    query: pageQuery({
      domain: { type: 'string', maxLength: 300 },
      status: { type: 'string', enum: ['pending', 'active', 'cancelled', 'failed'] },
    }),
    responses: { 200: { description: 'A page of operations', schema: page(operationView) } },
    errors: ['cursor_invalid'],
    handle: async (i) => ({
      status: 200,
      body: await uc.listOperations.execute({ kind: 'key', key: i.key! }, {
        ...(i.query.domain !== undefined ? { domain: i.query.domain as string } : {}),
        ...(i.query.status !== undefined ? { status: i.query.status as 'pending' } : {}),
        ...(i.query.cursor !== undefined ? { cursor: i.query.cursor as string } : {}),
        ...(i.query.limit !== undefined ? { limit: i.query.limit as number } : {}),
      }),
    }),
  },
  {
    id: 'getOperation', method: 'GET', path: '/v1/operations/{id}', tag: 'Operations', writes: false,
    summary: 'One operation (on a domain the key reaches)',
    access: { kind: 'key' },
    params: idParam,
    responses: { 200: { description: 'The operation', schema: operationView } },
    errors: ['operation_not_found'],
    handle: async (i) => ({ status: 200, body: await uc.getOperation.execute({ kind: 'key', key: i.key! }, i.params.id!) }),
  },
  {
    id: 'confirmOperation', method: 'POST', path: '/v1/operations/{id}/confirm', tag: 'Operations', writes: true, phased: true,
    summary: "Confirm as a second owner: the operation takes effect at once",
    description: "The key must be issued by an owner other than the person who requested the operation (or issued the requesting key), and hold the operation's right on that domain. A member's key, or the requester's own keys, are refused.",
    access: { kind: 'key' },
    params: idParam,
    responses: { 200: { description: 'The operation after confirming: active (or failed with the registry\'s reason)', schema: operationView } },
    errors: [...DECIDE_ERRORS, 'confirmation_by_requester'],
    handle: async (i) => ({ status: 200, body: await uc.confirmOperation.execute({ kind: 'key', key: i.key! }, i.params.id!) }),
  },
  {
    id: 'cancelOperation', method: 'POST', path: '/v1/operations/{id}/cancel', tag: 'Operations', writes: true,
    summary: "Cancel a pending operation (any owner: a key issued by an owner holding the operation's right)",
    access: { kind: 'key' },
    params: idParam,
    responses: { 200: { description: 'The operation, cancelled', schema: operationView } },
    errors: [...DECIDE_ERRORS],
    handle: async (i) => ({ status: 200, body: await uc.cancelOperation.execute({ kind: 'key', key: i.key! }, i.params.id!) }),
  },
];
