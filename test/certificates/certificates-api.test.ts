import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { randomUUID, X509Certificate, createPrivateKey, createPublicKey } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CertificateAuthorityError, type CertificateAuthority } from '../../core/certificates/ports/certificate-authority.port.js';
import { TOKENS } from '../../src/tokens.js';
import { Worker } from '../../src/worker.js';
import { expectErrorShape } from '../support/error-shape.js';
import { eachStore } from '../support/stores.js';
import { bearer, startApi, type TestApi } from '../support/system.js';
import { reqArgs } from '../support/openssl-req.js';

const run = promisify(execFile);
const DAY = 24 * 3600_000;
const zone = 'domivka-demo.com.ua';
const other = 'domivka-demo.dev';

/** Splits a PEM bundle into its certificates. */
const pems = (bundle: string): string[] => bundle.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n?/g) ?? [];

/** openssl verify of the leaf against `root` with the rest of the chain as untrusted intermediates. */
const verifyChain = async (chain: string, root: string): Promise<string> => {
  const dir = mkdtempSync(join(tmpdir(), 'chain-'));
  const [leaf, ...rest] = pems(chain);
  writeFileSync(join(dir, 'leaf.pem'), leaf!);
  writeFileSync(join(dir, 'inter.pem'), rest.join(''));
  writeFileSync(join(dir, 'root.pem'), root);
  const { stdout } = await run('openssl', [
    'verify',
    '-purpose',
    'sslserver',
    '-CAfile',
    join(dir, 'root.pem'),
    '-untrusted',
    join(dir, 'inter.pem'),
    join(dir, 'leaf.pem'),
  ]);
  return stdout.trim();
};

const sans = (pem: string): string[] =>
  (new X509Certificate(pem).subjectAltName ?? '')
    .split(', ')
    .map((s) => s.replace(/^DNS:/, ''))
    .sort();

