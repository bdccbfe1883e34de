import { expect } from 'chai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpTools } from '../../adapters/mcp/index.js';
import { MCP_MAX_BATCH, mcpRoutes } from '../../adapters/http/routes/mcp.routes.js';
import { eachStore, STORES } from '../support/stores.js';
import { startApi, type TestApi } from '../support/system.js';
import { diffSnapshots, snapshot } from '../hostile/support/harness.js';

/**
 * The public MCP tools at POST /mcp, exercised with the MCP SDK's own client over the
 * Streamable HTTP transport. No key; read-only (row counts of every table unchanged); rate-limited.
 */
eachStore('MCP tools for assistants (POST /mcp)', (kind) => {
  let api: TestApi;
  before(async () => {
    api = await startApi(kind, { env: { RATE_LIMIT_ANON_BURST: '200', RATE_LIMIT_ANON_PER_SECOND: '5' } });
  });
  after(async () => api.close());

  const connect = async (): Promise<Client> => {
    const client = new Client({ name: 'domivka-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${api.base}/mcp`)));
    return client;
  };

  it('lists the two read-only tools with their input schemas', async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).to.deep.equal(['certificate_status', 'check_domain_availability']);
    for (const t of tools) {
      expect(t.annotations?.readOnlyHint, t.name).to.equal(true);
      expect(t.inputSchema.required).to.deep.equal(['domain']);
    }
    await client.close();
  });

  it('check_domain_availability: free with price and alternatives; taken with the date', async () => {
    const client = await connect();
    const free = await client.callTool({ name: 'check_domain_availability', arguments: { domain: 'kvitka-mcp.com.ua' } });
    expect(free.isError ?? false).to.equal(false);
    const s = free.structuredContent as any;
    expect(s).to.deep.include({ domain: 'kvitka-mcp.com.ua', available: true, registered_until: null, environment: 'test' });
    expect(s.price_per_year).to.deep.equal({ amount: 40000, currency: 'UAH', formatted: '400.00 грн' });
    expect(s.alternatives.map((a: any) => a.domain)).to.include('kvitka-mcp.com');
    // The text content is the structured content, serialized.
    expect(JSON.parse((free.content as any)[0].text)).to.deep.equal(s);

    const taken = await client.callTool({ name: 'check_domain_availability', arguments: { domain: 'taken-mcp.com.ua' } });
    expect(taken.structuredContent).to.deep.include({ domain: 'taken-mcp.com.ua', available: false, registered_until: '2031-03-14' });
    await client.close();
  });

  it('certificate_status: the latest certificate without account data; none when never requested', async () => {
    const client = await connect();
    const none = await client.callTool({ name: 'certificate_status', arguments: { domain: 'never-mcp.com.ua' } });
    expect(none.structuredContent).to.deep.equal({ domain: 'never-mcp.com.ua', certificate: null, environment: 'test' });
    // The demo account's domains: whatever they have, the answer carries no ids, keys or account fields.
    const demo = await client.callTool({ name: 'certificate_status', arguments: { domain: 'domivka-demo.com.ua' } });
    const text = JSON.stringify(demo);
    expect(text).to.not.match(/account|key_id|private|@/i);
    await client.close();
  });

  it('bad input is an error without a stack: tool errors for bad arguments, JSON-RPC errors for bad requests', async () => {
    const client = await connect();
    const missing = await client.callTool({ name: 'check_domain_availability', arguments: {} });
    expect(missing.isError).to.equal(true);
    const bad = await client.callTool({ name: 'check_domain_availability', arguments: { domain: 'not a domain!' } });
    expect(bad.isError).to.equal(true);
    expect((bad.content as any)[0].text).to.match(/not a valid domain name|cannot be registered/);
    const tld = await client.callTool({ name: 'check_domain_availability', arguments: { domain: 'x.example' } });
    expect(tld.isError).to.equal(true);
    for (const r of [missing, bad, tld]) expect(JSON.stringify(r)).to.not.match(/\bat .*\.(ts|js):\d+/);
    await client.close();

    // A method that does not exist: a JSON-RPC error object, no stack.
    const raw = await fetch(`${api.base}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/delete_everything', params: {} }),
    });
    const body = (await raw.json()) as any;
    expect(body.jsonrpc).to.equal('2.0');
    expect(body.id).to.equal(7);
    expect(body.error.code).to.equal(-32601);
    expect(JSON.stringify(body)).to.not.match(/\bat .*\.(ts|js):\d+/);
  });

  it('no tool writes: every row of every table is unchanged after many calls (a checksum of each table, not its count)', async () => {
    const before = await snapshot(api);
    expect(before.size).to.be.greaterThan(10);
    const client = await connect();
    for (let i = 0; i < 15; i++) {
      await client.callTool({ name: 'check_domain_availability', arguments: { domain: `many-${i}.com.ua` } });
      await client.callTool({ name: 'certificate_status', arguments: { domain: `many-${i}.com.ua` } });
    }
    await client.listTools();
    await client.close();
    expect(diffSnapshots(before, await snapshot(api))).to.deep.equal([]);
  });

  it('the table snapshot it relies on sees an UPDATE that keeps the row count', async () => {
    const before = await snapshot(api);
    const knex = api.system.store.knex;
    const row = await knex('domains').first('id', 'auto_renew');
    await knex('domains').where({ id: row.id }).update({ auto_renew: !row.auto_renew });
    try {
      expect(diffSnapshots(before, await snapshot(api))).to.have.length(1);
    } finally {
      await knex('domains').where({ id: row.id }).update({ auto_renew: row.auto_renew });
    }
  });

  it('certificate_status answers by the names a certificate covers, wildcards included; outputSchema holds; no listChanged', async () => {
    const key = (await api.issueKey({ environment: 'test', rights: ['cert.issue'], domains: ['domivka-demo.dev'] })).secret;
    for (const domains of [['www.domivka-demo.dev'], ['*.wild.domivka-demo.dev']]) {
      const r = await api.call('/v1/certificates', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'idempotency-key': crypto.randomUUID() },
        json: { domains },
      });
      expect(r.status, JSON.stringify(r.body)).to.equal(202);
    }
    const client = await connect();
    // A server made fresh for every request can never tell a client that its list changed.
    expect(client.getServerCapabilities()?.tools?.listChanged).to.equal(undefined);
    const { tools } = await client.listTools();
    for (const t of tools) expect(t.outputSchema?.type, t.name).to.equal('object');
    const status = async (domain: string) => {
      // The SDK client validates structuredContent against the tool's outputSchema (it throws otherwise).
      const r = await client.callTool({ name: 'certificate_status', arguments: { domain } });
      expect(r.isError ?? false, JSON.stringify(r)).to.equal(false);
      expect(JSON.parse((r.content as any)[0].text)).to.deep.equal(r.structuredContent);
      return (r.structuredContent as any).certificate;
    };
    expect(await status('www.domivka-demo.dev')).to.not.equal(null);
    expect(await status('WWW.Domivka-Demo.dev')).to.not.equal(null);
    expect(await status('domivka-demo.dev')).to.equal(null);
    expect(await status('mail.domivka-demo.dev')).to.equal(null);
    expect(await status('a.wild.domivka-demo.dev')).to.not.equal(null);
    expect(await status('wild.domivka-demo.dev')).to.equal(null);
    expect(await status('a.b.wild.domivka-demo.dev')).to.equal(null);
    await client.close();
  });

  it('is in the OpenAPI document as a public POST /mcp', async () => {
    const doc = (await api.call('/v1/openapi.json')).body;
    const op = doc.paths['/mcp'].post;
    expect(op.operationId).to.equal('mcp');
    expect(op.security ?? []).to.deep.equal([]);
    // True to what the server sends: 202 without a body, refusals as JSON-RPC errors.
    expect(op.responses['202'].content).to.equal(undefined);
    for (const status of ['400', '422', '429']) {
      expect(op.responses[status].content['application/json'].schema, status).to.deep.equal({ $ref: '#/components/schemas/JsonRpcError' });
    }
    const note = await fetch(`${api.base}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    });
    expect(note.status).to.equal(202);
    expect(await note.text()).to.equal('');
    expect(note.headers.get('content-type')).to.equal(null);
  });
});

