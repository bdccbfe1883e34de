import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ERROR_TABLE } from '../../adapters/http/error-table.js';
import { compile } from '../../adapters/http/validation.js';
import { RIGHT_NAMES } from '../../core/kernel/rights.js';
import { eachStore } from '../support/stores.js';
import { startApi, type TestApi } from '../support/system.js';

eachStore('OpenAPI 3.1 from the route declarations', (kind) => {
  let api: TestApi;
  let doc: any;
  before(async () => {
    api = await startApi(kind);
    const r = await api.call('/v1/openapi.json');
    expect(r.status).to.equal(200);
    doc = r.body;
  });
  after(async () => api.close());

  it('is public and lists every declared route with its operationId', () => {
    expect(doc.openapi).to.equal('3.1.0');
    for (const route of api.system.http().routes) {
      const op = doc.paths[route.path]?.[route.method.toLowerCase()];
      expect(op, `${route.method} ${route.path}`).to.be.an('object');
      expect(op.operationId).to.equal(route.id);
    }
  });

  it("every route's params, query and body schemas compile (the server compiles each on the route's first request)", () => {
    const schemas = api.system
      .http()
      .routes.flatMap((r) => [
        ...(r.params ? [{ id: `${r.id} params`, s: r.params, coerce: false }] : []),
        ...(r.query ? [{ id: `${r.id} query`, s: r.query, coerce: true }] : []),
        ...(r.body ? [{ id: `${r.id} body`, s: r.body, coerce: false }] : []),
      ]);
    expect(schemas.length).to.be.greaterThan(50);
    for (const { id, s, coerce } of schemas) expect(() => compile(s, coerce), id).not.to.throw();
  });

  it('uses the same schemas that validate requests', () => {
    const route = api.system.http().routes.find((r) => r.id === 'issueKey')!;
    expect(doc.paths['/v1/account/keys'].post.requestBody.content['application/json'].schema).to.deep.equal(route.body);
  });

  it('documents the error catalogue and marks human-only routes', () => {
    expect(doc.components.schemas.Error.properties.error.properties.code.enum).to.have.members(Object.keys(ERROR_TABLE));
    expect(doc.paths['/v1/account/keys'].get['x-human-only']).to.equal(true);
    expect(doc.paths['/v1/domains/{domain}'].get['x-right']).to.equal('domain.read');
    expect(Object.keys(doc.paths['/v1/domains/{domain}'].get.responses)).to.include.members(['200', '401', '403', '404', '429']);
  });

  it('every key route states its right: x-right names it, several (any one will do), or any-key', () => {
    const rightNames = new Set<string>(RIGHT_NAMES);
    const missing: string[] = [];
    for (const [path, ops] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(ops)) {
        if (!op.security?.some((s: Record<string, unknown>) => 'bearerKey' in s)) continue;
        const right = op['x-right'];
        const names = right === 'any-key' ? [] : typeof right === 'string' ? [right] : Array.isArray(right) ? right : [undefined];
        if (names.length === 0 && right !== 'any-key') missing.push(`${method.toUpperCase()} ${path}`);
        for (const n of names)
          if (!rightNames.has(n)) missing.push(`${method.toUpperCase()} ${path} (${op.operationId}): x-right ${JSON.stringify(right)}`);
      }
    }
    expect(missing, `key routes that state no right:\n${missing.join('\n')}`).to.deep.equal([]);
    expect(doc.paths['/v1/key'].get['x-right']).to.equal('any-key');
    expect(doc.paths['/v1/domains/{domain}/dns/acme-challenges'].post['x-right']).to.deep.equal(['dns.edit', 'dns.acme_challenge']);
  });

  it('passes the Redocly linter', function () {
    this.timeout(60_000);
    const dir = mkdtempSync(join(tmpdir(), 'openapi-'));
    const file = join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(doc));
    const root = join(import.meta.dirname, '..', '..');
    const r = spawnSync(join(root, 'node_modules', '.bin', 'redocly'), ['lint', file, '--config', join(root, '.redocly.yaml')], {
      encoding: 'utf8',
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    });
    const out = `${r.stdout}${r.stderr}`;
    expect(r.status, out).to.equal(0);
    expect(out).to.contain('Your API description is valid');
    expect(out, out).not.to.match(/You have \d+ warning/);
  });
});
