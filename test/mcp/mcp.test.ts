import { expect } from 'chai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
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
    expect((free.content as any)[0].text).to.match(/kvitka-mcp\.com\.ua is free: 400\.00 грн per year/);

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

  it('is in the OpenAPI document as a public POST /mcp', async () => {
    const doc = (await api.call('/v1/openapi.json')).body;
    const op = doc.paths['/mcp'].post;
    expect(op.operationId).to.equal('mcp');
    expect(op.security ?? []).to.deep.equal([]);
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
