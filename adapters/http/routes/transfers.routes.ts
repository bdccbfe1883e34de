import type { CancelTransfer } from '../../../core/domains/cancel-transfer.use-case.js';
import type { ReadTransfers } from '../../../core/domains/read-transfers.use-case.js';
import type { RequestTransfer } from '../../../core/domains/request-transfer.use-case.js';
import type { KeepZoneAfterTransferOut, RejectTransferOut } from '../../../core/domains/transfer-out.use-case.js';
import type { SimulateTransferOut } from '../../../core/sandbox/simulate-transfer-out.use-case.js';
import { route, type Route } from '../route.js';
import { schema } from '../schema-type.js';
import { domainParam, money, page, pageQuery } from '../schemas.js';
import { envBody, TAG } from './human-only.js';

/**
 * Transfers between registrars (/v1/domains/{domain}/transfers, …/transfer-out): a name held elsewhere
 * is asked for and paid like a registration (domain.register, class 2); a transfer out is rejected by a
 * domain.lock key or an owner (the safe direction); the sandbox simulates one out.
 */
export interface TransfersUseCases {
  readonly requestTransfer: Pick<RequestTransfer, 'execute'>;
  readonly readTransfers: Pick<ReadTransfers, 'list' | 'listAccount' | 'listForPerson' | 'get'>;
  readonly cancelTransfer: Pick<CancelTransfer, 'execute'>;
  readonly rejectTransferOut: Pick<RejectTransferOut, 'execute'>;
  readonly keepZoneAfterTransferOut: Pick<KeepZoneAfterTransferOut, 'execute'>;
  readonly simulateTransferOut: Pick<SimulateTransferOut, 'execute'>;
}

export const transferView = schema({
  type: 'object',
  required: ['id', 'domain', 'direction', 'status'],
  properties: {
    id: { type: 'string' },
    domain: { type: 'string' },
    direction: { type: 'string', enum: ['in', 'out'] },
    status: { type: 'string', enum: ['pending', 'completed', 'cancelled', 'rejected', 'failed'] },
    years: { type: ['integer', 'null'] },
    amount: { ...money, type: ['object', 'null'], description: 'Reserved at the request; charged on completion, returned otherwise.' },
    ledger_entry_id: { type: ['string', 'null'] },
    registry_status: { type: ['string', 'null'], description: 'The registry trStatus (RFC 5731 §3.2.4).' },
    action_at: { type: ['string', 'null'], format: 'date-time', description: 'When the losing side must have answered.' },
    expires_at: { type: ['string', 'null'], format: 'date' },
    error: { type: ['string', 'null'] },
    requested_by: { type: 'string' },
    created_at: { type: 'string', format: 'date-time' },
    finished_at: { type: ['string', 'null'], format: 'date-time' },
    keep_zone: {
      type: 'boolean',
      description: 'Transfers out only: the zone stays served as a hosted domain when the name leaves (an owner asked).',
    },
    warnings: {
      type: 'array',
      description:
        "The request's answer only: what would go wrong at completion, with the safe order (dnssec_ds_at_parent: the registry holds a DS none of our keys match).",
      items: {
        type: 'object',
        required: ['code', 'message'],
        properties: {
          code: { type: 'string' },
          message: { type: 'object', required: ['uk', 'en'], properties: { uk: { type: 'string' }, en: { type: 'string' } } },
        },
      },
    },
  },
});

const transferParams = schema({
  type: 'object',
  required: ['domain', 'id'],
  properties: { ...domainParam.properties, id: { type: 'string', minLength: 1, maxLength: 40 } },
});

const REQUEST_ERRORS = [
  'transfer_auth_code_invalid',
  'transfer_domain_locked',
  'transfer_not_transferable',
  'transfer_already_pending',
  'domain_already_yours',
  'domain_not_found',
  'tld_not_supported',
  'insufficient_funds',
  'spend_limit_exceeded',
  'registrar_capability_missing',
  'domain_invalid',
  'domain_reserved',
] as const;

