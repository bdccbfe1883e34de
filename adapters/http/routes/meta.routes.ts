import { route, type Route } from '../route.js';
import { schema } from '../schema-type.js';

export interface MetaDeps {
  /** True once migrations and seeding are done (DESIGN: /healthz answers 200 only then). */
  readonly started: () => boolean;
  /** True while the store answers. */
  readonly ping: () => Promise<boolean>;
  /** True while the process shuts down: load balancers stop sending new requests. */
  readonly draining?: () => boolean;
  readonly openapi: () => Record<string, unknown>;
}

const status = schema({ type: 'object', properties: { status: { type: 'string' } } });

export const metaRoutes = (deps: MetaDeps): Route[] => [
  route({
    id: 'healthz',
    method: 'GET',
    path: '/healthz',
    tag: 'Operations',
    writes: false,
    access: { kind: 'public' },
    summary: 'Liveness: 200 once migrations and seeding are done',
    responses: { 200: { description: 'Started', schema: status }, 503: { description: 'Still starting', schema: status } },
    handle: async () => (deps.started() ? { status: 200, body: { status: 'ok' } } : { status: 503, body: { status: 'starting' } }),
  }),
  route({
    id: 'readyz',
    method: 'GET',
    path: '/readyz',
    tag: 'Operations',
    writes: false,
    access: { kind: 'public' },
    summary: 'Readiness: 200 when started and the store answers',
    responses: { 200: { description: 'Ready', schema: status }, 503: { description: 'Not ready', schema: status } },
    handle: async () =>
      deps.draining?.()
        ? { status: 503, body: { status: 'draining' } }
        : deps.started() && (await deps.ping())
          ? { status: 200, body: { status: 'ready' } }
          : { status: 503, body: { status: 'not_ready' } },
  }),
  route({
    id: 'openapi',
    method: 'GET',
    path: '/v1/openapi.json',
    tag: 'Operations',
    writes: false,
    access: { kind: 'public' },
    summary: 'This API described in OpenAPI 3.1',
    responses: { 200: { description: 'The OpenAPI document', schema: { type: 'object', additionalProperties: true } } },
    handle: async () => ({ status: 200, body: deps.openapi() }),
  }),
];
