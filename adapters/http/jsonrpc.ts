import type { ErrorBody } from './error-table.js';
import type { JsonSchema } from './route.js';

/**
 * Routes that speak JSON-RPC 2.0 (POST /mcp) answer every refusal as a JSON-RPC error object, even the
 * ones the HTTP layer raises before the route runs (bad JSON, a body the schema refuses, a rate limit),
 * so a JSON-RPC client always finds `error.code` and `error.message` where it looks. Our own error
 * (code, message in both languages, actions) travels in `error.data`.
 */
export const jsonRpcErrorOf = (status: number, body: ErrorBody, extra: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0' as const,
  id: null,
  error: {
    code: body.error.code === 'malformed_json' ? -32700 : status >= 500 ? -32603 : status === 429 ? -32000 : -32600,
    message: body.error.message.en,
    data: { ...body.error, ...extra },
  },
});

const id = {
  type: ['string', 'integer', 'null'],
  description: 'The id of the request answered (null when it could not be read).',
} as const;

const errorObject: JsonSchema = {
  type: 'object',
  required: ['code', 'message'],
  properties: {
    code: { type: 'integer', description: '-32700 parse error, -32600 invalid request, -32000 rate limited, -32603 internal error, …' },
    message: { type: 'string' },
    data: {
      type: 'object',
      description: 'Our error (code, message in Ukrainian and English, actions), and retry_after when rate limited.',
      additionalProperties: true,
    },
  },
};

/** A JSON-RPC 2.0 error response, as jsonRpcErrorOf builds them. */
export const jsonRpcErrorSchema: JsonSchema = {
  type: 'object',
  required: ['jsonrpc', 'id', 'error'],
  properties: { jsonrpc: { type: 'string', const: '2.0' }, id, error: errorObject },
};

/** One JSON-RPC 2.0 response: a result (MCP's result object) or an error. */
const jsonRpcResponse: JsonSchema = {
  type: 'object',
  required: ['jsonrpc', 'id'],
  properties: {
    jsonrpc: { type: 'string', const: '2.0' },
    id,
    result: { type: 'object', additionalProperties: true, description: 'The MCP result (initialize, tools/list, tools/call …).' },
    error: errorObject,
  },
};

/** What a 200 carries: one response, or one per request of a batch. */
export const jsonRpcResponseSchema: JsonSchema = {
  oneOf: [jsonRpcResponse, { type: 'array', items: jsonRpcResponse }],
};
