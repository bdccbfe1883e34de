import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { randomUUID, X509Certificate, createPrivateKey, createPublicKey } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { promisify } from 'node:util';
import pino from 'pino';
import {
  CertificateAuthorityError,
  type CertificateAuthority,
  type IssueOrder,
} from '../../core/certificates/ports/certificate-authority.port.js';
import { encodeCursor } from '../../core/kernel/pagination.js';
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
const blog = 'domivka-blog.kyiv.ua';
const CYRILLIC = /[\u0400-\u04FF]/;

const pems = (bundle: string): string[] => bundle.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n?/g) ?? [];
const spki = (pem: string): Buffer => Buffer.from(createPublicKey(pem).export({ format: 'der', type: 'spki' }));
const leafSpki = (chain: string): Buffer =>
  Buffer.from(new X509Certificate(pems(chain)[0]!).publicKey.export({ format: 'der', type: 'spki' }));

/** An openssl CSR; `san` is the subjectAltName extension value (or none). */
const csrOf = async (opts: { cn: string; san?: string }): Promise<{ csr: string; key: string }> => {
  const dir = mkdtempSync(join(tmpdir(), 'hostile-csr-'));
  await run(
    'openssl',
    reqArgs({
      key: 'ec:P-256',
      keyout: join(dir, 'k.pem'),
      out: join(dir, 'r.pem'),
      subj: `/CN=${opts.cn}`,
      ...(opts.san ? { san: opts.san } : {}),
    }),
  );
  return { csr: readFileSync(join(dir, 'r.pem'), 'utf8'), key: readFileSync(join(dir, 'k.pem'), 'utf8') };
};

