import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { DomainCertificateStatus } from '../../core/certificates/certificate-status.use-case.js';
import type { SearchResult } from '../../core/domains/search-domains.use-case.js';
import type { Environment } from '../../core/kernel/environment.js';
import { isDomainError } from '../../core/kernel/errors.js';
import { formatUah } from '../../core/kernel/money.js';

/**
 * Public MCP tools for assistants (Model Context Protocol, Streamable HTTP, stateless): read-only by
 * construction — this adapter is given two read functions and nothing else, so no tool can write.
 */
export interface McpReads {
  /** SearchDomains.execute: availability and prices of a name and its alternatives in other zones. */
  search(environment: Environment, q: string): Promise<{ query: string; results: SearchResult[] }>;
  /** CertificateStatusQuery.forDomain: the latest certificate's status, validity, issuer. */
  certificateStatus(domain: string, environment: Environment): Promise<DomainCertificateStatus>;
}

export interface McpOptions {
  /** Which environment's registrar and certificates the tools read (default: test, the sandbox). */
  readonly environment: Environment;
  readonly version: string;
}

export interface McpHttpAnswer {
  readonly status: number;
  readonly body: unknown;
  readonly headers: Record<string, string>;
}

const priceSchema = z.object({
  amount: z.number().int().describe('Kopiykas (1/100 UAH)'),
  currency: z.literal('UAH'),
  formatted: z.string().describe('e.g. "400.00 грн"'),
});

/** What check_domain_availability answers (its structuredContent; the text content is the same JSON). */
const availabilityOutput = {
  domain: z.string().describe('The name checked, in A-labels'),
  available: z.boolean(),
  registered_until: z.string().nullable().describe('For a taken name, the date it is registered until, when the registry tells'),
  price_per_year: priceSchema,
  alternatives: z
    .array(z.object({ domain: z.string(), price_per_year: priceSchema }))
    .describe('Free names with the same label in the other zones'),
  environment: z.enum(['test', 'live']),
};

/** What certificate_status answers. */
const certificateOutput = {
  domain: z.string().describe('The name asked about, in A-labels'),
  certificate: z
    .object({
      status: z.string().describe('pending, issued, failed, expired or revoked'),
      not_before: z.string().nullable(),
      not_after: z.string().nullable(),
      issuer: z.string().nullable(),
      covers_wildcard: z.boolean().describe('Whether it also covers *. + the name'),
    })
    .nullable()
    .describe('The newest certificate whose names cover the name (wildcards included), or null'),
  environment: z.enum(['test', 'live']),
};

/** A tool's answer: the structured content, and the same JSON as text for clients that read text only. */
const answer = <T extends Record<string, unknown>>(structured: T) => ({
  content: [{ type: 'text' as const, text: JSON.stringify(structured) }],
  structuredContent: structured,
});

const price = (amount: number) => ({ amount, currency: 'UAH' as const, formatted: `${formatUah(amount)} грн` });

/** Plain-language text for the errors a tool can meet (no stack, no internals). */
const explain = (err: unknown): string => {
  if (isDomainError(err)) {
    if (err.code === 'domain_invalid') return `"${String(err.fact('domain'))}" is not a valid domain name.`;
    if (err.code === 'tld_not_supported')
      return `${String(err.fact('domain'))} cannot be registered here; supported zones: ${[err.fact('tlds') ?? []].flat().join(', ')}.`;
    if (err.code === 'environment_unavailable') return 'The registry is not configured on this server.';
    return `Refused (${err.code}).`;
  }
  return 'The registry did not answer; try again later.';
};

/** The MCP SDK, loaded on the first MCP request: a process that serves none never loads it (start time, memory). */
let sdk: Promise<{
  McpServer: typeof import('@modelcontextprotocol/sdk/server/mcp.js').McpServer;
  Transport: typeof import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js').WebStandardStreamableHTTPServerTransport;
}> | null = null;
const loadSdk = () =>
  (sdk ??= Promise.all([
    import('@modelcontextprotocol/sdk/server/mcp.js'),
    import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
  ]).then(([m, t]) => ({ McpServer: m.McpServer, Transport: t.WebStandardStreamableHTTPServerTransport })));