export const transferRoutes = (uc: TransfersUseCases): Route[] => [
  route({
    id: 'requestTransfer',
    method: 'POST',
    path: '/v1/domains/{domain}/transfers',
    tag: 'Domains',
    writes: true,
    secretFields: ['auth_code'],
    phased: true,
    summary: 'Transfer a domain in from another registrar (domain.register, class 2): years × the renewal price reserved',
    description:
      'The auth code is sealed at rest and deleted when the transfer ends. 202 with the transfer: pending until the losing registrar answers (5 days in the sandbox). The reserved charge is posted when the domain arrives and voided when the transfer fails, is rejected or cancelled. A registry outage leaves it pending (asked again, never charged twice).',
    access: {
      kind: 'key',
      rights: { names: ['domain.register'], of: (i) => [{ right: 'domain.register', domain: i.params.domain }] },
    },
    params: domainParam,
    body: {
      type: 'object',
      additionalProperties: false,
      required: ['auth_code'],
      properties: {
        auth_code: {
          type: 'string',
          minLength: 1,
          maxLength: 255,
          description: 'The authInfo from the current registrar (RFC 5731 §2.6).',
        },
        years: { type: 'integer', minimum: 1, maximum: 10, description: 'Default 1.' },
      },
    },
    responses: { 202: { description: 'The transfer, under way (or already answered)', schema: transferView } },
    errors: [...REQUEST_ERRORS],
    handle: async (i) => {
      const t = await uc.requestTransfer.execute(
        i.key,
        { domain: i.params.domain, auth_code: i.body.auth_code, years: i.body.years },
        i.checkpoints,
      );
      return { status: 202, headers: { Location: `/v1/domains/${t.domain}/transfers/${t.id}` }, body: t };
    },
    // A replay shows the transfer as it was answered; the auth code was never in the reply.
  }),
  route({
    id: 'listAccountTransfers',
    method: 'GET',
    path: '/v1/transfers',
    tag: 'Domains',
    writes: false,
    summary: 'Transfers of the account, in and out, newest first, of the names the key may register (domain.register); cursor pages',
    description:
      'A pending transfer in is of a name not in the account yet: a key that names it, or a label-scoped domain.register key, sees it. `active=true` keeps only those under way.',
    access: { kind: 'key', right: 'domain.register' },
    query: pageQuery({ active: { type: 'boolean', description: 'Only transfers under way.' } }),
    responses: { 200: { description: 'A page of transfers', schema: page(transferView) } },
    errors: ['right_missing', 'cursor_invalid'],
    handle: async (i) => ({
      status: 200,
      body: await uc.readTransfers.listAccount(i.key, { cursor: i.query.cursor, limit: i.query.limit, active: i.query.active }),
    }),
  }),
  route({
    id: 'listTransfers',
    method: 'GET',
    path: '/v1/domains/{domain}/transfers',
    tag: 'Domains',
    writes: false,
    summary: 'Transfers of a name in this account, newest first (domain.register)',
    access: {
      kind: 'key',
      rights: { names: ['domain.register'], of: (i) => [{ right: 'domain.register', domain: i.params.domain }] },
    },
    params: domainParam,
    responses: {
      200: {
        description: 'The transfers',
        schema: { type: 'object', properties: { items: { type: 'array', items: transferView } } },
      },
    },
    errors: ['domain_not_found', 'domain_invalid'],
    handle: async (i) => ({ status: 200, body: await uc.readTransfers.list(i.key, i.params.domain) }),
  }),
  route({
    id: 'getTransfer',
    method: 'GET',
    path: '/v1/domains/{domain}/transfers/{id}',
    tag: 'Domains',
    writes: false,
    summary: 'One transfer (domain.register)',
    access: {
      kind: 'key',
      rights: { names: ['domain.register'], of: (i) => [{ right: 'domain.register', domain: i.params.domain }] },
    },
    params: transferParams,
    responses: { 200: { description: 'The transfer', schema: transferView } },
    errors: ['transfer_not_found', 'domain_invalid'],
    handle: async (i) => ({ status: 200, body: await uc.readTransfers.get(i.key, i.params.domain, i.params.id) }),
  }),
  route({
    id: 'cancelTransfer',
    method: 'POST',
    path: '/v1/domains/{domain}/transfers/{id}/cancel',
    tag: 'Domains',
    writes: true,
    phased: true,
    summary: 'Cancel a pending transfer in (domain.register); the reserved charge is returned',
    access: {
      kind: 'key',
      rights: { names: ['domain.register'], of: (i) => [{ right: 'domain.register', domain: i.params.domain }] },
    },
    params: transferParams,
    responses: { 200: { description: 'The transfer, cancelled', schema: transferView } },
    errors: ['transfer_not_found', 'transfer_not_cancellable', 'registry_failure', 'registrar_capability_missing', 'domain_invalid'],
    handle: async (i) => ({
      status: 200,
      body: await uc.cancelTransfer.execute({ kind: 'key', key: i.key }, i.params.domain, i.params.id, i.checkpoints),
    }),
  }),
  route({
    id: 'cancelTransferAsOwner',
    method: 'POST',
    path: '/v1/account/domains/{domain}/transfers/{id}/cancel',
    tag: TAG,
    writes: true,
    phased: true,
    summary: 'Cancel a pending transfer in (owners); the reserved charge is returned',
    access: { kind: 'human', session: true, console: '/console/domains' },
    params: transferParams,
    body: envBody({}, []),
    responses: { 200: { description: 'The transfer, cancelled', schema: transferView } },
    errors: ['owner_only', 'transfer_not_found', 'transfer_not_cancellable', 'registry_failure', 'registrar_capability_missing'],
    handle: async (i) => ({
      status: 200,
      body: await uc.cancelTransfer.execute(
        { kind: 'human', human: i.human, environment: i.body.environment },
        i.params.domain,
        i.params.id,
        i.checkpoints,
      ),
    }),
  }),
  route({
    id: 'rejectTransferOut',
    method: 'POST',
    path: '/v1/domains/{domain}/transfer-out/reject',
    tag: 'Domains',
    writes: true,
    phased: true,
    summary: 'Reject a pending transfer of the domain to another registrar, at once (domain.lock: the safe direction)',
    access: { kind: 'key', right: 'domain.lock', domainParam: 'domain' },
    params: domainParam,
    responses: { 200: { description: 'The transfer out, rejected: the domain stays', schema: transferView } },
    errors: ['domain_not_found', 'transfer_out_not_pending', 'registry_failure', 'registrar_capability_missing'],
    handle: async (i) => ({
      status: 200,
      body: await uc.rejectTransferOut.execute({ kind: 'key', key: i.key }, i.params.domain, i.checkpoints),
    }),
  }),
  route({
    id: 'keepZoneAfterTransferOut',
    method: 'POST',
    path: '/v1/domains/{domain}/transfer-out/keep-zone',
    tag: 'Domains',
    writes: true,
    summary: 'Choose, while a transfer out is pending, whether the zone stays served as a hosted domain when the name leaves',
    description:
      'Without it the zone goes with the name. `{"keep": true}`: when the transfer completes the domain stays in the account as a hosted domain (`registrar` external, `hosting.status` active), its zone served with no gap; the delegation re-check then watches it as any active hosted zone. `{"keep": false}` undoes the choice.',
    access: { kind: 'key', right: 'domain.host', domainParam: 'domain' },
    params: domainParam,
    body: { type: 'object', additionalProperties: false, required: ['keep'], properties: { keep: { type: 'boolean' } } },
    responses: { 200: { description: 'The transfer out, with the choice', schema: transferView } },
    errors: ['domain_not_found', 'transfer_out_not_pending', 'hosted_domain_limit_reached'],
    handle: async (i) => ({ status: 200, body: await uc.keepZoneAfterTransferOut.execute(i.key, i.params.domain, i.body.keep) }),
  }),
  route({
    id: 'rejectTransferOutAsOwner',
    method: 'POST',
    path: '/v1/account/domains/{domain}/transfer-out/reject',
    tag: TAG,
    writes: true,
    phased: true,
    summary: 'Reject a pending transfer of the domain to another registrar, at once (owners)',
    access: { kind: 'human', session: true, console: '/console/domains' },
    params: domainParam,
    body: envBody({}, []),
    responses: { 200: { description: 'The transfer out, rejected: the domain stays', schema: transferView } },
    errors: ['owner_only', 'domain_not_found', 'transfer_out_not_pending', 'registry_failure', 'registrar_capability_missing'],
    handle: async (i) => ({
      status: 200,
      body: await uc.rejectTransferOut.execute(
        { kind: 'human', human: i.human, environment: i.body.environment },
        i.params.domain,
        i.checkpoints,
      ),
    }),
  }),
  route({
    id: 'simulateTransferOut',
    method: 'POST',
    path: '/v1/sandbox/transfer-out',
    tag: 'Sandbox',
    writes: true,
    summary: 'Simulate another registrar asking for a sandbox domain (test keys holding domain.read on it); owners are told',
    description:
      'As a registry poll message would: the domain shows pendingTransfer and domain.transfer_requested is recorded. It leaves the account after 5 days of the sandbox clock unless rejected. A locked domain refuses it (409 transfer_domain_locked).',
    access: {
      kind: 'key',
      sandboxOnly: true,
      rights: { names: ['domain.read'], of: (i) => [{ right: 'domain.read', domain: i.body.domain }] },
    },
    body: {
      type: 'object',
      additionalProperties: false,
      required: ['domain'],
      properties: { domain: { type: 'string', minLength: 1, maxLength: 253 } },
    },
    responses: { 202: { description: 'The transfer out, pending', schema: transferView } },
    errors: ['sandbox_only', 'domain_not_found', 'transfer_domain_locked', 'transfer_already_pending', 'transfer_not_transferable'],
    handle: async (i) => ({ status: 202, body: await uc.simulateTransferOut.execute(i.key, i.body.domain) }),
  }),
];