/** Issue 5 through the API with the sandbox CA: request, issue, read, revoke, renew, expire. */
eachStore('certificates through the API (sandbox CA)', (kind) => {
  let api: TestApi;
  let issuer: string;
  let reader: string;
  let otherIssuer: string;
  /** Names whose next CA order fails as told (fault injection around the sandbox CA). */
  const failNext = new Map<string, { reason: string; retryable: boolean }>();

  before(async () => {
    api = await startApi(kind, {
      dns: true,
      // Fault injection around the sandbox CA: the next issue() fails as told.
      wrapSandbox: (a) => ({
        ...a,
        ca: {
          kind: a.ca.kind,
          rootPem: () => a.ca.rootPem(),
          revoke: (pem, reason) => a.ca.revoke(pem, reason),
          issue: async (order) => {
            const name = order.names.find((n) => failNext.has(n));
            if (name) {
              const f = failNext.get(name)!;
              failNext.delete(name);
              throw new CertificateAuthorityError(f.reason, f.retryable);
            }
            return a.ca.issue(order);
          },
        } satisfies CertificateAuthority,
      }),
    });
    issuer = (await api.issueKey({ environment: 'test', template: 'certificates', domains: [zone] })).secret;
    reader = (await api.issueKey({ environment: 'test', template: 'read_only', domains: [zone] })).secret;
    otherIssuer = (await api.issueKey({ environment: 'test', template: 'certificates', domains: [other] })).secret;
  });
  after(async () => api?.close());

  const post = (path: string, json: unknown, secret = issuer, key = randomUUID()) =>
    api.call(path, { method: 'POST', headers: { ...bearer(secret), 'idempotency-key': key }, json });
  const get = (path: string, secret = issuer) => api.call(path, { headers: bearer(secret) });
  const drain = () => api.system.get(TOKENS.IssuanceQueue).drain();
  const worker = () => new Worker(api.system).tick();
  const request = async (body: unknown, secret = issuer) => {
    const r = await post('/v1/certificates', body, secret);
    expect(r.status, JSON.stringify(r.body)).to.equal(202);
    await drain();
    return r.body;
  };

  it('issues x and *.x at once: 202 pending, then issued with a chain that verifies against the downloadable sandbox root', async () => {
    const r = await post('/v1/certificates', { domains: [`www.${zone}`, `*.${zone}`] });
    expect(r.status, JSON.stringify(r.body)).to.equal(202);
    expect(r.headers.get('location')).to.equal(`/v1/certificates/${r.body.id}`);
    expect(r.body).to.include({ status: 'pending', ca: 'sandbox', private_key_held: true, auto_renew: true });
    expect(r.body.domains).to.deep.equal([`www.${zone}`, `*.${zone}`]);
    await drain();
    const c = await get(`/v1/certificates/${r.body.id}`);
    expect(c.status).to.equal(200);
    expect(c.body.status).to.equal('issued');
    expect(c.body.issuer).to.match(/Domivka Sandbox/);
    expect(new Date(c.body.not_after).getTime() - new Date(c.body.not_before).getTime()).to.be.greaterThan(80 * DAY);
    expect(new Date(c.body.renew_after).getTime()).to.equal(new Date(c.body.not_after).getTime() - 30 * DAY);
    const chain = await get(`/v1/certificates/${r.body.id}/chain`);
    expect(chain.status).to.equal(200);
    expect(chain.headers.get('content-type')).to.match(/application\/x-pem-file/);
    expect(pems(chain.body)).to.have.length(2);
    expect(sans(pems(chain.body)[0]!)).to.deep.equal([`*.${zone}`, `www.${zone}`].sort());
    const root = await api.call('/v1/sandbox/ca.pem'); // public: no key
    expect(root.status).to.equal(200);
    expect(await verifyChain(chain.body, root.body)).to.match(/OK$/);
    // The key we generated matches the certificate, and only cert.issue keys get it.
    const key = await get(`/v1/certificates/${r.body.id}/private-key`);
    expect(key.status).to.equal(200);
    expect(key.headers.get('cache-control')).to.equal('no-store');
    const pub = createPublicKey(createPrivateKey(key.body)).export({ format: 'der', type: 'spki' });
    expect(
      Buffer.from(new X509Certificate(pems(chain.body)[0]!).publicKey.export({ format: 'der', type: 'spki' })).equals(Buffer.from(pub)),
    ).to.equal(true);
    expectErrorShape(await get(`/v1/certificates/${r.body.id}/private-key`, reader), 403, 'right_missing');
    // The read-only key sees the certificate and its chain.
    expect((await get(`/v1/certificates/${r.body.id}`, reader)).body.status).to.equal('issued');
    expect((await get(`/v1/certificates/${r.body.id}/chain`, reader)).status).to.equal(200);
  });

  it('a live key is refused with 503 environment_unavailable (no live CA configured)', async () => {
    const live = (await api.issueKey({ environment: 'live', template: 'certificates', domains: [zone] })).secret;
    const r = await post('/v1/certificates', { domains: [`www.${zone}`] }, live);
    expect(r.status).to.equal(503);
    expect(r.body.error.code).to.equal('environment_unavailable');
  });

  it('proved control through our own zone, by an internal actor, and left no challenge value behind', async () => {
    const events = await api.system.store
      .knex('events')
      .where({ type: 'dns.acme_challenge_added' })
      .andWhere('actor', 'like', 'system:certificates:%');
    expect(events.length).to.be.greaterThan(0);
    const records = await get(`/v1/domains/${zone}/dns/records?name=_acme-challenge.${zone}`, reader);
    expect(records.body.data).to.deep.equal([]);
  });

  it('with a CSR the private key never reaches us', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'csr-'));
    await run(
      'openssl',
      reqArgs({ key: 'rsa:2048', keyout: join(dir, 'k.pem'), out: join(dir, 'r.pem'), subj: `/CN=api.${zone}`, san: `DNS:api.${zone}` }),
    );
    const body = await request({ domains: [`api.${zone}`], csr: readFileSync(join(dir, 'r.pem'), 'utf8') });
    expect(body.private_key_held).to.equal(false);
    const c = await get(`/v1/certificates/${body.id}`);
    expect(c.body.status).to.equal('issued');
    const leaf = pems((await get(`/v1/certificates/${body.id}/chain`)).body)[0]!;
    const mine = createPublicKey(createPrivateKey(readFileSync(join(dir, 'k.pem')))).export({ format: 'der', type: 'spki' });
    expect(Buffer.from(new X509Certificate(leaf).publicKey.export({ format: 'der', type: 'spki' })).equals(Buffer.from(mine))).to.equal(
      true,
    );
    expectErrorShape(await get(`/v1/certificates/${body.id}/private-key`), 404, 'private_key_not_held');
  });

  it('refuses bad requests with the error shape and stores nothing', async () => {
    const before = (await api.system.store.knex('certificates').count({ n: '*' }))[0]!.n;
    expectErrorShape(await post('/v1/certificates', { domains: [`a.*.${zone}`] }), 422, 'validation_failed');
    expectErrorShape(await post('/v1/certificates', { domains: [] }), 422, 'validation_failed');
    expectErrorShape(await post('/v1/certificates', { domains: ['www.not-ours.com.ua'] }), 403, 'right_missing');
    expectErrorShape(await post('/v1/certificates', { domains: [`www.${other}`] }), 403, 'right_missing');
    expectErrorShape(await post('/v1/certificates', { domains: [`www.${zone}`], csr: 'not a csr' }), 422, 'csr_invalid');
    const dir = mkdtempSync(join(tmpdir(), 'csr-'));
    await run('openssl', reqArgs({ key: 'ec:P-256', keyout: join(dir, 'k.pem'), out: join(dir, 'r.pem'), subj: `/CN=mail.${zone}` }));
    const mismatch = await post('/v1/certificates', { domains: [`www.${zone}`], csr: readFileSync(join(dir, 'r.pem'), 'utf8') });
    expectErrorShape(mismatch, 422, 'csr_names_mismatch');
    expectErrorShape(await post('/v1/certificates', { domains: [`www.${zone}`] }, reader), 403, 'right_missing');
    const after = (await api.system.store.knex('certificates').count({ n: '*' }))[0]!.n;
    expect(Number(after)).to.equal(Number(before));
  });

  it('a replayed Idempotency-Key makes one certificate', async () => {
    const key = randomUUID();
    const a = await post('/v1/certificates', { domains: [`shop.${zone}`] }, issuer, key);
    const b = await post('/v1/certificates', { domains: [`shop.${zone}`] }, issuer, key);
    expect(b.body.id).to.equal(a.body.id);
    await drain();
    const n = await api.system.store
      .knex('certificates')
      .whereRaw('names like ?', [`%shop.${zone}%`])
      .count({ n: '*' });
    expect(Number(n[0]!.n)).to.equal(1);
  });

  it('lists only certificates whose domains the key may read, newest first, in cursor pages', async () => {
    const mine = await request({ domains: [`list.${other}`] }, otherIssuer);
    const seenByOther = await get('/v1/certificates', otherIssuer);
    expect(seenByOther.body.data.map((c: any) => c.id)).to.deep.equal([mine.id]);
    expectErrorShape(await get(`/v1/certificates/${mine.id}`, issuer), 403, 'right_missing');
    const all: string[] = [];
    let cursor: string | null = null;
    do {
      const p: any = await get(`/v1/certificates?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(p.status).to.equal(200);
      expect(p.body.data.length).to.be.at.most(2);
      all.push(...p.body.data.map((c: any) => c.id));
      cursor = p.body.next_cursor;
    } while (cursor);
    expect(all).to.not.include(mine.id);
    expect(new Set(all).size).to.equal(all.length);
    expect(all.length).to.be.at.least(3);
    const filtered = await get(`/v1/certificates?domain=${zone}`);
    expect(filtered.body.data.length).to.equal(all.length);
    expectErrorShape(await get('/v1/certificates?cursor=garbage'), 422, 'cursor_invalid');
    expectErrorShape(await get('/v1/certificates/crt_nope'), 404, 'certificate_not_found');
  });

  it('renews 30 days before expiry in place (same id, new serial and key), on the Clock port', async () => {
    const c = await request({ domains: [`renew.${zone}`] });
    const first = (await get(`/v1/certificates/${c.id}`)).body;
    const firstKey = (await get(`/v1/certificates/${c.id}/private-key`)).body;
    // 59 days on: not yet due.
    api.clock.advance(59 * DAY);
    await worker();
    expect((await get(`/v1/certificates/${c.id}`)).body.serial).to.equal(first.serial);
    api.clock.advance(2 * DAY);
    const report: any = (await worker()).certificates;
    expect(report.renewed).to.be.at.least(1);
    const renewed = (await get(`/v1/certificates/${c.id}`)).body;
    expect(renewed.status).to.equal('issued');
    expect(renewed.serial).to.not.equal(first.serial);
    expect(new Date(renewed.not_after).getTime()).to.be.greaterThan(new Date(first.not_after).getTime());
    expect((await get(`/v1/certificates/${c.id}/private-key`)).body).to.not.equal(firstKey);
    const attempts = await api.system.store.certificates.attempts(c.id, 10);
    expect(attempts.map((a) => `${a.kind}:${a.outcome}`)).to.deep.equal(['renew:issued', 'issue:issued']);
  });

  it('a failing renewal keeps the certificate, tells the owners once, retries, and the certificate expires if it never succeeds', async () => {
    const c = await request({ domains: [`fail.${zone}`] });
    const issued = (await get(`/v1/certificates/${c.id}`)).body;
    api.clock.set(new Date(new Date(issued.renew_after).getTime() + 1000));
    failNext.set(`fail.${zone}`, { reason: 'urn:ietf:params:acme:error:caa: CAA record forbids issuance', retryable: false });
    await worker();
    const after = (await get(`/v1/certificates/${c.id}`)).body;
    expect(after.status).to.equal('issued');
    expect(after.serial).to.equal(issued.serial);
    expect(after.failure.reason).to.match(/CAA/);
    const notices = await api.system.store.knex('notices').where({ kind: 'certificate_renewal_failed' });
    expect(notices.length).to.be.greaterThan(0);
    // Past expiry with the CA still refusing: expired.
    api.clock.set(new Date(new Date(issued.not_after).getTime() + 1000));
    failNext.set(`fail.${zone}`, { reason: 'still refused', retryable: false });
    await worker();
    expect((await get(`/v1/certificates/${c.id}`)).body.status).to.equal('expired');
    expect((await get(`/v1/certificates/${c.id}/chain`)).status).to.equal(200);
  });

  it('a retryable CA failure leaves the request pending with its reason; the worker issues it after the backoff', async () => {
    failNext.set(`retry.${zone}`, { reason: 'rate limited, retry later', retryable: true });
    const c = await request({ domains: [`retry.${zone}`] });
    const pending = (await get(`/v1/certificates/${c.id}`)).body;
    expect(pending.status).to.equal('pending');
    expect(pending.failure).to.include({ reason: 'rate limited, retry later', attempts: 1 });
    await worker(); // backoff not over
    expect((await get(`/v1/certificates/${c.id}`)).body.status).to.equal('pending');
    api.clock.advance(61_000);
    await worker();
    const done = (await get(`/v1/certificates/${c.id}`)).body;
    expect(done.status).to.equal('issued');
    expect(done.failure).to.equal(null);
  });

  it("a refusal fails the request with the CA's reason", async () => {
    failNext.set(`refused.${zone}`, { reason: 'urn:ietf:params:acme:error:rejectedIdentifier: policy forbids', retryable: false });
    const c = await request({ domains: [`refused.${zone}`] });
    const failed = (await get(`/v1/certificates/${c.id}`)).body;
    expect(failed.status).to.equal('failed');
    expect(failed.failure.reason).to.match(/rejectedIdentifier/);
    expectErrorShape(await get(`/v1/certificates/${c.id}/chain`), 409, 'certificate_not_ready');
  });

  it('revokes an issued certificate (cert.issue), once', async () => {
    const c = await request({ domains: [`revoke.${zone}`] });
    expectErrorShape(await post(`/v1/certificates/${c.id}/revoke`, {}, reader), 403, 'right_missing');
    const r = await post(`/v1/certificates/${c.id}/revoke`, { reason: 4 });
    expect(r.status, JSON.stringify(r.body)).to.equal(200);
    expect(r.body.status).to.equal('revoked');
    expect(r.body.revoked_at).to.be.a('string');
    expect((await post(`/v1/certificates/${c.id}/revoke`, {})).body.status).to.equal('revoked');
    const failedOne = await api.system.store.knex('certificates').where({ status: 'failed' }).first();
    expectErrorShape(await post(`/v1/certificates/${failedOne.id}/revoke`, {}), 409, 'certificate_not_revocable');
  });

  it('the per-domain status query tells the latest certificate and nothing about the account', async () => {
    // By a name the certificates cover (www.<zone>, issued above), not by the registered domain.
    const status = await api.system.get(TOKENS.CertificateStatusQuery).forDomain(`www.${zone}`, 'test');
    expect(status.domain).to.equal(`www.${zone}`);
    expect(Object.keys(status.certificate!).sort()).to.deep.equal(['covers_wildcard', 'issuer', 'not_after', 'not_before', 'status']);
    expect((await api.system.get(TOKENS.CertificateStatusQuery).forDomain('nothing-here.com.ua', 'test')).certificate).to.equal(null);
  });
});
