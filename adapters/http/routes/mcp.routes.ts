import { RateLimiter, type BucketConfig } from '../middleware/rate-limit.js';
import { route, type Route } from '../route.js';

/** What the MCP adapter offers the HTTP layer (adapters/mcp implements it; src/ wires the two). */
export interface McpEndpoint {
  handle(message: unknown): Promise<{ status: number; body: unknown; headers: Record<string, string> }>;
}

/**
 * Public MCP tools for assistants at POST /mcp (Model Context Protocol, Streamable HTTP
 * transport, stateless, JSON responses). No key; rate-limited per client address with its own bucket
 * (a limited caller gets HTTP 429 with a JSON-RPC error body and Retry-After).
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
      description:
        'Model Context Protocol endpoint (JSON-RPC 2.0 over Streamable HTTP, no sessions). Tools: check_domain_availability {domain}, certificate_status {domain}. Read-only; no key; rate-limited per client address. Use an MCP client (see README "MCP for assistants").',
      access: { kind: 'public' },
      body: { type: ['object', 'array'], description: 'A JSON-RPC 2.0 request, notification or batch (MCP).' },
      responses: {
        200: { description: 'A JSON-RPC 2.0 response (MCP result or error).', schema: { type: ['object', 'array'] } },
        202: { description: 'Accepted (a notification: no response body).' },
      },
      errors: ['rate_limited'],
      handle: async (i) => {
        const d = limiter.take(`ip:${i.ip}`);
        const rate = {
          'RateLimit-Limit': String(d.limit),
          'RateLimit-Remaining': String(d.remaining),
          'RateLimit-Reset': String(d.resetSeconds),
        };
        if (!d.allowed) {
          return {
            status: 429,
            headers: { ...rate, 'Retry-After': String(d.retryAfterSeconds) },
            body: {
              jsonrpc: '2.0',
              id: null,
              error: {
                code: -32000,
                message: `Too many requests. Retry in ${d.retryAfterSeconds} s.`,
                data: { code: 'rate_limited', retry_after: d.retryAfterSeconds },
              },
            },
          };
        }
        const r = await mcp.handle(i.body);
        return { status: r.status, headers: { ...r.headers, ...rate }, ...(r.body === undefined ? {} : { body: r.body }) };
      },
    }),
  ];
};
