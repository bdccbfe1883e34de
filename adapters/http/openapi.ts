import { ERROR_TABLE, errorBody } from './error-table.js';
import type { ErrorCode } from '../../core/kernel/errors.js';
import { jsonRpcErrorOf, jsonRpcErrorSchema } from './jsonrpc.js';
import { declaredRights, isHumanOnly, type JsonSchema, type Route } from './route.js';

/**
 * OpenAPI 3.1, generated from the route declarations and the very schemas ajv validates with, so
 * the document cannot drift from behaviour (STYLE 7).
 */
const errorSchema: JsonSchema = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message', 'actions'],
      properties: {
        code: { type: 'string', enum: Object.keys(ERROR_TABLE) },
        message: { type: 'object', required: ['uk', 'en'], properties: { uk: { type: 'string' }, en: { type: 'string' } } },
        actions: {
          type: 'array',
          items: { type: 'object', required: ['type', 'href'], properties: { type: { type: 'string' }, href: { type: 'string' } } },
        },
        details: { type: 'array', items: { type: 'object', additionalProperties: true } },
      },
    },
  },
};

const commonErrors = (r: Route): ErrorCode[] => {
  // A JSON-RPC route is POST only and its 405 (another method) is not this operation's answer.
  const codes: ErrorCode[] = r.errorFormat === 'jsonrpc' ? ['internal_error'] : ['internal_error', 'method_not_allowed'];
  if (r.access.kind === 'key')
    codes.push('unauthenticated', 'key_invalid', 'key_revoked', 'key_expired', 'ip_not_allowed', 'rate_limited', 'environment_unavailable');
  if (r.access.kind === 'key' && (r.access.right || r.access.rights)) codes.push('right_missing');
  if (r.access.kind === 'human') codes.push('human_only', 'rate_limited');
  if (r.access.kind === 'human' && r.access.session) codes.push('session_required');
  if (r.params || r.query || r.body) codes.push('validation_failed');
  if (r.body) codes.push('malformed_json', 'unsupported_media_type', 'payload_too_large');
  if (r.writes && r.access.kind !== 'public') codes.push('idempotency_key_invalid', 'idempotency_key_reused', 'idempotency_key_in_use');
  if (r.writes && r.access.kind === 'key') codes.push('idempotency_key_required');
  return codes;
};

const paramsOf = (r: Route) => {
  const out: unknown[] = [];
  for (const [where, schema] of [
    ['path', r.params],
    ['query', r.query],
  ] as const) {
    const props = (schema?.properties ?? {}) as Record<string, JsonSchema>;
    const required = new Set((schema?.required as string[] | undefined) ?? []);
    for (const [name, s] of Object.entries(props)) {
      const { description, ...rest } = s as { description?: string };
      out.push({
        name,
        in: where,
        required: where === 'path' || required.has(name),
        schema: rest,
        ...(description ? { description } : {}),
      });
    }
  }
  for (const m of r.path.matchAll(/\{(\w+)\}/g)) {
    if (!out.some((p) => (p as { name: string }).name === m[1]))
      out.push({ name: m[1], in: 'path', required: true, schema: { type: 'string' } });
  }
  if (r.writes && r.access.kind !== 'public') {
    out.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: r.access.kind === 'key',
      schema: { type: 'string', maxLength: 255 },
      description: 'A unique value per write (a UUID). Repeats return the stored response with Idempotent-Replayed: true; kept 24 h.',
    });
  }
  return out;
};

export const buildOpenApi = (routes: readonly Route[], version: string): Record<string, unknown> => {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const responses: Record<string, unknown> = {};
    for (const [status, res] of Object.entries(r.responses)) {
      responses[status] = {
        description: res.description,
        ...(res.schema ? { content: { [res.contentType ?? 'application/json']: { schema: res.schema } } } : {}),
      };
    }
    const byStatus = new Map<number, ErrorCode[]>();
    for (const code of [...new Set([...commonErrors(r), ...(r.errors ?? [])])]) {
      const st = ERROR_TABLE[code].status;
      byStatus.set(st, [...(byStatus.get(st) ?? []), code]);
    }
    for (const [status, codes] of [...byStatus].sort((a, b) => a[0] - b[0])) {
      const jsonRpc = r.errorFormat === 'jsonrpc';
      responses[String(status)] = {
        description: `Error: ${codes.join(', ')}`,
        content: {
          'application/json': {
            schema: { $ref: `#/components/schemas/${jsonRpc ? 'JsonRpcError' : 'Error'}` },
            examples: Object.fromEntries(codes.map((c) => [c, { value: jsonRpc ? jsonRpcErrorOf(status, errorBody(c)) : errorBody(c) }])),
          },
        },
      };
    }
    const security =
      r.access.kind === 'key' ? [{ bearerKey: [] }] : r.access.kind === 'human' && r.access.session ? [{ sessionCookie: [] }] : [];
    paths[r.path] ??= {};
    paths[r.path]![r.method.toLowerCase()] = {
      operationId: r.id,
      summary: r.summary,
      ...(r.description ? { description: r.description } : {}),
      tags: [r.tag],
      security,
      ...(isHumanOnly(r) ? { 'x-human-only': true } : {}),
      // Every key route states what it needs (STYLE 15): a right, several (any one), or 'any-key'.
      ...(r.access.kind === 'key' ? { 'x-right': declaredRights(r.access) } : {}),
      parameters: paramsOf(r),
      ...(r.body ? { requestBody: { required: true, content: { 'application/json': { schema: r.body } } } } : {}),
      responses,
    };
  }
  const tags = [...new Set(routes.map((r) => r.tag))].map((name) => ({ name, description: `${name} operations.` }));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Domivka API',
      version,
      description:
        'Domains, DNS plans, certificates and a prepaid balance, reachable with narrowly scoped access keys. Errors are `{"error":{"code","message":{"uk","en"},"actions":[…]}}`.',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      contact: { name: 'Domivka', email: 'api@domivka.net' },
    },
    servers: [{ url: '/', description: 'The server that serves this document (npm start: http://127.0.0.1:8080)' }],
    security: [],
    tags,
    paths,
    components: {
      schemas: { Error: errorSchema, JsonRpcError: jsonRpcErrorSchema },
      securitySchemes: {
        bearerKey: { type: 'http', scheme: 'bearer', description: 'An access key: dmk_live_… or dmk_test_….' },
        sessionCookie: { type: 'apiKey', in: 'cookie', name: 'dmk_session', description: 'Console session (humans only).' },
      },
    },
  };
};
