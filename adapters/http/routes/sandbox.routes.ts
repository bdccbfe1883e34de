import type { AdvanceSandboxClock } from '../../../core/sandbox/advance-clock.use-case.js';
import type { Certificates } from '../../../core/certificates/certificates.use-case.js';
import type { SimulateDelegation } from '../../../core/sandbox/simulate-delegation.use-case.js';
import { route, type Route } from '../route.js';
import { domainParam, domainView } from '../schemas.js';

/** The sandbox (/v1/sandbox): its clock (read: any test key; moved: sandbox.clock) and its CA's root certificate (public). */
export interface SandboxUseCases {
  readonly advanceSandboxClock: Pick<AdvanceSandboxClock, 'execute' | 'read' | 'executeAsPerson' | 'readAsPerson'>;
  readonly certificates: Pick<Certificates, 'trustRoot'>;
  readonly simulateDelegation: Pick<SimulateDelegation, 'execute'>;
}

const pem = (description: string) => ({ description, contentType: 'application/x-pem-file', schema: { type: 'string' } });

export const sandboxRoutes = (uc: SandboxUseCases): Route[] => [
  route({
    id: 'readSandboxClock',
    method: 'GET',
    path: '/v1/sandbox/clock',
    tag: 'Sandbox',
    writes: false,
    summary: "This account's sandbox time (any valid test key)",
    access: { kind: 'key', anyKey: true, sandboxOnly: true },
    responses: {
      200: {
        description: 'The sandbox time and how far it is ahead of real time',
        schema: {
          type: 'object',
          additionalProperties: false,
          required: ['now', 'offset_ms'],
          properties: { now: { type: 'string', format: 'date-time' }, offset_ms: { type: 'integer' } },
        },
      },
    },
    errors: ['sandbox_only'],
    handle: async (i) => ({ status: 200, body: await uc.advanceSandboxClock.read(i.key) }),
  }),
  route({
    id: 'advanceSandboxClock',
    method: 'POST',
    path: '/v1/sandbox/clock',
    tag: 'Sandbox',
    writes: true,
    phased: true,
    summary: "Move this account's sandbox time forward (test keys holding sandbox.clock); the lifecycle runs at once",
    description:
      'ISO 8601 duration in days, hours or minutes (P30D, PT12H), at most 3 years. Moves the domain lifecycle of the test environment; key validity, idempotency and the spend month follow real time. Class 3 operations whose 24 hours pass activate at once, so moving time needs its own right.',
    access: { kind: 'key', right: 'sandbox.clock', sandboxOnly: true },
    body: {
      type: 'object',
      additionalProperties: false,
      required: ['advance'],
      properties: { advance: { type: 'string', maxLength: 20 } },
    },
    responses: {
      200: {
        description: 'The new sandbox time and what the lifecycle did',
        schema: {
          type: 'object',
          properties: {
            now: { type: 'string', format: 'date-time' },
            offset_ms: { type: 'integer' },
            lifecycle: { type: 'object', additionalProperties: true, description: 'What the domain lifecycle did (counts by step).' },
            certificates: {
              type: 'object',
              additionalProperties: true,
              description: "What the certificates' pass did (renewals, expiries).",
            },
            operations: { type: 'object', additionalProperties: true, description: 'Class 3 operations activated on the moved clock.' },
            transfers: {
              type: 'object',
              additionalProperties: true,
              description: 'Transfers answered on the moved clock (completed, ended, pending).',
            },
          },
        },
      },
    },
    errors: ['sandbox_only', 'right_missing'],
    handle: async (i) => ({ status: 200, body: await uc.advanceSandboxClock.execute(i.key, i.body.advance, i.checkpoints) }),
  }),
  route({
    id: 'simulateDelegation',
    method: 'POST',
    path: '/v1/sandbox/delegations/{domain}',
    tag: 'Sandbox',
    writes: true,
    phased: true,
    summary: 'Simulate the parent zone of a hosted sandbox domain (test keys, domain.host): delegated to us, or not; checked again at once',
    description:
      'Sandbox hosted domains verify at once, except names whose first label starts with `undelegated-`. `{"delegated": true}` makes the parent delegate the name to our nameservers (with the TXT proof seen on the previous ones): a pending claim becomes active. `{"delegated": false}` takes the delegation away: an active zone gets `hosting.problem` `delegation_lost` (event `domain.hosting_problem`, owners told) and is still served.',
    access: { kind: 'key', right: 'domain.host', domainParam: 'domain', sandboxOnly: true },
    params: domainParam,
    body: { type: 'object', additionalProperties: false, required: ['delegated'], properties: { delegated: { type: 'boolean' } } },
    responses: { 200: { description: 'The domain after the check', schema: domainView } },
    errors: ['sandbox_only', 'domain_not_found', 'domain_not_hosted'],
    handle: async (i) => ({ status: 200, body: await uc.simulateDelegation.execute(i.key, i.params.domain, i.body.delegated, i.domain) }),
  }),
  route({
    id: 'sandboxCaRoot',
    method: 'GET',
    path: '/v1/sandbox/ca.pem',
    tag: 'Certificates',
    writes: false,
    access: { kind: 'public' },
    summary: "The sandbox CA's root certificate (PEM): add it to a trust store to verify sandbox chains",
    responses: { 200: pem('Root certificate (PEM)') },
    handle: async () => ({ status: 200, contentType: 'application/x-pem-file', body: await uc.certificates.trustRoot() }),
  }),
];
