import { expect } from 'chai';
import { expectErrorShape } from '../support/error-shape.js';
import { request } from 'node:http';
import { generate } from 'otplib';
import { eachStore } from '../support/stores.js';
import { startApi, type TestApi } from '../support/system.js';

eachStore('Sign-in: e-mail + password (argon2id) + TOTP, session cookie', (kind) => {
  let api: TestApi;
  before(async () => {
    api = await startApi(kind);
  });
  after(async () => api.close());

  const code = async (at = api.clock.now()) => generate({ secret: api.demo.totpSecret, epoch: Math.floor(at.getTime() / 1000) });
  const signIn = async (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    api.call('/v1/account/sessions', { method: 'POST', headers, json: body });

  it('succeeds with all three factors; the cookie is HttpOnly, SameSite=Strict, not Secure on localhost', async () => {
    api.clock.advance(31_000);
    const r = await signIn({ email: api.demo.email, password: api.demo.password, totp: await code() });
    expect(r.status, JSON.stringify(r.body)).to.equal(201);
    const cookie = r.headers.getSetCookie()[0]!;
    expect(cookie)
      .to.match(/^dmk_session=[0-9A-Za-z]{43};/)
      .and.contain('HttpOnly')
      .and.contain('SameSite=Strict')
      .and.contain('Path=/');
    expect(cookie).not.to.contain('Secure');
    expect(r.body.person).to.include({ email: api.demo.email, role: 'owner' });
    const me = await api.call('/v1/account', { headers: { cookie: cookie.split(';')[0]! } });
    expect(me.status).to.equal(200);
    expect(me.body.person.last_sign_in_at).to.equal(api.clock.now().toISOString());
  });

  it('marks the cookie Secure when served under another host name', async () => {
    api.clock.advance(31_000);
    // fetch() may not set Host, so this one goes through node:http.
    const body = JSON.stringify({ email: api.demo.email, password: api.demo.password, totp: await code() });
    const setCookie = await new Promise<string[]>((resolve, reject) => {
      const req = request(
        `${api.base}/v1/account/sessions`,
        {
          method: 'POST',
          headers: { host: 'api.domivka.net', 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          res.resume();
          expect(res.statusCode).to.equal(201);
          resolve(res.headers['set-cookie'] ?? []);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
    expect(setCookie[0]).to.contain('Secure');
  });

  it('stores only hashes: the password as argon2id, the session token as SHA-256', async () => {
    const person = await api.system.store.knex('people').where({ email: api.demo.email }).first();
    expect(person.password_hash).to.match(/^\$argon2id\$/);
    const sessions = await api.system.store.knex('sessions').select('token_hash');
    for (const s of sessions) expect(s.token_hash).to.match(/^[0-9a-f]{64}$/);
  });

  it('one answer for a wrong password, a wrong code, an unknown e-mail', async () => {
    api.clock.advance(31_000);
    const good = await code();
    for (const body of [
      { email: api.demo.email, password: 'wrong', totp: good },
      { email: api.demo.email, password: api.demo.password, totp: '000000' === good ? '111111' : '000000' },
      { email: 'nobody@example.com', password: api.demo.password, totp: good },
      { email: api.demo.email, password: api.demo.password, totp: 'abc' },
    ]) {
      const r = await signIn(body);
      expect(r.status).to.equal(401);
      expect(r.body.error.code).to.equal('sign_in_failed');
      expect(r.headers.getSetCookie()).to.deep.equal([]);
    }
  });

  it('a TOTP code is never accepted twice (RFC 6238 §5.2)', async () => {
    api.clock.advance(31_000);
    const c = await code();
    expect((await signIn({ email: api.demo.email, password: api.demo.password, totp: c })).status).to.equal(201);
    const again = await signIn({ email: api.demo.email, password: api.demo.password, totp: c });
    expectErrorShape(again, 401, 'sign_in_failed');
  });

  it('two concurrent sign-ins with one code: only one gets a session (RFC 6238 §5.2)', async () => {
    api.clock.advance(31_000);
    const c = await code();
    const body = { email: api.demo.email, password: api.demo.password, totp: c };
    const rs = await Promise.all([signIn(body), signIn(body), signIn(body)]);
    expect(rs.map((r) => r.status).sort()).to.deep.equal([201, 401, 401]);
    expect(rs.filter((r) => r.status === 401).map((r) => r.body.error.code)).to.deep.equal(['sign_in_failed', 'sign_in_failed']);
  });

  it('missing fields are 422 validation_failed', async () => {
    const r = await signIn({ email: api.demo.email });
    expect(r.status).to.equal(422);
    expect(r.body.error.code).to.equal('validation_failed');
    expect(r.body.error.details.map((d: any) => d.rule)).to.include('required');
  });

  it('the session expires after 12 hours; signing out ends it at once', async () => {
    const cookie = await api.signIn();
    expect((await api.call('/v1/account', { headers: { cookie } })).status).to.equal(200);
    const out = await api.call('/v1/account/sessions/current', { method: 'DELETE', headers: { cookie } });
    expect(out.status).to.equal(204);
    expect(out.headers.getSetCookie()[0]).to.contain('Max-Age=0');
    const after = await api.call('/v1/account', { headers: { cookie } });
    expect(after.status).to.equal(401);
    expect(after.body.error.code).to.equal('session_required');
    const c2 = await api.signIn();
    api.clock.advance(12 * 60 * 60 * 1000 + 1);
    expect((await api.call('/v1/account', { headers: { cookie: c2 } })).body.error.code).to.equal('session_required');
  });

  it('human routes without a session are 401 session_required', async () => {
    const r = await api.call('/v1/account/keys');
    expect(r.status).to.equal(401);
    expect(r.body.error.code).to.equal('session_required');
    expect(r.body.error.actions[0]).to.deep.equal({ type: 'sign_in', href: '/v1/account/sessions' });
  });
});

eachStore('COOKIE_SECURE=true', (kind) => {
  let api: TestApi;
  before(async () => {
    api = await startApi(kind, { env: { COOKIE_SECURE: 'true' } });
  });
  after(async () => api.close());

  it('marks the session cookie Secure even on localhost (behind a TLS proxy)', async () => {
    api.clock.advance(31_000);
    const totp = await generate({ secret: api.demo.totpSecret, epoch: Math.floor(api.clock.now().getTime() / 1000) });
    const r = await api.call('/v1/account/sessions', {
      method: 'POST',
      json: { email: api.demo.email, password: api.demo.password, totp },
    });
    expect(r.headers.getSetCookie()[0]).to.contain('Secure');
  });
});
