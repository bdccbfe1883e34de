import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { isHumanOnly } from '../../adapters/http/route.js';
import { eachStore } from '../support/stores.js';
import { bearer, startApi, TEST_DATA_KEY_HEX, TEST_PEPPER_HEX, type TestApi } from '../support/system.js';

const ROOT = join(import.meta.dirname, '..', '..');

/**
 * DESIGN "Fixed names": `npm run sandbox:key` issues a test key for the demo account through the same
 * use case a human uses; with --json it prints exactly one JSON line; it exits non-zero with the
 * error's code and text when issuance is refused. It runs beside a live server on the same store.
 */
eachStore('npm run sandbox:key', (kind) => {
  let api: TestApi;
  before(async () => {
    api = await startApi(kind);
  });
  after(async () => api.close());

  const env = () => ({
    ...process.env,
    DATABASE_URL: api.store.url,
    ...(api.store.schema ? { DATABASE_SCHEMA: api.store.schema } : {}),
    KEY_PEPPER: TEST_PEPPER_HEX,
    DATA_KEY: TEST_DATA_KEY_HEX,
    LOG_LEVEL: 'warn',
  });
  const run = (args: string[], viaNpm = false) => {
    const r = viaNpm
      ? spawnSync('npm', ['run', '-s', 'sandbox:key', '--', ...args], { cwd: ROOT, env: env(), encoding: 'utf8' })
      : spawnSync(join(ROOT, 'node_modules', '.bin', 'tsx'), ['src/main/sandbox-key.ts', ...args], {
          cwd: ROOT,
          env: env(),
          encoding: 'utf8',
        });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  };
  const issue = (args: string[]) => {
    const r = run([...args, '--json']);
    expect(r.code, r.stderr).to.equal(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines).to.have.length(1);
    return JSON.parse(lines[0]!) as { id: string; key: string; summary: { uk: string; en: string } };
  };
  const read = (key: string, domain: string) => api.call(`/v1/domains/${domain}`, { headers: bearer(key) });

  it('--json prints one line {id, key, summary}; the key reads its domains and nothing else', async function () {
    this.timeout(60_000);
    const r = run(['--rights', 'domain.read', '--label', 'prod', '--json'], true);
    expect(r.code, r.stderr).to.equal(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines).to.have.length(1);
    const out = JSON.parse(lines[0]!);
    expect(Object.keys(out).sort()).to.deep.equal(['id', 'key', 'summary', 'tsig']);
    expect(out.tsig).to.equal(null); // no DNS right, no TSIG credential
    expect(out.key).to.match(/^dmk_test_/);
    expect(out.summary.en).to.contain('labelled "prod"');
    expect((await read(out.key, 'domivka-demo.com.ua')).status).to.equal(200);
    expect((await read(out.key, 'domivka-demo.dev')).status).to.equal(200);
    const outside = await read(out.key, 'domivka-blog.kyiv.ua');
    expect(outside.status).to.equal(403);
    expect(outside.body.error.code).to.equal('right_missing');
    for (const route of api.system.http().routes.filter(isHumanOnly)) {
      const res = await api.call(route.path.replace('{id}', out.id), {
        method: route.method,
        headers: bearer(out.key),
        ...(route.method === 'POST' ? { json: {} } : {}),
      });
      expect(res.status, `${route.method} ${route.path}`).to.equal(403);
      expect(res.body.error.code).to.equal('human_only');
    }
  });

  it('--domains and --cidr: refused outside the CIDR', async function () {
    this.timeout(30_000);
    const k = issue(['--rights', 'domain.read', '--domains', 'domivka-demo.dev', '--cidr', '10.20.0.0/16']);
    const r = await read(k.key, 'domivka-demo.dev');
    expect(r.status).to.equal(403);
    expect(r.body.error.code).to.equal('ip_not_allowed');
    const ok = issue(['--rights', 'domain.read', '--domains', 'domivka-demo.dev', '--cidr', '127.0.0.1/32']);
    expect((await read(ok.key, 'domivka-demo.dev')).status).to.equal(200);
  });

  it('--json with a DNS right carries the TSIG credential; --tsig-algorithm picks hmac-sha512', async function () {
    this.timeout(60_000);
    const k = issue(['--rights', 'dns.acme_challenge', '--domains', 'domivka-demo.dev']) as unknown as {
      tsig: { name: string; algorithm: string; secret: string };
    };
    expect(k.tsig.name).to.match(/^dmk-test-[0-9a-f]{20}$/);
    expect(k.tsig.algorithm).to.equal('hmac-sha256');
    expect(Buffer.from(k.tsig.secret, 'base64')).to.have.length(32);
    const k512 = issue(['--rights', 'dns.edit', '--domains', 'domivka-demo.dev', '--tsig-algorithm', 'hmac-sha512']) as unknown as typeof k;
    expect(k512.tsig.algorithm).to.equal('hmac-sha512');
    expect(Buffer.from(k512.tsig.secret, 'base64')).to.have.length(64);
  });

  it('--expires: refused after the expiry date', async function () {
    this.timeout(30_000);
    const k = issue([
      '--rights',
      'domain.read',
      '--domains',
      'domivka-demo.dev',
      '--expires',
      new Date(Date.now() + 86_400_000).toISOString().slice(0, 10),
    ]);
    expect((await read(k.key, 'domivka-demo.dev')).status).to.equal(200);
    const saved = api.clock.now();
    api.clock.advance(3 * 86_400_000);
    const r = await read(k.key, 'domivka-demo.dev');
    api.clock.set(saved);
    expect(r.status).to.equal(401);
    expect(r.body.error.code).to.equal('key_expired');
  });

  it('refused after revocation', async function () {
    this.timeout(30_000);
    const k = issue(['--rights', 'domain.read', '--domains', 'domivka-demo.dev']);
    expect((await read(k.key, 'domivka-demo.dev')).status).to.equal(200);
    const cookie = await api.signIn();
    expect((await api.call(`/v1/account/keys/${k.id}`, { method: 'DELETE', headers: { cookie } })).status).to.equal(200);
    const r = await read(k.key, 'domivka-demo.dev');
    expect(r.status).to.equal(401);
    expect(r.body.error.code).to.equal('key_revoked');
  });

  it('--spend-limit takes UAH with up to two decimals; without --expires the class cap applies', async function () {
    this.timeout(30_000);
    const k = issue(['--rights', 'domain.renew', '--label', 'prod', '--cidr', '127.0.0.0/8', '--spend-limit', '500.5']);
    const me = await api.call('/v1/key', { headers: bearer(k.key) });
    expect(me.body.conditions.spend_limit).to.deep.equal({ amount: 50050, currency: 'UAH' });
    const cap = new Date(Date.now() + 90 * 86_400_000);
    expect(Math.abs(new Date(me.body.conditions.expires_on).getTime() - cap.getTime())).to.be.below(2 * 86_400_000);
  });

  it('a refused issuance exits non-zero with the code and the uk+en text', async function () {
    this.timeout(90_000); // three runs of the CLI, each loading the system
    const r = run(['--rights', 'domain.renew', '--domains', 'a.com']);
    expect(r.code).to.equal(1);
    expect(r.stderr).to.contain('ip_restriction_required').and.contain('IP').and.contain('обмеження');
    const j = run(['--rights', 'domain.renew', '--domains', 'a.com', '--cidr', '10.0.0.0/8', '--json']);
    expect(j.code).to.equal(1);
    expect(JSON.parse(j.stdout.trim()).error.code).to.equal('spend_limit_required');
    const bad = run(['--rights', 'domain.read']);
    expect(bad.code).to.equal(1);
    expect(bad.stderr).to.contain('domains_required');
  });

  it('never re-seeds: the demo account stays the one the server created', async function () {
    this.timeout(30_000);
    issue(['--rights', 'billing.read']);
    const accounts = await api.system.store.knex('accounts').select('id');
    expect(accounts.map((a: { id: string }) => a.id)).to.deep.equal([api.demo.accountId]);
  });
});
