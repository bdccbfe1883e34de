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
          const answer = {
            domain: exact.domain,
            available: exact.available,
            registered_until: exact.registered_until,
            price_per_year: price(exact.price.amount),
            alternatives: results
              .filter((r) => !r.exact && r.available)
              .map((r) => ({ domain: r.domain, price_per_year: price(r.price.amount) })),
            environment: env,
          };
          const text = exact.available
            ? `${exact.domain} is free: ${answer.price_per_year.formatted} per year.`
            : `${exact.domain} is taken${exact.registered_until ? ` (registered until ${exact.registered_until})` : ''}.`;
          const alt =
            answer.alternatives.length > 0
              ? ` Free alternatives: ${answer.alternatives.map((a) => `${a.domain} (${a.price_per_year.formatted})`).join(', ')}.`
              : '';
          return { content: [{ type: 'text' as const, text: text + alt }], structuredContent: answer };
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
          'The latest TLS certificate Domivka issued for a domain: status, validity (not before/after) and issuer. Shows no account data. Read-only.',
        inputSchema: { domain: z.string().min(3).max(253).describe('A domain name, e.g. kvitka.com.ua') },
        annotations: { readOnlyHint: true, openWorldHint: false, idempotentHint: true },
      },
      async ({ domain }) => {
        try {
          const s = await this.reads.certificateStatus(domain, env);
          const c = s.certificate;
          const text = c
            ? `${s.domain}: certificate ${c.status}${c.not_after ? `, valid until ${c.not_after}` : ''}${c.issuer ? `, issued by ${c.issuer}` : ''}.`
            : `${s.domain}: no certificate has been requested through Domivka.`;
          return { content: [{ type: 'text' as const, text }], structuredContent: { ...s, environment: env } };
        } catch (err) {
          return { isError: true, content: [{ type: 'text' as const, text: explain(err) }] };
        }
      },
    );
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