describe('MCP rate limit per client address', () => {
  it('a caller past its bucket gets HTTP 429 with a JSON-RPC error and Retry-After', async function () {
    this.timeout(60_000);
    const api = await startApi(STORES[0]!, { env: { RATE_LIMIT_ANON_BURST: '10', RATE_LIMIT_ANON_PER_SECOND: '1' } });
    try {
      const call = () =>
        fetch(`${api.base}/mcp`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
        });
      const statuses: number[] = [];
      let limited: Response | null = null;
      for (let i = 0; i < 14; i++) {
        const r = await call();
        statuses.push(r.status);
        if (r.status === 429) limited = r;
      }
      expect(
        statuses.slice(0, 10).every((s) => s === 200),
        statuses.join(','),
      ).to.equal(true);
      expect(limited, statuses.join(',')).to.not.equal(null);
      expect(Number(limited!.headers.get('retry-after'))).to.be.at.least(1);
      const body = (await limited!.json()) as any;
      expect(body).to.deep.include({ jsonrpc: '2.0', id: null });
      expect(body.error.data.code).to.equal('rate_limited');
    } finally {
      await api.close();
    }
  });
});

describe('MCP batches: every message costs a token, a batch is capped', () => {
  const post = (api: TestApi, body: unknown) =>
    fetch(`${api.base}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify(body),
    });
  const calls = (n: number, from = 0) =>
    Array.from({ length: n }, (_, i) => ({
      jsonrpc: '2.0',
      id: from + i,
      method: 'tools/call',
      params: { name: 'certificate_status', arguments: { domain: `batch-${from + i}.com.ua` } },
    }));

  it('a batch of N calls spends N tokens; past the bucket it is HTTP 429 with a JSON-RPC rate error, nothing run', async function () {
    this.timeout(60_000);
    const api = await startApi(STORES[0]!, { env: { RATE_LIMIT_ANON_BURST: '30', RATE_LIMIT_ANON_PER_SECOND: '1' } });
    try {
      const first = await post(api, calls(MCP_MAX_BATCH));
      expect(first.status).to.equal(200);
      expect(((await first.json()) as any[]).length).to.equal(MCP_MAX_BATCH);
      // 30 − 20 spent (a token or so may have come back since).
      expect(Number(first.headers.get('ratelimit-remaining'))).to.be.within(10, 11);
      const second = await post(api, calls(MCP_MAX_BATCH, 100));
      expect(second.status).to.equal(429);
      expect(Number(second.headers.get('retry-after'))).to.be.at.least(1);
      const body = (await second.json()) as any;
      expect(body).to.deep.include({ jsonrpc: '2.0', id: null });
      expect(body.error.code).to.equal(-32000);
      expect(body.error.data.code).to.equal('rate_limited');
      // A refused batch spent nothing: a single call still goes through.
      expect((await post(api, calls(1, 200)[0])).status).to.equal(200);
    } finally {
      await api.close();
    }
  });

  it('a batch over the cap is refused whole with a JSON-RPC error and spends no token', async function () {
    this.timeout(60_000);
    const api = await startApi(STORES[0]!, { env: { RATE_LIMIT_ANON_BURST: '100', RATE_LIMIT_ANON_PER_SECOND: '1' } });
    try {
      const r = await post(api, calls(MCP_MAX_BATCH + 1));
      expect(r.status).to.equal(422);
      const body = (await r.json()) as any;
      expect(body).to.deep.include({ jsonrpc: '2.0', id: null });
      expect(body.error.code).to.equal(-32600);
      expect(body.error.data.code).to.equal('validation_failed');
      expect(JSON.stringify(body)).to.not.contain('"result"');
      const next = await post(api, calls(1)[0]);
      expect(next.status).to.equal(200);
      expect(Number(next.headers.get('ratelimit-remaining'))).to.equal(99);
      // Not JSON at all: still a JSON-RPC error (parse error), not our error shape.
      const garbled = await fetch(`${api.base}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"jsonrpc":',
      });
      expect(garbled.status).to.equal(400);
      const g = (await garbled.json()) as any;
      expect(g.error.code).to.equal(-32700);
      expect(g.error.data.code).to.equal('malformed_json');
    } finally {
      await api.close();
    }
  });

  it('with MCP_ENVIRONMENT=live, batches reach the registry no more often than the bucket allows', async () => {
    let checks = 0;
    const tools = new McpTools(
      {
        search: async (_e, q) => {
          checks += 1;
          return { query: q, results: [] };
        },
        certificateStatus: async (domain) => ({ domain, certificate: null }),
      },
      { environment: 'live', version: 'test' },
    );
    const [mcp] = mcpRoutes(tools, { burst: 30, perSecond: 1 });
    const batch = Array.from({ length: MCP_MAX_BATCH }, (_, i) => ({
      jsonrpc: '2.0',
      id: i,
      method: 'tools/call',
      params: { name: 'check_domain_availability', arguments: { domain: `live-${i}.com.ua` } },
    }));
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await mcp!.handle({ params: {}, query: {}, body: batch, ip: '192.0.2.1' })).status);
    expect(statuses).to.deep.equal([200, 429, 429, 429, 429]);
    expect(checks).to.equal(MCP_MAX_BATCH);
  });
});