/** An error body carries a real uk and en message (also for 5xx codes, where expectErrorShape does not apply). */
const expectBilingual = (r: { status: number; body: any }, status: number, code: string): void => {
  const dump = JSON.stringify(r.body);
  expect(r.status, dump).to.equal(status);
  expect(r.body?.error?.code, dump).to.equal(code);
  expect(r.body.error.message.uk, dump).to.match(CYRILLIC);
  expect(r.body.error.message.en, dump).to.be.a('string').and.not.equal('');
  expect(dump).not.to.match(/\bat [\w.<>]+ \(|node_modules|\.ts:\d+|stack/);
};

eachStore('certificates, hostile review', (kind) => {
  let api: TestApi;
  let issuer: string; // certificates template on zone
  let clock: string; // sandbox_clock template: moving sandbox time is its own right
  let reader: string; // read_only on zone
  let otherIssuer: string; // certificates on other
  let bothIssuer: string; // certificates on zone + other
  let blogIssuer: string; // certificates on blog only
  const lines: string[] = [];

  /** CA fault injection and hooks. */
  const failNext = new Map<string, Error>();
  const caCalls = new Map<string, number>();
  const gates = new Map<string, Promise<void>>();
  let onIssue: ((order: IssueOrder) => void) | null = null;

  before(async () => {
    const sink = new Writable({
      write(chunk, _e, done) {
        lines.push(String(chunk));
        done();
      },
    });
    api = await startApi(kind, {
      dns: true,
      logger: pino({ level: 'trace' }, sink),
      wrapSandbox: (a) => ({
        ...a,
        ca: {
          kind: a.ca.kind,
          rootPem: () => a.ca.rootPem(),
          revoke: (pem, reason) => a.ca.revoke(pem, reason),
          issue: async (order) => {
            const key = [...order.names].sort().join(',');
            caCalls.set(key, (caCalls.get(key) ?? 0) + 1);
            onIssue?.(order);
            for (const n of order.names) {
              const g = gates.get(n);
              if (g) await g;
            }
            const name = order.names.find((n) => failNext.has(n));
            if (name) {
              const err = failNext.get(name)!;
              failNext.delete(name);
              throw err;
            }
            return a.ca.issue(order);
          },
        } satisfies CertificateAuthority,
      }),
    });
  });
  /** Tests move the clock far (renewals, expiry): keys and the session follow that clock, so each test gets fresh ones. */
  beforeEach(async () => {
    const cookie = await api.signIn();
    const k = (body: Record<string, unknown>) => api.issueKey(body, cookie).then((x) => x.secret);
    issuer = await k({ environment: 'test', template: 'certificates', domains: [zone] });
    clock = await k({ environment: 'test', template: 'sandbox_clock' });
    reader = await k({ environment: 'test', template: 'read_only', domains: [zone] });
    otherIssuer = await k({ environment: 'test', template: 'certificates', domains: [other] });
    bothIssuer = await k({ environment: 'test', template: 'certificates', domains: [zone, other] });
    blogIssuer = await k({ environment: 'test', template: 'certificates', domains: [blog] });
  });
  after(async () => api?.close());

  const post = (path: string, json: unknown, secret = issuer, key: string | null = randomUUID()) =>
    api.call(path, {
      method: 'POST',
      headers: { ...bearer(secret), ...(key ? { 'idempotency-key': key } : {}) },
      ...(json === undefined ? {} : { json }),
    });
  const postRaw = (path: string, body: string, secret = issuer) =>
    api.call(path, {
      method: 'POST',
      headers: { ...bearer(secret), 'idempotency-key': randomUUID(), 'content-type': 'application/json' },
      body,
    });
  const get = (path: string, secret = issuer) => api.call(path, { headers: bearer(secret) });
  const drain = () => api.system.get(TOKENS.IssuanceQueue).drain();
  const worker = () => new Worker(api.system).tick();
  const request = async (body: unknown, secret = issuer) => {
    const r = await post('/v1/certificates', body, secret);
    expect(r.status, JSON.stringify(r.body)).to.equal(202);
    await drain();
    return (await get(`/v1/certificates/${r.body.id}`, secret)).body;
  };
  const count = async () => Number((await api.system.store.knex('certificates').count({ n: '*' }))[0]!.n);

  // ───────────────────────── authorization ─────────────────────────

  describe('authorization', () => {
    it('a key scoped to another domain learns nothing: GET, chain, private key, revoke are 403 right_missing', async () => {
      const c = await request({ domains: [`authz.${zone}`] });
      expect(c.status).to.equal('issued');
      for (const p of ['', '/chain', '/private-key'])
        expectErrorShape(await get(`/v1/certificates/${c.id}${p}`, otherIssuer), 403, 'right_missing');
      expectErrorShape(await post(`/v1/certificates/${c.id}/revoke`, {}, otherIssuer), 403, 'right_missing');
      expect((await get(`/v1/certificates/${c.id}`)).body.status).to.equal('issued');
    });

    it('a certificate spanning two domains needs the right on both (issue, read, private key, list)', async () => {
      expectErrorShape(await post('/v1/certificates', { domains: [`a.${zone}`, `a.${other}`] }), 403, 'right_missing');
      const c = await request({ domains: [`span.${zone}`, `span.${other}`] }, bothIssuer);
      expect(c.status).to.equal('issued');
      expectErrorShape(await get(`/v1/certificates/${c.id}`), 403, 'right_missing');
      expectErrorShape(await get(`/v1/certificates/${c.id}/private-key`), 403, 'right_missing');
      expectErrorShape(await get(`/v1/certificates/${c.id}/private-key`, otherIssuer), 403, 'right_missing');
      expectErrorShape(await post(`/v1/certificates/${c.id}/revoke`, {}), 403, 'right_missing');
      const listed = await get('/v1/certificates?limit=200');
      expect(listed.body.data.map((x: any) => x.id)).not.to.include(c.id);
      const listedZone = await get(`/v1/certificates?limit=200&domain=${zone}`);
      expect(listedZone.body.data.map((x: any) => x.id)).not.to.include(c.id);
      expect((await get(`/v1/certificates/${c.id}/private-key`, bothIssuer)).status).to.equal(200);
    });

    it('read-only keys never get a private key, cannot revoke or request', async () => {
      const c = await request({ domains: [`ro.${zone}`] });
      expectErrorShape(await get(`/v1/certificates/${c.id}/private-key`, reader), 403, 'right_missing');
      expectErrorShape(await post(`/v1/certificates/${c.id}/revoke`, { reason: 1 }, reader), 403, 'right_missing');
      expectErrorShape(await post('/v1/certificates', { domains: [`ro2.${zone}`] }, reader), 403, 'right_missing');
      expect((await get(`/v1/certificates/${c.id}/chain`, reader)).status).to.equal(200);
    });

    it('a key holding only dns.acme_challenge cannot request or read certificates', async () => {
      const acme = (await api.issueKey({ environment: 'test', rights: ['dns.acme_challenge'], domains: [zone] })).secret;
      expectErrorShape(await post('/v1/certificates', { domains: [`acme.${zone}`] }, acme), 403, 'right_missing');
      expectErrorShape(await get('/v1/certificates', acme), 403, 'right_missing');
    });

    it("names under a domain that is not the account's, or a bare public suffix, are 403 right_missing, not 404 or 500", async () => {
      for (const name of ['www.example.com', 'com.ua', '*.com.ua', 'kyiv.ua', `www.${zone}.evil.com`]) {
        expectErrorShape(await post('/v1/certificates', { domains: [name] }), 403, 'right_missing');
      }
    });

    it('a live key sees no test certificate (404), and its list is empty', async () => {
      const c = await request({ domains: [`env.${zone}`] });
      const live = (await api.issueKey({ environment: 'live', template: 'certificates', domains: [zone] })).secret;
      // No live adapter set here: every live call is 503 environment_unavailable (uk + en), never the test certificate.
      for (const p of ['', '/chain', '/private-key'])
        expectBilingual(await get(`/v1/certificates/${c.id}${p}`, live), 503, 'environment_unavailable');
      expectBilingual(await post(`/v1/certificates/${c.id}/revoke`, {}, live), 503, 'environment_unavailable');
      expectBilingual(await get('/v1/certificates', live), 503, 'environment_unavailable');
      expectBilingual(await post('/v1/certificates', { domains: [`env.${zone}`] }, live), 503, 'environment_unavailable');
    });

    it("another account's certificate id is 404 certificate_not_found everywhere, and never listed", async () => {
      const c = await request({ domains: [`foreign.${zone}`] });
      const knex = api.system.store.knex;
      await knex('accounts').insert({ id: 'acc_foreign', name: 'Foreign', created_at: new Date().toISOString() }).onConflict('id').ignore();
      const row = await knex('certificates').where({ id: c.id }).first();
      const fid = `crt_foreign_${Date.now()}`;
      await knex('certificates').insert({ ...row, id: fid, account_id: 'acc_foreign', created_at: '2999-01-01T00:00:00.000Z' });
      await knex('certificate_domains').insert({
        certificate_id: fid,
        environment: 'test',
        domain: zone,
        created_at: '2999-01-01T00:00:00.000Z',
      });
      for (const p of ['', '/chain', '/private-key'])
        expectErrorShape(await get(`/v1/certificates/${fid}${p}`), 404, 'certificate_not_found');
      expectErrorShape(await post(`/v1/certificates/${fid}/revoke`, {}), 404, 'certificate_not_found');
      const l = await get('/v1/certificates?limit=200');
      expect(l.body.data.map((x: any) => x.id)).not.to.include(fid);
      await knex('certificate_domains').where({ certificate_id: fid }).del();
      await knex('certificates').where({ id: fid }).del();
    });
  });

  // ───────────────────────── names and bodies ─────────────────────────

  describe('names and bodies', () => {
    it('bad names are 422 validation_failed with every bad index, uk + en, nothing stored', async () => {
      const before = await count();
      const bad = [
        '*.',
        '*',
        '*.*.' + zone,
        `a.*.${zone}`,
        `x*.${zone}`,
        `*x.${zone}`,
        ' ',
        `-a.${zone}`,
        `a_b.${zone}`,
        `www..${zone}`,
        '.',
        `${'a'.repeat(64)}.${zone}`,
        '1.2.3.4',
        `http://${zone}`,
        `${zone}/x`,
      ];
      for (const name of bad) {
        const r = await post('/v1/certificates', { domains: [name] });
        expectErrorShape(r, 422, 'validation_failed');
      }
      const r = await post('/v1/certificates', { domains: [`ok.${zone}`, '*.', `b.*.${zone}`] });
      expectErrorShape(r, 422, 'validation_failed');
      expect(JSON.stringify(r.body)).to.contain('/body/domains/1').and.to.contain('/body/domains/2');
      expect(await count()).to.equal(before);
    });

    it('uppercase, one trailing dot, Unicode (IDN) and duplicates normalise to lower-case A-labels, deduplicated', async () => {
      const c = await request({ domains: [`WWW.Domivka-Demo.COM.UA.`, `www.${zone}`, `тест.${zone}`, `*.${zone.toUpperCase()}.`] });
      expect(c.domains).to.deep.equal([`www.${zone}`, `xn--e1aybc.${zone}`, `*.${zone}`]);
      expect(c.status).to.equal('issued');
      const sans = (new X509Certificate(pems((await get(`/v1/certificates/${c.id}/chain`)).body)[0]!).subjectAltName ?? '')
        .split(', ')
        .sort();
      expect(sans).to.deep.equal([`DNS:*.${zone}`, `DNS:www.${zone}`, `DNS:xn--e1aybc.${zone}`].sort());
    });

    it('a name with two trailing dots is not a host name (422)', async () => {
      expectErrorShape(await post('/v1/certificates', { domains: [`www.${zone}..`] }), 422, 'validation_failed');
    });

    it('a wildcard whose full name exceeds 253 characters is refused at once (422), not accepted and then failed by the CA', async () => {
      const base = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'e'.repeat(40)}.${zone}`;
      expect(base.length).to.equal(252);
      const r = await post('/v1/certificates', { domains: [`*.${base}`] });
      await drain();
      expectErrorShape(r, 422, 'validation_failed');
    });

    it('101 names are refused by the schema; 100 distinct names are issued', async () => {
      const many = Array.from({ length: 101 }, (_, i) => `n${i}.${zone}`);
      expectErrorShape(await post('/v1/certificates', { domains: many }), 422, 'validation_failed');
      const c = await request({ domains: many.slice(0, 100) });
      expect(c.status).to.equal('issued');
      expect(c.domains).to.have.length(100);
    });

    it('JSON type confusion and unknown fields are 422, never 500', async () => {
      const bodies: unknown[] = [
        { domains: `www.${zone}` },
        { domains: [123] },
        { domains: [null] },
        { domains: [[`www.${zone}`]] },
        { domains: [{}] },
        { domains: [`www.${zone}`], csr: 123 },
        { domains: [`www.${zone}`], csr: '' },
        { domains: [`www.${zone}`], auto_renew: 'yes' },
        { domains: [`www.${zone}`], auto_renew: null },
        { domains: [`www.${zone}`], extra: 1 },
        { domains: [`www.${zone}`], __proto__: { x: 1 }, constructor: 1 },
        {},
        [],
        null,
        'x',
        42,
        { domains: [''] },
        { domains: ['a'.repeat(301)] },
      ];
      for (const b of bodies) {
        const r = await post('/v1/certificates', b);
        expect(r.status, `${JSON.stringify(b)} → ${JSON.stringify(r.body)}`).to.be.within(400, 499);
        expectErrorShape(r);
      }
      for (const raw of [
        '{"domains":["www.domivka-demo.com.ua"]',
        '{"domains":["\\u0000.x"]}',
        '\u0000',
        '{"domains":["www.domivka-demo.com.ua"],"domains":1}',
      ]) {
        const r = await postRaw('/v1/certificates', raw);
        expect(r.status, `${raw} → ${JSON.stringify(r.body)}`).to.be.within(400, 499);
        expectErrorShape(r);
      }
    });

    it('revoke bodies: unknown reason codes, strings and extra fields are 422; revoking a pending/failed one is 409', async () => {
      const c = await request({ domains: [`rv.${zone}`] });
      for (const b of [{ reason: 2 }, { reason: '1' }, { reason: 1.5 }, { reason: -1 }, { reason: 1, why: 'x' }, [], 'x']) {
        expectErrorShape(await post(`/v1/certificates/${c.id}/revoke`, b), 422);
      }
      failNext.set(`rvfail.${zone}`, new CertificateAuthorityError('urn:ietf:params:acme:error:rejectedIdentifier: no', false));
      const f = await request({ domains: [`rvfail.${zone}`] });
      expect(f.status).to.equal('failed');
      expectErrorShape(await post(`/v1/certificates/${f.id}/revoke`, {}), 409, 'certificate_not_revocable');
      expect((await get(`/v1/certificates/${c.id}`)).body.status).to.equal('issued');
    });

    it('odd ids in the path are 404/422 with the error shape', async () => {
      for (const id of ['x', 'crt_' + 'a'.repeat(56), '%E2%80%AE', '..%2F..%2Fv1%2Faccount', "crt_' or 1=1--"]) {
        const r = await get(`/v1/certificates/${id}`);
        expect(r.status, `${id} ${JSON.stringify(r.body)}`).to.be.oneOf([404, 422]);
        expectErrorShape(r);
      }
      expectErrorShape(await get(`/v1/certificates/${'a'.repeat(61)}`), 422);
    });
  });

  // ───────────────────────── CSRs ─────────────────────────

  describe('CSRs', () => {
    it('a certificate, a private key, two CSRs, broken base64, garbage DER and > 64 KiB are refused with the error shape', async () => {
      const c = await request({ domains: [`csrsrc.${zone}`] });
      const chain = (await get(`/v1/certificates/${c.id}/chain`)).body as string;
      const { csr, key } = await csrOf({ cn: `csr.${zone}`, san: `DNS:csr.${zone}` });
      const cases: Array<[string, number, string]> = [
        [pems(chain)[0]!, 422, 'csr_invalid'],
        [key, 422, 'csr_invalid'],
        [csr + csr, 422, 'csr_invalid'],
        ['-----BEGIN CERTIFICATE REQUEST-----\nnot*base64\n-----END CERTIFICATE REQUEST-----', 422, 'csr_invalid'],
        ['-----BEGIN CERTIFICATE REQUEST-----\nAAAA\n-----END CERTIFICATE REQUEST-----', 422, 'csr_invalid'],
        ['-----BEGIN CERTIFICATE REQUEST-----\n' + 'A'.repeat(60_000) + '\n-----END CERTIFICATE REQUEST-----', 422, 'csr_invalid'],
        [
          '-----BEGIN CERTIFICATE REQUEST-----\n' +
            Buffer.from('x'.repeat(40_000)).toString('base64') +
            '\n-----END CERTIFICATE REQUEST-----',
          422,
          'csr_invalid',
        ],
        [csr + 'x'.repeat(65_536), 422, 'validation_failed'],
        ['-----BEGIN CERTIFICATE REQUEST-----\nMIIB\n', 422, 'csr_invalid'],
        [csr.replace('REQUEST-----\n', 'REQUEST-----\nProc-Type: 4,ENCRYPTED\n\n'), 422, 'csr_invalid'],
      ];
      for (const [pem, status, code] of cases) {
        expectErrorShape(await post('/v1/certificates', { domains: [`csr.${zone}`], csr: pem }), status, code);
      }
    });

    it('a CSR whose signature does not verify is csr_invalid', async () => {
      const { csr } = await csrOf({ cn: `sig.${zone}`, san: `DNS:sig.${zone}` });
      const der = Buffer.from(csr.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64');
      der[der.length - 5] = der[der.length - 5]! ^ 0x01; // inside the signature
      const bad = `-----BEGIN CERTIFICATE REQUEST-----\n${der
        .toString('base64')
        .match(/.{1,64}/g)!
        .join('\n')}\n-----END CERTIFICATE REQUEST-----\n`;
      expectErrorShape(await post('/v1/certificates', { domains: [`sig.${zone}`], csr: bad }), 422, 'csr_invalid');
    });

    it('a CSR with names in another case and CN not a host name works; the key never reaches us', async () => {
      const { csr, key } = await csrOf({ cn: 'My Server', san: `DNS:CASE.${zone.toUpperCase()},DNS:*.case.${zone}` });
      const c = await request({ domains: [`case.${zone}`, `*.case.${zone}`], csr });
      expect(c.status, JSON.stringify(c)).to.equal('issued');
      expect(c.private_key_held).to.equal(false);
      expect(leafSpki((await get(`/v1/certificates/${c.id}/chain`)).body).equals(spki(key))).to.equal(true);
      const row = await api.system.store.knex('certificates').where({ id: c.id }).first();
      expect(row.key_sealed).to.equal(null);
    });

    it('a CSR that names more than `domains` (an extra IP, e-mail or URI subjectAltName) is refused (names must be exactly domains)', async () => {
      for (const extra of ['IP:127.0.0.1', 'email:a@example.com', 'URI:https://evil.example/']) {
        const { csr } = await csrOf({ cn: `extra.${zone}`, san: `DNS:extra.${zone},${extra}` });
        const r = await post('/v1/certificates', { domains: [`extra.${zone}`], csr });
        await drain();
        expect(r.status, `${extra}: ${JSON.stringify(r.body)}`).to.equal(422);
        expectErrorShape(r);
      }
    });

    it("a CSR for names outside the key's scope is refused before the CSR is looked at (403)", async () => {
      const { csr } = await csrOf({ cn: `x.${other}`, san: `DNS:x.${other}` });
      expectErrorShape(await post('/v1/certificates', { domains: [`x.${other}`], csr }), 403, 'right_missing');
    });
  });

  // ───────────────────────── idempotency and concurrency ─────────────────────────

  describe('idempotency and concurrency', () => {
    it('Idempotency-Key: required, replay returns the same certificate, same key with another body is 422', async () => {
      expectErrorShape(await post('/v1/certificates', { domains: [`idem.${zone}`] }, issuer, null), 400, 'idempotency_key_required');
      const key = randomUUID();
      const a = await post('/v1/certificates', { domains: [`idem.${zone}`] }, issuer, key);
      await drain();
      const b = await post('/v1/certificates', { domains: [`idem.${zone}`] }, issuer, key);
      expect(b.status).to.equal(202);
      expect(b.headers.get('idempotent-replayed')).to.equal('true');
      expect(b.body.id).to.equal(a.body.id);
      expectErrorShape(await post('/v1/certificates', { domains: [`idem2.${zone}`] }, issuer, key), 422, 'idempotency_key_reused');
      // Another key may not replay this key's record.
      const c = await post('/v1/certificates', { domains: [`idem.${zone}`] }, bothIssuer, key);
      expect(c.status).to.equal(202);
      expect(c.body.id).not.to.equal(a.body.id);
      await drain();
    });

    it('20 parallel requests with one Idempotency-Key make one certificate', async () => {
      const key = randomUUID();
      const before = await count();
      const rs = await Promise.all(Array.from({ length: 20 }, () => post('/v1/certificates', { domains: [`par1.${zone}`] }, issuer, key)));
      await drain();
      for (const r of rs) expect(r.status, JSON.stringify(r.body)).to.be.oneOf([202, 409]);
      expect(new Set(rs.filter((r) => r.status === 202).map((r) => r.body.id)).size).to.equal(1);
      expect(await count()).to.equal(before + 1);
    });

    it('20 parallel requests on one zone (x and *.x each) are all issued, no 500, all proofs cleaned up', async () => {
      const rs = await Promise.all(
        Array.from({ length: 20 }, (_, i) => post('/v1/certificates', { domains: [`p${i}.${zone}`, `*.p${i}.${zone}`] })),
      );
      for (const r of rs) expect(r.status, JSON.stringify(r.body)).to.equal(202);
      await drain();
      const states = await Promise.all(rs.map(async (r) => (await get(`/v1/certificates/${r.body.id}`)).body));
      const errors = lines
        .filter((l) => l.includes('certificate issuance failed'))
        .map((l) => {
          const j = JSON.parse(l);
          return `${j.err?.type}: ${j.err?.message} ${JSON.stringify(j.err?.code ?? '')}`;
        });
      expect(
        states.map((s) => `${s.status}${s.failure ? ':' + s.failure.reason : ''}`),
        errors.join('\n'),
      ).to.deep.equal(Array(20).fill('issued'));
      const left = await get(`/v1/domains/${zone}/dns/records?limit=200`, reader);
      expect((left.body.data as any[]).filter((r) => String(r.name).startsWith('_acme-challenge'))).to.deep.equal([]);
    });

    it('two runners on one certificate: the lease lets only one call the CA', async () => {
      failNext.set(`lease.${zone}`, new CertificateAuthorityError('rate limited', true));
      const c = await request({ domains: [`lease.${zone}`] });
      expect(c.status).to.equal('pending');
      api.clock.advance(61_000);
      caCalls.delete(`lease.${zone}`);
      let release!: () => void;
      gates.set(`lease.${zone}`, new Promise<void>((r) => (release = r)));
      const issuance = api.system.get(TOKENS.CertificateIssuance);
      const runs = [issuance.process(c.id), issuance.process(c.id), issuance.run(), worker()];
      await new Promise((r) => setTimeout(r, 300));
      gates.delete(`lease.${zone}`);
      release();
      await Promise.all(runs);
      expect(caCalls.get(`lease.${zone}`)).to.equal(1);
      expect((await get(`/v1/certificates/${c.id}`)).body.status).to.equal('issued');
    });

    it('a revocation while a renewal is at the CA is not undone by the renewal', async () => {
      const c = await request({ domains: [`race.${zone}`] });
      api.clock.set(new Date(new Date(c.renew_after).getTime() + 1000));
      let release!: () => void;
      let started!: () => void;
      const atCa = new Promise<void>((r) => (started = r));
      onIssue = (o) => {
        if (o.names.includes(`race.${zone}`)) started();
      };
      gates.set(`race.${zone}`, new Promise<void>((r) => (release = r)));
      const tick = worker();
      try {
        await Promise.race([
          atCa,
          tick.then(() => {
            throw new Error('the worker did not renew it');
          }),
        ]);
        onIssue = null;
        const rv = await post(`/v1/certificates/${c.id}/revoke`, { reason: 1 });
        expect(rv.status, JSON.stringify(rv.body)).to.equal(200);
      } finally {
        onIssue = null;
        gates.delete(`race.${zone}`);
        release();
        await tick;
      }
      const after = (await get(`/v1/certificates/${c.id}`)).body;
      expect(after.status, 'the renewal overwrote the revocation').to.equal('revoked');
    });
  });

  // ───────────────────────── renewal and expiry on the clock ─────────────────────────

  describe('renewal and expiry', () => {
    it('auto_renew false: no renew_after, never renewed, expires at not_after with owners told', async () => {
      const c = await request({ domains: [`norenew.${zone}`], auto_renew: false });
      expect(c.auto_renew).to.equal(false);
      expect(c.renew_after).to.equal(null);
      caCalls.delete(`norenew.${zone}`);
      api.clock.set(new Date(new Date(c.not_after).getTime() - DAY));
      await worker();
      expect(caCalls.get(`norenew.${zone}`) ?? 0).to.equal(0);
      expect((await get(`/v1/certificates/${c.id}`)).body.status).to.equal('issued');
      api.clock.set(new Date(new Date(c.not_after).getTime() + 1000));
      await worker();
      expect((await get(`/v1/certificates/${c.id}`)).body.status).to.equal('expired');
      const n = await api.system.store.knex('notices').where({ kind: 'certificate_expired' });
      expect(n.some((x: any) => JSON.stringify(x).includes(c.id))).to.equal(true);
    });

    it("a CSR certificate is renewed with the same public key (the client's CSR is used again)", async () => {
      const { csr, key } = await csrOf({ cn: `csrrenew.${zone}`, san: `DNS:csrrenew.${zone}` });
      const c = await request({ domains: [`csrrenew.${zone}`], csr });
      api.clock.set(new Date(new Date(c.renew_after).getTime() + 1000));
      await worker();
      const r = (await get(`/v1/certificates/${c.id}`)).body;
      expect(r.serial).not.to.equal(c.serial);
      expect(r.private_key_held).to.equal(false);
      expect(leafSpki((await get(`/v1/certificates/${c.id}/chain`)).body).equals(spki(key))).to.equal(true);
    });

    it('one certificate whose run throws an unexpected error does not stop the pass for the others (nor keep them leased)', async () => {
      failNext.set(`booma.${zone}`, new CertificateAuthorityError('CA down', true));
      failNext.set(`boomb.${zone}`, new CertificateAuthorityError('CA down', true));
      const a = await request({ domains: [`booma.${zone}`] });
      const b = await request({ domains: [`boomb.${zone}`] });
      expect([a.status, b.status]).to.deep.equal(['pending', 'pending']);
      // The one claimed first (ids in order) throws something that is not a CA error.
      const [first, second] = [a, b].sort((x, y) => (x.id < y.id ? -1 : 1));
      failNext.set(first!.domains[0], new TypeError('fetch failed'));
      api.clock.advance(61_000);
      await worker();
      expect((await get(`/v1/certificates/${second!.id}`)).body.status, 'the second certificate was not worked on').to.equal('issued');
    });

    it("sandbox time travel: the certificate follows the account's sandbox clock (renewed by the worker, dated in sandbox time)", async () => {
      const c = await request({ domains: [`travel.${zone}`] });
      const adv = await post('/v1/sandbox/clock', { advance: 'P61D' }, clock);
      expect(adv.status, JSON.stringify(adv.body)).to.equal(200);
      await worker();
      const r = (await get(`/v1/certificates/${c.id}`)).body;
      expect(r.serial).not.to.equal(c.serial);
      expect(new Date(r.not_before).getTime()).to.be.greaterThan(new Date(c.not_before).getTime() + 60 * DAY);
    });

    it('sandbox time travel runs the certificates\' lifecycle at once (README: "runs its lifecycle at once")', async () => {
      const c = await request({ domains: [`travel2.${zone}`], auto_renew: false });
      const adv = await post('/v1/sandbox/clock', { advance: 'P91D' }, clock);
      expect(adv.status, JSON.stringify(adv.body)).to.equal(200);
      expect((await get(`/v1/certificates/${c.id}`)).body.status).to.equal('expired');
    });
  });

  // ───────────────────────── lists ─────────────────────────

  describe('lists', () => {
    it('cursor pages of 1..3 give every visible certificate exactly once, newest first, also with equal created_at and many invisible ones', async () => {
      api.clock.advance(DAY);
      // The clock stands still: equal created_at for all of these; the id must break the tie.
      const mine: string[] = [];
      for (let i = 0; i < 3; i++) mine.push((await request({ domains: [`pg${i}.${blog}`] }, blogIssuer)).id);
      for (let i = 0; i < 25; i++) await request({ domains: [`inv${i}.${zone}`] }); // invisible to blogIssuer
      mine.push((await request({ domains: [`pgz.${blog}`] }, blogIssuer)).id);
      const expected = (
        await api.system.store
          .knex('certificates')
          .whereIn('id', mine)
          .orderBy([
            { column: 'created_at', order: 'desc' },
            { column: 'id', order: 'desc' },
          ])
      ).map((r: any) => r.id);
      for (const limit of [1, 2, 3]) {
        const seen: string[] = [];
        let cursor: string | null = null;
        for (let guard = 0; guard < 100; guard++) {
          const p: any = await get(`/v1/certificates?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, blogIssuer);
          expect(p.status, JSON.stringify(p.body)).to.equal(200);
          expect(p.body.data.length).to.be.at.most(limit);
          seen.push(...p.body.data.map((c: any) => c.id));
          cursor = p.body.next_cursor;
          if (!cursor) break;
        }
        expect(cursor).to.equal(null);
        expect(seen, `limit ${limit}`).to.deep.equal(expected);
      }
    });

    it("?domain= filter: the registered domain, a covered host name, a wildcard, another key's domain", async () => {
      const c = await request({ domains: [`filter.${zone}`] });
      const byZone = await get(`/v1/certificates?limit=200&domain=${zone.toUpperCase()}.`);
      expect(byZone.status).to.equal(200);
      expect(byZone.body.data.map((x: any) => x.id)).to.include(c.id);
      expectErrorShape(await get(`/v1/certificates?domain=${other}`), 403, 'right_missing');
      expectErrorShape(await get('/v1/certificates?domain=*.x'), 422);
      // "Only certificates covering this domain": a host name the certificate names.
      const byHost = await get(`/v1/certificates?limit=200&domain=filter.${zone}`);
      expect(byHost.status, JSON.stringify(byHost.body)).to.equal(200);
      expect(byHost.body.data.map((x: any) => x.id)).to.include(c.id);
    });

    it('limits and forged cursors are 422, never 500', async () => {
      for (const q of [
        'limit=0',
        'limit=201',
        'limit=abc',
        'limit=1.5',
        'cursor=' + 'x'.repeat(501),
        'cursor=%00',
        'domain=' + 'a'.repeat(301),
      ]) {
        const r = await get(`/v1/certificates?${q}`);
        expect(r.status, `${q} ${JSON.stringify(r.body)}`).to.be.within(400, 499);
        expectErrorShape(r);
      }
      for (const forged of [
        encodeCursor('not-a-date|x'),
        encodeCursor(''),
        encodeCursor("'; drop table certificates; --|z"),
        Buffer.from('{"a":1}').toString('base64url'),
      ]) {
        const r = await get(`/v1/certificates?cursor=${forged}`);
        expect(r.status, `${forged} ${JSON.stringify(r.body)}`).to.be.oneOf([200, 422]);
        if (r.status !== 200) expectErrorShape(r, 422, 'cursor_invalid');
      }
      expect(await count()).to.be.greaterThan(0);
    });
  });

  // ───────────────────────── secrets ─────────────────────────

  describe('secrets', () => {
    it('no private key or sealed key in JSON, events, notices, idempotency records or logs; each key read is an event', async () => {
      const c = await request({ domains: [`secret.${zone}`] });
      const pk = await get(`/v1/certificates/${c.id}/private-key`);
      expect(pk.status).to.equal(200);
      expect(pk.headers.get('cache-control')).to.equal('no-store');
      expect(createPrivateKey(pk.body).asymmetricKeyDetails?.namedCurve).to.equal('prime256v1');
      const knex = api.system.store.knex;
      const row = await knex('certificates').where({ id: c.id }).first();
      expect(row.key_sealed).to.be.a('string').and.not.contain('PRIVATE KEY');
      const sealedBits = String(row.key_sealed).slice(-40);
      const b64 = pk.body
        .replace(/-----[^-]+-----/g, '')
        .replace(/\s+/g, '')
        .slice(20, 80);
      const haystacks = {
        json: JSON.stringify([(await get(`/v1/certificates/${c.id}`)).body, (await get('/v1/certificates?limit=200')).body]),
        events: JSON.stringify(await knex('events')),
        notices: JSON.stringify(await knex('notices')),
        idempotency: JSON.stringify(await knex('idempotency_records').catch(() => [])),
        logs: lines.join(''),
      };
      for (const [where, text] of Object.entries(haystacks)) {
        expect(text, where).not.to.contain('PRIVATE KEY');
        expect(text, where).not.to.contain(sealedBits);
        expect(text, where).not.to.contain(b64);
      }
      const reads = await knex('events').where({ type: 'certificate.private_key_read', subject: `certificate:${c.id}` });
      expect(reads).to.have.length(1);
    });

    it('a revocation the CA refuses is a 502 with uk + en text and leaves the certificate issued', async () => {
      const c = await request({ domains: [`rvca.${zone}`] });
      // A chain not from our sandbox CA makes the CA refuse.
      const foreign = await request({
        domains: [`rvca2.${zone}`],
        csr: (await csrOf({ cn: `rvca2.${zone}`, san: `DNS:rvca2.${zone}` })).csr,
      });
      await api.system.store
        .knex('certificates')
        .where({ id: c.id })
        .update({ chain_pem: (await get(`/v1/certificates/${foreign.id}/chain`)).body.replace(/MII/, 'MII') });
      const bogus = '-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUQ\n-----END CERTIFICATE-----\n';
      await api.system.store.knex('certificates').where({ id: c.id }).update({ chain_pem: bogus });
      const r = await post(`/v1/certificates/${c.id}/revoke`, {});
      expectBilingual(r, 502, 'certificate_authority_failed');
      expect((await get(`/v1/certificates/${c.id}`)).body.status).to.equal('issued');
    });
  });
});