export class McpTools {
  constructor(
    private readonly reads: McpReads,
    private readonly options: McpOptions,
  ) {}

  /** A fresh server per request (stateless transport: no session survives a request). */
  private server(Server: typeof McpServer): McpServer {
    const server = new Server({ name: 'domivka', version: this.options.version }, { capabilities: { tools: {} } });
    const env = this.options.environment;

    server.registerTool(
      'check_domain_availability',
      {
        title: 'Check domain availability',
        description:
          'Is a domain name free to register? Answers free or taken (with the date it is registered until), the yearly price in UAH (kopiykas and formatted), and alternatives in other zones. Read-only; no account needed.',
        inputSchema: { domain: z.string().min(3).max(253).describe('A full domain name, e.g. kvitka.com.ua') },
        outputSchema: availabilityOutput,
        annotations: { readOnlyHint: true, openWorldHint: true, idempotentHint: true },
      },
      async ({ domain }) => {
        try {
          const { results } = await this.reads.search(env, domain);
          const exact = results.find((r) => r.exact);
          if (!exact)
            return {
              isError: true,
              content: [{ type: 'text' as const, text: `"${domain}" is not a full domain name (e.g. kvitka.com.ua).` }],
            };
          return answer({
            domain: exact.domain,
            available: exact.available,
            registered_until: exact.registered_until,
            price_per_year: price(exact.price.amount),
            alternatives: results
              .filter((r) => !r.exact && r.available)
              .map((r) => ({ domain: r.domain, price_per_year: price(r.price.amount) })),
            environment: env,
          });
        } catch (err) {
          return { isError: true, content: [{ type: 'text' as const, text: explain(err) }] };
        }
      },
    );

    server.registerTool(
      'certificate_status',
      {
        title: 'Certificate status',
        description:
          'The newest TLS certificate Domivka issued that covers a host name (its own names, wildcards included: *.x covers www.x, not x): status, validity (not before/after) and issuer. Shows no account data. Read-only.',
        inputSchema: { domain: z.string().min(3).max(253).describe('A host name, e.g. www.kvitka.com.ua') },
        outputSchema: certificateOutput,
        annotations: { readOnlyHint: true, openWorldHint: false, idempotentHint: true },
      },
      async ({ domain }) => {
        try {
          const s = await this.reads.certificateStatus(domain, env);
          return answer({ domain: s.domain, certificate: s.certificate, environment: env });
        } catch (err) {
          return { isError: true, content: [{ type: 'text' as const, text: explain(err) }] };
        }
      },
    );
    // Stateless: a fresh server per request, so no client ever stays to hear that the list changed.
    // registerTool advertises tools.listChanged; take it back (getCapabilities is TypeScript-private but
    // returns the very object initialize answers with; test/mcp checks the capabilities a client sees).
    delete server.server['getCapabilities']().tools?.listChanged;
    return server;
  }

  /** One HTTP POST of the Streamable HTTP transport (JSON responses, no sessions). */
  async handle(message: unknown): Promise<McpHttpAnswer> {
    const { McpServer: Server, Transport } = await loadSdk();
    const server = this.server(Server);
    const transport = new Transport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    try {
      const res = await transport.handleRequest(
        new Request('http://mcp.local/mcp', {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: JSON.stringify(message),
        }),
      );
      const raw = await res.text();
      const headers: Record<string, string> = {};
      res.headers.forEach((v, k) => {
        if (k !== 'content-length' && k !== 'content-type') headers[k] = v;
      });
      let body: unknown;
      try {
        body = raw === '' ? undefined : JSON.parse(raw);
      } catch {
        body = { jsonrpc: '2.0', id: null, error: { code: -32603, message: 'Internal error' } };
      }
      return { status: res.status, body, headers };
    } finally {
      await transport.close().catch(() => undefined);
      await server.close().catch(() => undefined);
    }
  }
}
