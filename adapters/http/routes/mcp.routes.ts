import { DomainError } from '../../../core/kernel/errors.js';
import { errorBody } from '../error-table.js';
import { jsonRpcErrorOf, jsonRpcResponseSchema } from '../jsonrpc.js';
import { RateLimiter, type BucketConfig } from '../middleware/rate-limit.js';
import { route, type Route } from '../route.js';

/** What the MCP adapter offers the HTTP layer (adapters/mcp implements it; src/ wires the two). */
export interface McpEndpoint {
  handle(message: unknown): Promise<{ status: number; body: unknown; headers: Record<string, string> }>;
}

/**
 * The most JSON-RPC messages one POST may carry. Each costs a token of the caller's bucket, so a batch
 * cannot multiply what the bucket allows (nor, with MCP_ENVIRONMENT=live, the registry checks behind it);
 * a larger batch is refused whole before anything in it runs.
 */
export const MCP_MAX_BATCH = 20;

const message = { type: 'object', additionalProperties: true, description: 'A JSON-RPC 2.0 request or notification (MCP).' } as const;

/**
 * Public MCP tools for assistants at POST /mcp (Model Context Protocol, Streamable HTTP
 * transport, stateless, JSON responses). No key; rate-limited per client address with its own bucket,
 * one token per message (a limited caller gets HTTP 429 with a JSON-RPC error body and Retry-After).
 */
export const mcpRoutes = (mcp: McpEndpoint, limits: BucketConfig): Route[] => {
  const limiter = new RateLimiter(limits);
  return [
    route({
      id: 'mcp',
      method: 'POST',
      path: '/mcp',
      tag: 'MCP',
      writes: false,
      summary: 'MCP tools for assistants (Streamable HTTP, stateless)',
      description: `Model Context Protocol endpoint (JSON-RPC 2.0 over Streamable HTTP, no sessions). Tools: check_domain_availability {domain}, certificate_status {domain}. Read-only; no key; rate-limited per client address, one token per JSON-RPC message (a batch of ${MCP_MAX_BATCH} at most). Every refusal is a JSON-RPC error. Use an MCP client (see README "MCP for assistants").`,
      access: { kind: 'public' },
      errorFormat: 'jsonrpc',
      body: {
        oneOf: [message, { type: 'array', minItems: 1, maxItems: MCP_MAX_BATCH, items: message }],
        description: `A JSON-RPC 2.0 request, notification or batch (at most ${MCP_MAX_BATCH} messages).`,
      },
      responses: {
        200: {
          description: 'A JSON-RPC 2.0 response (MCP result or error), or one per request of a batch.',
          schema: jsonRpcResponseSchema,
        },
        202: { description: 'Accepted: only notifications were sent; no body.' },
      },
      errors: ['rate_limited'],
      handle: async (i) => {
        const d = limiter.take(`ip:${i.ip}`, Array.isArray(i.body) ? i.body.length : 1);
        const rate = {
          'RateLimit-Limit': String(d.limit),
          'RateLimit-Remaining': String(d.remaining),
          'RateLimit-Reset': String(d.resetSeconds),
        };
        if (!d.allowed) {
          const refusal = new DomainError('rate_limited', { retry_after: d.retryAfterSeconds });
          return {
            status: 429,
            headers: { ...rate, 'Retry-After': String(d.retryAfterSeconds) },
            body: jsonRpcErrorOf(429, errorBody(refusal.code, refusal.params), { retry_after: d.retryAfterSeconds }),
          };
        }
        const r = await mcp.handle(i.body);
        return { status: r.status, headers: { ...r.headers, ...rate }, ...(r.body === undefined ? {} : { body: r.body }) };
      },
    }),
  ];
};
