import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { TOKENS } from '../../src/tokens.js';
import { eachStore } from '../support/stores.js';
import { bearer, startApi, type TestApi } from '../support/system.js';
import { expectErrorShape, type Res } from '../support/error-shape.js';
import { secondAccount as anotherAccount } from './support/second-account.js';

/**
 * Hostile tests for the money and DNS endpoints: weird bodies, cross-account and
 * cross-zone references, races. Every refusal must be the seed's error shape with uk and en text, never
 * a 500 or a stack, and a refused request must change nothing stored (balances, ledger, zone serials).
 */

const CYRILLIC = /[\u0400-\u04FF]/;

const ENV = { RATE_LIMIT_BURST: '100000', RATE_LIMIT_ANON_BURST: '100000' };
const SHOP = 'domivka-demo.com.ua';
const DEV = 'domivka-demo.dev';
const CIDR = { cidr: '127.0.0.0/8', spend_limit: { amount: 5_000_000, currency: 'UAH' } };

/** A second account (hostile support) whose owner is signed in. */
const secondAccount = async (api: TestApi, domain: string) => {
  const b = await anotherAccount(api, domain);
  return { accountId: b.accountId, cookie: await api.signIn({ email: b.email, password: b.password, totpSecret: b.totpSecret }) };
};

const snapshot = async (api: TestApi, accountId: string) => {
  const s = api.system.store;
  const ledger = await s.knex('ledger_entries').where({ account_id: accountId }).orderBy('id');
  const domains = await s.knex('domains').where({ account_id: accountId }).orderBy('name').select('name', 'expires_on', 'environment');
  const topups = await s.knex('topups').where({ account_id: accountId }).orderBy('id');
  return {
    balance: await s.wallets.balance(accountId, 'test'),
    liveBalance: await s.wallets.balance(accountId, 'live'),
    ledger: ledger.map((e: any) => `${e.id}:${e.status}:${e.amount}`),
    domains: domains.map((d: any) => `${d.environment}:${d.name}:${String(d.expires_on)}`),
    topups: topups.map((t: any) => `${t.id}:${t.status}`),
  };
};

eachStore('Hostile: money endpoints', (kind) => {
  let api: TestApi;
  let reg: { id: string; secret: string };
  let reg2: { id: string; secret: string };
  let renew: { id: string; secret: string };
  let topup: { id: string; secret: string };
  let b: { accountId: string; cookie: string };
  before(async () => {
    api = await startApi(kind, { env: ENV });
    reg = await api.issueKey({
      environment: 'test',
      rights: ['domain.register', 'domain.read', 'billing.read'],
      label: 'shop',
      conditions: CIDR,
    });
    reg2 = await api.issueKey({ environment: 'test', rights: ['domain.register', 'domain.read'], label: 'blog', conditions: CIDR });
    renew = await api.issueKey({ environment: 'test', rights: ['domain.renew', 'domain.read'], domains: [DEV], conditions: CIDR });
    topup = await api.issueKey({ environment: 'test', rights: ['billing.topup'], conditions: CIDR });
    b = await secondAccount(api, 'bee-account.com.ua');
  });
  after(async () => api?.close());

  const post = (path: string, json: unknown, secret: string, idem = randomUUID()) =>
    api.call(path, { method: 'POST', headers: { ...bearer(secret), 'idempotency-key': idem }, json });
  const unchanged = async <T>(fn: () => Promise<T>, accountId = api.demo.accountId): Promise<T> => {
    const before = await snapshot(api, accountId);
    const out = await fn();
    expect(await snapshot(api, accountId)).to.deep.equal(before);
    return out;
  };

  it('years 0 / 11 / 1.5 / "1" / -1 / null / 1e300 / true / [] on registration: 422 validation_failed, nothing charged', async () => {
    for (const years of [0, 11, 1.5, '1', -1, null, 1e300, true, [], {}]) {
      const r = await unchanged(() => post('/v1/domains', { domain: 'weird-years.com.ua', years }, reg.secret));
      expectErrorShape(r, 422, 'validation_failed');
    }
    const r = await unchanged(() => post('/v1/domains', { domain: 'weird-years.com.ua' }, reg.secret));
    expectErrorShape(r, 422, 'validation_failed');
  });

  it('extra fields, a non-object body, a non-string domain: 422, nothing charged', async () => {
    for (const body of [
      { domain: 'extra-field.com.ua', years: 1, price: 1 },
      { domain: 'extra-field.com.ua', years: 1, account_id: b.accountId },
      { domain: 123, years: 1 },
      { domain: ['extra-field.com.ua'], years: 1 },
      { domain: '', years: 1 },
      { domain: 'x'.repeat(254), years: 1 },
      [{ domain: 'extra-field.com.ua', years: 1 }],
      'extra-field.com.ua',
      null,
    ]) {
      const r = await unchanged(() => post('/v1/domains', body, reg.secret));
      expectErrorShape(r);
      expect(r.status, JSON.stringify(body)).to.be.oneOf([400, 422]);
    }
  });

  it('domains with path chars, spaces, NUL, empty labels, 64-char labels, a bare TLD: a clean 4xx, nothing charged', async () => {
    for (const domain of [
      'a/b.com.ua',
      '../etc.com.ua',
      'x.com.ua/../../v1',
      'x.com.ua?x=1',
      'x.com.ua#f',
      'x%2ecom.ua',
      'x\\y.com.ua',
      'x y.com.ua',
      'x\u0000.com.ua',
      'a..com.ua',
      '.com.ua',
      'com.ua',
      'ua',
      `${'a'.repeat(64)}.com.ua`,
      '-lead.com.ua',
      'trail-.com.ua',
      'user@x.com.ua',
      'x.com.ua:443',
      '*.com.ua',
      'x.com.ua..',
      ' ',
      '\u200b.com.ua',
      'xn--.com.ua',
      'example.123',
    ]) {
      const r = await unchanged(() => post('/v1/domains', { domain, years: 1 }, reg.secret));
      expectErrorShape(r);
      expect(r.body.error.code, domain).to.be.oneOf(['domain_invalid', 'validation_failed', 'tld_not_supported', 'right_missing']);
    }
  });

  it('a TLD off the price list is 422 tld_not_supported, nothing charged', async () => {
    const r = await unchanged(() => post('/v1/domains', { domain: 'nope-tld.example', years: 1 }, reg.secret));
    expectErrorShape(r, undefined, 'tld_not_supported');
  });

  it('UPPER case and a trailing dot are the same name: the second is 409 domain_already_yours, charged once', async () => {
    const before = await api.system.store.wallets.balance(api.demo.accountId, 'test');
    const first = await post('/v1/domains', { domain: 'Mixed-CASE.Com.Ua.', years: 1 }, reg.secret);
    expect(first.status, JSON.stringify(first.body)).to.equal(201);
    expect(first.body.domain).to.equal('mixed-case.com.ua');
    expect(first.headers.get('location')).to.equal('/v1/domains/mixed-case.com.ua');
    for (const again of ['mixed-case.com.ua', 'MIXED-CASE.COM.UA', 'mixed-case.com.ua.', ' mixed-case.com.ua ']) {
      const r = await unchanged(() => post('/v1/domains', { domain: again, years: 1 }, reg.secret));
      expectErrorShape(r, 409, 'domain_already_yours');
    }
    expect(await api.system.store.wallets.balance(api.demo.accountId, 'test')).to.equal(before - 40_000);
    const entries = await api.system.store.knex('ledger_entries').where({ domain: 'mixed-case.com.ua' });
    expect(entries.map((e: any) => e.status)).to.deep.equal(['posted']);
  });

  it('an IDN in Unicode is stored as its A-label, and the punycode form is then the same name', async () => {
    const first = await post('/v1/domains', { domain: 'тест-хостайл.com.ua', years: 1 }, reg.secret);
    expect(first.status, JSON.stringify(first.body)).to.equal(201);
    expect(first.body.domain).to.match(/^xn--/);
    const r = await unchanged(() => post('/v1/domains', { domain: first.body.domain, years: 1 }, reg.secret));
    expectErrorShape(r, 409, 'domain_already_yours');
  });

  it('a name another account holds is 409 domain_taken for this account (nothing leaks, nothing charged)', async () => {
    const bKey = await api.issueKey({ environment: 'test', rights: ['domain.register'], label: 'prod', conditions: CIDR }, b.cookie);
    for (const domain of [DEV, SHOP, 'DOMIVKA-DEMO.DEV.']) {
      const r = await unchanged(() => post('/v1/domains', { domain, years: 1 }, bKey.secret), b.accountId);
      expectErrorShape(r, 409, 'domain_taken');
      expect(JSON.stringify(r.body)).not.to.contain(api.demo.accountId);
    }
    // And the demo account's view of those domains did not move.
    const d = await api.call(`/v1/domains/${DEV}`, { headers: bearer(renew.secret) });
    expect(d.status).to.equal(200);
  });

  // A label-scoped key must not learn about names outside its label (domains.test: 403, not 404), so 403 right_missing is fine here.
  it('a label-scoped key re-registering a name of its own account outside its label: clean 403/409, nothing charged, labels unchanged', async () => {
    const labelsBefore = await api.system.store.knex('domain_labels').orderBy(['domain_id', 'label']);
    for (const domain of [SHOP, DEV, 'domivka-blog.kyiv.ua']) {
      const r = await unchanged(() => post('/v1/domains', { domain, years: 1 }, reg2.secret));
      expectErrorShape(r);
      expect(r.body.error.code).to.be.oneOf(['domain_already_yours', 'domain_taken', 'right_missing']);
    }
    expect(await api.system.store.knex('domain_labels').orderBy(['domain_id', 'label'])).to.deep.equal(labelsBefore);
  });

  it('a live key cannot register into, or see, the test namespace (clean answer, no test money moves)', async () => {
    const live = await api.issueKey({ environment: 'live', rights: ['domain.register', 'domain.read'], label: 'shop', conditions: CIDR });
    const r = await unchanged(() => post('/v1/domains', { domain: 'mixed-case.com.ua', years: 1 }, live.secret));
    expect(r.status, JSON.stringify(r.body)).to.not.equal(201);
    expect(r.status, JSON.stringify(r.body)).to.not.equal(500);
    if (r.status < 500) expectErrorShape(r);
    else expect(r.body.error.code).to.be.a('string');
    expect(r.body.error.code).not.to.equal('domain_already_yours');
  });

  // BUG (Postgres, intermittent, ~1 run in 2): same root cause as the two-accounts race below — within ONE account,
  // two keys POSTing the same new name at once can give 201 + 500 internal_error (unique violation
  // "domains_environment_name_unique" on the domains insert) instead of 201 + 409, with the loser's ledger entry
  // left `pending` (balance held twice). See the two-accounts test for the suspected lines.
  it('the same new name from two keys (same label) at once, x5: exactly one 201, the other 409, charged exactly once', async () => {
    const twin = await api.issueKey({ environment: 'test', rights: ['domain.register', 'domain.read'], label: 'shop', conditions: CIDR });
    for (let i = 0; i < 5; i++) {
      const before = await api.system.store.wallets.balance(api.demo.accountId, 'test');
      const name = `race-hostile-${i}.com.ua`;
      const [x, y] = await Promise.all([
        post('/v1/domains', { domain: name, years: 1 }, reg.secret),
        post('/v1/domains', { domain: name, years: 1 }, twin.secret),
      ]);
      expect([x.status, y.status].sort(), JSON.stringify([x.body, y.body])).to.deep.equal([201, 409]);
      const loser = x.status === 409 ? x : y;
      expectErrorShape(loser, 409);
      expect(loser.body.error.code).to.be.oneOf(['domain_taken', 'domain_already_yours']);
      const entries = await api.system.store.knex('ledger_entries').where({ domain: name });
      expect(entries.filter((e: any) => e.status === 'posted')).to.have.length(1);
      expect(entries.filter((e: any) => e.status === 'pending')).to.have.length(0);
      expect(await api.system.store.wallets.balance(api.demo.accountId, 'test')).to.equal(before - 40_000);
      expect(await api.system.store.knex('domains').where({ name })).to.have.length(1);
    }
    expect(await api.system.store.wallets.balance(api.demo.accountId, 'test')).to.equal(
      await api.system.store.ledger.sum(api.demo.accountId, 'test'),
    );
  });

  // Regression guard (was a bug found by the hostile pass): same race as above (the 500 path can hit this one too); kept skipped so the file stays green.
  it('the same new name from keys of two different labels at once: one 201, the other a clean 409 or 403 (the name is now outside its label), charged once', async () => {
    const before = await api.system.store.wallets.balance(api.demo.accountId, 'test');
    const name = 'race-labels.com.ua';
    const [x, y] = await Promise.all([
      post('/v1/domains', { domain: name, years: 1 }, reg.secret),
      post('/v1/domains', { domain: name, years: 1 }, reg2.secret),
    ]);
    const ok = [x, y].filter((r) => r.status === 201);
    const lost = [x, y].filter((r) => r.status !== 201);
    expect(ok, JSON.stringify([x.body, y.body])).to.have.length(1);
    expectErrorShape(lost[0]!);
    expect(lost[0]!.body.error.code).to.be.oneOf(['domain_taken', 'domain_already_yours', 'right_missing']);
    expect(await api.system.store.wallets.balance(api.demo.accountId, 'test')).to.equal(before - 40_000);
    const entries = await api.system.store.knex('ledger_entries').where({ domain: name });
    expect(entries.filter((e: any) => e.status !== 'voided')).to.have.length(1);
  });

  // BUG (Postgres; SQLite serialises writers so it does not show): two accounts POST /v1/domains
  // {"domain":"race-two-accounts-N.com.ua","years":1} at the same moment. In about 1 race in 3 the loser gets
  // 500 internal_error (log: duplicate key value violates unique constraint "domains_environment_name_unique") and its
  // ledger entry stays `pending`, so 400.00 UAH stays held from the loser's balance for a domain it does not own;
  // a retry with the same Idempotency-Key resumes at 'reserved' and hits the same constraint again. Expected: exactly
  // one 201, the other 409 domain_taken, the loser's charge voided. Suspected: adapters/registrar/sandbox/sandbox.adapter.ts
  // register() (~l.53-69) is check-then-put, not atomic, so both calls "succeed" at the registry; and
  // core/domains/register-domain.use-case.ts commit phase (~l.83-90, `this.domains.insert`) does not turn the unique
  // violation into domain_taken + void of the reservation.
  it('the same new name from two accounts at once, x8: exactly one 201, the other 409 domain_taken, the loser charged nothing', async () => {
    const bKey = await api.issueKey({ environment: 'test', rights: ['domain.register'], label: 'prod', conditions: CIDR }, b.cookie);
    for (let i = 0; i < 8; i++) {
      const name = `race-two-accounts-${i}.com.ua`;
      const aBefore = await api.system.store.wallets.balance(api.demo.accountId, 'test');
      const bBefore = await api.system.store.wallets.balance(b.accountId, 'test');
      const [x, y] = await Promise.all([
        post('/v1/domains', { domain: name, years: 1 }, reg.secret),
        post('/v1/domains', { domain: name, years: 1 }, bKey.secret),
      ]);
      expect([x.status, y.status].sort(), JSON.stringify([x.body, y.body])).to.deep.equal([201, 409]);
      const loser = x.status === 409 ? x : y;
      expectErrorShape(loser, 409, 'domain_taken');
      const aAfter = await api.system.store.wallets.balance(api.demo.accountId, 'test');
      const bAfter = await api.system.store.wallets.balance(b.accountId, 'test');
      expect(aBefore - aAfter + (bBefore - bAfter)).to.equal(40_000);
      const entries = await api.system.store.knex('ledger_entries').where({ domain: name });
      expect(entries.filter((e: any) => e.status === 'pending')).to.have.length(0);
      expect(await api.system.store.knex('domains').where({ name })).to.have.length(1);
    }
  });

  it('renewal years 0 / 11 / 1.5 / "1" / missing: 422, expiry and balance unchanged', async () => {
    for (const body of [{ years: 0 }, { years: 11 }, { years: 1.5 }, { years: '1' }, {}, { years: 1, domain: SHOP }, { years: null }]) {
      const r = await unchanged(() => post(`/v1/domains/${DEV}/renewals`, body, renew.secret));
      expectErrorShape(r, 422, 'validation_failed');
    }
  });

  it('renewing a domain of another account: 403/404, neither account charged, neither expiry moved', async () => {
    const bRenew = await api.issueKey(
      { environment: 'test', rights: ['domain.renew'], domains: [DEV, 'bee-account.com.ua'], conditions: CIDR },
      b.cookie,
    );
    const aBefore = await snapshot(api, api.demo.accountId);
    for (const d of [DEV, 'DOMIVKA-DEMO.DEV', `${DEV}.`]) {
      const r = await unchanged(() => post(`/v1/domains/${encodeURIComponent(d)}/renewals`, { years: 1 }, bRenew.secret), b.accountId);
      expectErrorShape(r);
      expect(r.status).to.be.oneOf([403, 404]);
    }
    expect(await snapshot(api, api.demo.accountId)).to.deep.equal(aBefore);
    // and the demo key cannot renew B's domain
    const r = await unchanged(() => post('/v1/domains/bee-account.com.ua/renewals', { years: 1 }, renew.secret));
    expectErrorShape(r);
    expect(r.status).to.be.oneOf([403, 404]);
  });

  it('renewal URL with path tricks is a clean 4xx and moves nothing', async () => {
    for (const d of ['..', '%2e%2e', `${DEV}%2F..`, `${DEV}%00`, 'x'.repeat(300), '%E2%80%8B']) {
      const r = await unchanged(() => post(`/v1/domains/${d}/renewals`, { years: 1 }, renew.secret));
      expect(r.status, `${d}: ${JSON.stringify(r.body)}`).to.be.within(400, 499);
      if (r.body && typeof r.body === 'object') expectErrorShape(r);
    }
  });

  it('top-up amount as string / float / negative / zero / below min / above max / huge / exponent: 422, balance unchanged', async () => {
    for (const amount of [
      '10000',
      10000.5,
      -10000,
      0,
      9_999,
      50_000_001,
      1e20,
      Number.MAX_SAFE_INTEGER + 2,
      null,
      true,
      [10000],
      { amount: 10000 },
    ]) {
      const r = await unchanged(() => post('/v1/billing/topups', { amount }, topup.secret));
      expectErrorShape(r, 422, 'validation_failed');
    }
    for (const body of [{}, { amount: 10000, currency: 'USD' }, { amount: 10000, card: 'pm_x' }]) {
      const r = await unchanged(() => post('/v1/billing/topups', body, topup.secret));
      expectErrorShape(r, 422, 'validation_failed');
    }
  });

  it('a top-up credits exactly the amount once; a float-looking integer (1e4) is an integer and is accepted', async () => {
    const before = await api.system.store.wallets.balance(api.demo.accountId, 'test');
    const r = await post('/v1/billing/topups', { amount: 1e4 }, topup.secret);
    expect(r.status, JSON.stringify(r.body)).to.equal(201);
    expect(await api.system.store.wallets.balance(api.demo.accountId, 'test')).to.equal(before + 10_000);
  });

  it('top-up with a key without billing.topup (a member cannot even issue one) is a clean 403; nothing credited', async () => {
    const cookie = await api.signIn();
    const ownerBilling = await api.issueKey({ environment: 'test', rights: ['billing.read'] }, cookie);
    const r = await unchanged(() => post('/v1/billing/topups', { amount: 10_000 }, ownerBilling.secret));
    expectErrorShape(r, 403);
    // A member may not issue a class-2 key at all.
    const email = `member-${randomUUID().slice(0, 6)}@example.com`;
    const password = `pw-${email}`;
    const totpSecret = api.system.get(TOKENS.Totp).generateSecret();
    await api.system.store.accounts.insertPerson({
      id: `p-${email}`,
      accountId: api.demo.accountId,
      email,
      name: email,
      role: 'member',
      passwordHash: await api.system.get(TOKENS.PasswordHasher).hash(password),
      totpSecret: api.system.get(TOKENS.SecretBox).seal(totpSecret),
      totpLastStep: null,
      lastSignInAt: null,
      createdAt: api.clock.now(),
    });
    const mc = await api.signIn({ email, password, totpSecret });
    const issued = await api.call('/v1/account/keys', {
      method: 'POST',
      headers: { cookie: mc },
      json: { environment: 'test', rights: ['billing.topup'] },
    });
    expectErrorShape(issued as Res, 403);
    const mk = await api.issueKey({ environment: 'test', rights: ['billing.read'] }, mc);
    expectErrorShape(await unchanged(() => post('/v1/billing/topups', { amount: 10_000 }, mk.secret)), 403);
  });

  it('top-up and registration with a revoked key: 401, nothing charged or credited', async () => {
    const cookie = await api.signIn();
    const k = await api.issueKey(
      { environment: 'test', rights: ['billing.topup', 'domain.register'], label: 'shop', conditions: CIDR },
      cookie,
    );
    const rv = await api.call(`/v1/account/keys/${k.id}`, { method: 'DELETE', headers: { cookie } });
    expect(rv.status, JSON.stringify(rv.body)).to.be.within(200, 299);
    expectErrorShape(await unchanged(() => post('/v1/billing/topups', { amount: 10_000 }, k.secret)), 401);
    expectErrorShape(await unchanged(() => post('/v1/domains', { domain: 'revoked-key.com.ua', years: 1 }, k.secret)), 401);
  });

  it('one Idempotency-Key across different money endpoints: the second is refused (422 idempotency_key_reused), not run, not answered with the first result', async () => {
    const all = await api.issueKey({
      environment: 'test',
      rights: ['billing.topup', 'domain.register', 'domain.renew'],
      label: 'prod',
      conditions: CIDR,
    });
    const idem = randomUUID();
    const first = await post('/v1/billing/topups', { amount: 10_000 }, all.secret, idem);
    expect(first.status, JSON.stringify(first.body)).to.equal(201);
    const reg = await unchanged(() => post('/v1/domains', { domain: 'idem-cross.com.ua', years: 1 }, all.secret, idem));
    expectErrorShape(reg, 422, 'idempotency_key_reused');
    const ren = await unchanged(() => post(`/v1/domains/${DEV}/renewals`, { years: 1 }, all.secret, idem));
    expectErrorShape(ren, 422, 'idempotency_key_reused');
    // Same key, same endpoint, different amount: refused too; same body: the stored answer, credited once.
    expectErrorShape(
      await unchanged(() => post('/v1/billing/topups', { amount: 20_000 }, all.secret, idem)),
      422,
      'idempotency_key_reused',
    );
    const replay = await unchanged(() => post('/v1/billing/topups', { amount: 10_000 }, all.secret, idem));
    expect(replay.status).to.equal(201);
    expect(replay.body.id).to.equal(first.body.id);
  });

  it('two top-ups at once with one Idempotency-Key: credited exactly once; the other is the replay or 409 idempotency_key_in_use', async () => {
    const before = await api.system.store.wallets.balance(api.demo.accountId, 'test');
    const idem = randomUUID();
    const rs = await Promise.all([0, 1, 2].map(() => post('/v1/billing/topups', { amount: 10_000 }, topup.secret, idem)));
    const ok = rs.filter((r) => r.status === 201);
    expect(ok.length, JSON.stringify(rs.map((r) => r.body))).to.be.at.least(1);
    expect(new Set(ok.map((r) => r.body.id)).size).to.equal(1);
    for (const r of rs.filter((x) => x.status !== 201)) expectErrorShape(r, 409, 'idempotency_key_in_use');
    expect(await api.system.store.wallets.balance(api.demo.accountId, 'test')).to.equal(before + 10_000);
  });

  it('an Idempotency-Key used by one key is not shared with another key (another account cannot replay it)', async () => {
    const idem = randomUUID();
    const first = await post('/v1/billing/topups', { amount: 10_000 }, topup.secret, idem);
    expect(first.status).to.equal(201);
    const bTop = await api.issueKey({ environment: 'test', rights: ['billing.topup'], conditions: CIDR }, b.cookie);
    const r = await post('/v1/billing/topups', { amount: 10_000 }, bTop.secret, idem);
    // B has no saved card: its own answer (422 no_saved_card or similar), never A's stored 201.
    expect(r.status, JSON.stringify(r.body)).not.to.equal(201);
    expectErrorShape(r);
    expect(JSON.stringify(r.body)).not.to.contain(first.body.id);
  });
});

eachStore('Hostile: DNS endpoints', (kind) => {
  let api: TestApi;
  let editor: string; // dns.edit on SHOP and DEV
  let acme: string; // dns.acme_challenge only on SHOP
  let devOnly: string; // dns.edit on DEV only
  let b: { accountId: string; cookie: string };
  before(async () => {
    // 2 MiB bodies here (256 KiB by default): 10 001 changes must reach the plan's change limit, not the body's.
    api = await startApi(kind, { env: { ...ENV, MAX_BODY_BYTES: String(2 * 1024 * 1024) }, dns: true });
    editor = (await api.issueKey({ environment: 'test', rights: ['dns.edit'], domains: [SHOP, DEV] })).secret;
    acme = (await api.issueKey({ environment: 'test', rights: ['dns.acme_challenge'], domains: [SHOP] })).secret;
    devOnly = (await api.issueKey({ environment: 'test', rights: ['dns.edit'], domains: [DEV] })).secret;
    b = await secondAccount(api, 'bee-zone.com.ua');
  });
  after(async () => api?.close());

  const post = (path: string, json: unknown, secret = editor) =>
    api.call(path, { method: 'POST', headers: { ...bearer(secret), 'idempotency-key': randomUUID() }, json });
  const del = (path: string, secret = editor) =>
    api.call(path, { method: 'DELETE', headers: { ...bearer(secret), 'idempotency-key': randomUUID() } });
  const zoneState = async (accountId: string, domain: string) => {
    const z = await api.system.store.zones.find(accountId, 'test', domain);
    return {
      serial: z!.serial,
      sets: JSON.stringify(
        [...z!.recordSets].filter((x) => x.type !== 'SOA').sort((x, y) => `${x.name} ${x.type}`.localeCompare(`${y.name} ${y.type}`)),
      ),
    };
  };
  const zonesUnchanged = async <T>(fn: () => Promise<T>): Promise<T> => {
    const before = [
      await zoneState(api.demo.accountId, SHOP),
      await zoneState(api.demo.accountId, DEV),
      await zoneState(b.accountId, 'bee-zone.com.ua'),
    ];
    const out = await fn();
    expect([
      await zoneState(api.demo.accountId, SHOP),
      await zoneState(api.demo.accountId, DEV),
      await zoneState(b.accountId, 'bee-zone.com.ua'),
    ]).to.deep.equal(before);
    return out;
  };
  /** A plan request either fails cleanly or yields an invalid plan that cannot be applied. */
  const refusedOrInvalid = async (body: unknown, domain = SHOP, secret = editor) => {
    await zonesUnchanged(async () => {
      const r = await post(`/v1/domains/${domain}/dns/plans`, body, secret);
      if (r.status === 201) {
        expect(r.body.valid, JSON.stringify(r.body).slice(0, 2000)).to.equal(false);
        expect(r.body.checks.some((c: any) => c.severity === 'error')).to.equal(true);
        for (const c of r.body.checks) {
          expect(c.message.uk).to.match(CYRILLIC);
          expect(c.message.en).to.be.a('string').and.not.equal('');
        }
        const a = await post(`/v1/domains/${domain}/dns/plans/${r.body.id}/apply`, { force: true }, secret);
        expectErrorShape(a, 422, 'plan_invalid');
      } else {
        expectErrorShape(r);
      }
    });
  };

  it('names outside the zone (evil.com., a sibling, a suffix look-alike) never reach the zone', async () => {
    for (const name of ['evil.com.', `${DEV}.`, `x${SHOP}.`, `${SHOP}.evil.com.`, `www.${SHOP}.evil.com.`, 'com.ua.']) {
      await refusedOrInvalid({ changes: [{ action: 'create', name, type: 'A', ttl: 300, values: ['192.0.2.1'] }] });
      await refusedOrInvalid({ records: [{ name, type: 'A', ttl: 300, values: ['192.0.2.1'] }] });
    }
  });

  it("'..', empty labels, 64- and 300-char labels, NUL, spaces and unicode names: refused or invalid", async () => {
    for (const name of [
      '..',
      'a..b',
      '.',
      `${'a'.repeat(64)}`,
      `${'a'.repeat(300)}`,
      'a\u0000b',
      'a b',
      'a:b',
      'a"b',
      'a;b',
      '@@',
      `${'a.'.repeat(130)}`,
      '\\.',
      '*.*',
      'a*',
    ]) {
      await refusedOrInvalid({ changes: [{ action: 'create', name, type: 'A', ttl: 300, values: ['192.0.2.1'] }] });
    }
  });

  it('a type outside the enum, a bad action, ttl as string/float/negative: 422', async () => {
    for (const change of [
      { action: 'create', name: 'x', type: 'ANY', ttl: 300, values: ['1'] },
      { action: 'create', name: 'x', type: 'a', ttl: 300, values: ['192.0.2.1'] },
      { action: 'upsert', name: 'x', type: 'A', ttl: 300, values: ['192.0.2.1'] },
      { action: 'create', name: 'x', type: 'A', ttl: '300', values: ['192.0.2.1'] },
      { action: 'create', name: 'x', type: 'A', ttl: 1.5, values: ['192.0.2.1'] },
      { action: 'create', name: 'x', type: 'A', ttl: 300, values: '192.0.2.1' },
      { action: 'create', name: 'x', type: 'A', ttl: 300, values: [1] },
      { action: 'create', name: 'x', type: 'A', ttl: 300, values: ['192.0.2.1'], zone: 'evil.com' },
    ]) {
      const r = await zonesUnchanged(() => post(`/v1/domains/${SHOP}/dns/plans`, { changes: [change] }));
      expectErrorShape(r, 422, 'validation_failed');
    }
    for (const ttl of [-1, 2 ** 31, 2 ** 53]) {
      await refusedOrInvalid({ changes: [{ action: 'create', name: 'ttl-x', type: 'A', ttl, values: ['192.0.2.1'] }] });
    }
    // Two inputs at once, or none: 422.
    expectErrorShape(await post(`/v1/domains/${SHOP}/dns/plans`, { changes: [], zone_file: '' }), 422, 'validation_failed');
    expectErrorShape(await post(`/v1/domains/${SHOP}/dns/plans`, {}), 422, 'validation_failed');
  });

  it('10 000 changes is answered (no 500, no hang); 10 001 is 422', async () => {
    const many = Array.from({ length: 10_000 }, (_, i) => ({
      action: 'create',
      name: `h${i}`,
      type: 'A',
      ttl: 300,
      values: ['192.0.2.1'],
    }));
    // Both bodies fit the suite's 2 MiB limit, so the answers are the change limit's, not the body size's.
    expect(Buffer.byteLength(JSON.stringify({ changes: many }))).to.be.below(2 * 1024 * 1024);
    const r = await zonesUnchanged(() => post(`/v1/domains/${SHOP}/dns/plans`, { changes: many }));
    expect(r.status, JSON.stringify(r.body).slice(0, 500)).to.equal(201);
    expect(r.body.counts.create).to.equal(10_000);
    const tooMany = [...many, { action: 'create', name: 'h-last', type: 'A', ttl: 300, values: ['192.0.2.1'] }];
    const t = await zonesUnchanged(() => post(`/v1/domains/${SHOP}/dns/plans`, { changes: tooMany }));
    expectErrorShape(t, 422, 'validation_failed');
    expect(JSON.stringify(t.body.error)).to.contain('changes');
  });

  it('the same record set created twice in one plan, or deleted when absent: refused or invalid', async () => {
    await refusedOrInvalid({
      changes: [
        { action: 'create', name: 'dup', type: 'A', ttl: 300, values: ['192.0.2.1'] },
        { action: 'create', name: 'dup', type: 'A', ttl: 300, values: ['192.0.2.2'] },
      ],
    });
    await refusedOrInvalid({ changes: [{ action: 'delete', name: 'never-existed', type: 'A' }] });
    await refusedOrInvalid({
      changes: [{ action: 'create', name: '@', type: 'SOA', ttl: 300, values: ['ns1.evil.com. h.evil.com. 1 2 3 4 5'] }],
    });
    await refusedOrInvalid({ changes: [{ action: 'create', name: 'www', type: 'CNAME', ttl: 300, values: ['evil.com.'] }] });
  });

  it('zone_file with $INCLUDE, $ORIGIN elsewhere, huge TTLs, NUL, records outside the zone: refused or invalid, zone intact', async () => {
    const soaLess = (extra: string) => `$ORIGIN ${SHOP}.\n$TTL 300\n@ IN A 192.0.2.10\nwww IN A 192.0.2.10\n${extra}\n`;
    for (const zf of [
      soaLess('$INCLUDE /etc/passwd'),
      soaLess(`$INCLUDE /etc/passwd ${SHOP}.`),
      soaLess('$ORIGIN evil.com.\nwww IN A 192.0.2.66'),
      soaLess('evil.com. IN A 192.0.2.66'),
      soaLess('big 4294967296 IN A 192.0.2.1'),
      soaLess('big2 99999999999999999999 IN A 192.0.2.1'),
      soaLess('$TTL 4294967296\nzz IN A 192.0.2.1'),
      soaLess('$TTL -5\nzz IN A 192.0.2.1'),
      soaLess('nul\u0000 IN A 192.0.2.1'),
      soaLess('x IN A 192.0.2.1\u0000'),
      soaLess('$GENERATE 1-100000 h$ A 192.0.2.1'),
      soaLess('( ( ( ( ('),
      soaLess('x IN TXT "unterminated'),
      '\u0000\u0000\u0000',
      `$ORIGIN evil.com.\n@ IN A 192.0.2.66\n`,
    ]) {
      await refusedOrInvalid({ zone_file: zf });
    }
  });

  it("applying another domain's plan id through this domain's URL is 404 plan_not_found, nothing applied", async () => {
    const plan = await post(`/v1/domains/${DEV}/dns/plans`, {
      changes: [{ action: 'create', name: 'cross', type: 'A', ttl: 300, values: ['192.0.2.7'] }],
    });
    expect(plan.status, JSON.stringify(plan.body)).to.equal(201);
    expect(plan.body.valid).to.equal(true);
    const r = await zonesUnchanged(() => post(`/v1/domains/${SHOP}/dns/plans/${plan.body.id}/apply`, {}));
    expectErrorShape(r, 404, 'plan_not_found');
    expectErrorShape(await api.call(`/v1/domains/${SHOP}/dns/plans/${plan.body.id}`, { headers: bearer(editor) }), 404, 'plan_not_found');
    // Another account's key, holding dns.edit on a name it does not own, cannot apply or read it.
    const bKey = (await api.issueKey({ environment: 'test', rights: ['dns.edit'], domains: [DEV, 'bee-zone.com.ua'] }, b.cookie)).secret;
    const r2 = await zonesUnchanged(() => post(`/v1/domains/${DEV}/dns/plans/${plan.body.id}/apply`, {}, bKey));
    expectErrorShape(r2, 404);
    const r3 = await zonesUnchanged(() => post(`/v1/domains/bee-zone.com.ua/dns/plans/${plan.body.id}/apply`, {}, bKey));
    expectErrorShape(r3, 404, 'plan_not_found');
    // A key for DEV only cannot apply SHOP plans; the DEV plan itself still applies for the rightful key.
    const shopPlan = await post(`/v1/domains/${SHOP}/dns/plans`, {
      changes: [{ action: 'create', name: 'cross2', type: 'A', ttl: 300, values: ['192.0.2.8'] }],
    });
    expectErrorShape(await zonesUnchanged(() => post(`/v1/domains/${SHOP}/dns/plans/${shopPlan.body.id}/apply`, {}, devOnly)), 403);
    expectErrorShape(
      await zonesUnchanged(() => post(`/v1/domains/${DEV}/dns/plans/${shopPlan.body.id}/apply`, {}, devOnly)),
      404,
      'plan_not_found',
    );
    const ok = await post(`/v1/domains/${DEV}/dns/plans/${plan.body.id}/apply`, {}, devOnly);
    expect(ok.status, JSON.stringify(ok.body)).to.equal(200);
  });

  it('another account cannot plan or add challenges in a zone it does not own', async () => {
    const bKey = (await api.issueKey({ environment: 'test', rights: ['dns.edit', 'dns.acme_challenge'], domains: [SHOP] }, b.cookie))
      .secret;
    const r = await zonesUnchanged(() =>
      post(
        `/v1/domains/${SHOP}/dns/plans`,
        { changes: [{ action: 'create', name: 'b', type: 'A', ttl: 300, values: ['192.0.2.1'] }] },
        bKey,
      ),
    );
    expectErrorShape(r, 404, 'domain_not_found');
    const c = await zonesUnchanged(() => post(`/v1/domains/${SHOP}/dns/acme-challenges`, { name: SHOP, value: 'tok-b' }, bKey));
    expectErrorShape(c, 404, 'domain_not_found');
  });

  it('a plan of an ACME-only key applies with a dns.edit key; a dns.edit plan cannot be applied by the ACME-only key', async () => {
    const acmePlan = await post(
      `/v1/domains/${SHOP}/dns/plans`,
      { changes: [{ action: 'create', name: `_acme-challenge.${SHOP}.`, type: 'TXT', ttl: 60, values: ['"tok-acme"'] }] },
      acme,
    );
    expect(acmePlan.status, JSON.stringify(acmePlan.body)).to.equal(201);
    const editPlan = await post(`/v1/domains/${SHOP}/dns/plans`, {
      changes: [{ action: 'create', name: 'acme-cross', type: 'A', ttl: 300, values: ['192.0.2.9'] }],
    });
    expect(editPlan.status).to.equal(201);
    const r = await zonesUnchanged(() => post(`/v1/domains/${SHOP}/dns/plans/${editPlan.body.id}/apply`, {}, acme));
    expectErrorShape(r, 403, 'right_missing');
    // Nor may the ACME-only key make a whole-zone plan or a non-TXT change.
    expectErrorShape(await zonesUnchanged(() => post(`/v1/domains/${SHOP}/dns/plans`, { records: [] }, acme)), 403, 'right_missing');
    expectErrorShape(await zonesUnchanged(() => post(`/v1/domains/${SHOP}/dns/plans`, { zone_file: '' }, acme)), 403, 'right_missing');
    for (const change of [
      { action: 'create', name: `_acme-challenge.${SHOP}.`, type: 'A', ttl: 60, values: ['192.0.2.1'] },
      { action: 'create', name: `x._acme-challenge.${SHOP}.`, type: 'TXT', ttl: 60, values: ['"x"'] },
      { action: 'create', name: `_acme-challenge.${DEV}.`, type: 'TXT', ttl: 60, values: ['"x"'] },
      { action: 'create', name: `_acme-challengex.${SHOP}.`, type: 'TXT', ttl: 60, values: ['"x"'] },
      { action: 'delete', name: SHOP, type: 'MX' },
    ]) {
      const p = await zonesUnchanged(() => post(`/v1/domains/${SHOP}/dns/plans`, { changes: [change] }, acme));
      if (p.status === 201) {
        expect(p.body.valid, JSON.stringify(change)).to.equal(false);
        expectErrorShape(await zonesUnchanged(() => post(`/v1/domains/${SHOP}/dns/plans/${p.body.id}/apply`, {}, acme)));
      } else {
        expectErrorShape(p);
        expect(p.status, JSON.stringify(change)).to.be.oneOf([403, 422]);
      }
    }
    const ok = await post(`/v1/domains/${SHOP}/dns/plans/${acmePlan.body.id}/apply`, {});
    expect(ok.status, JSON.stringify(ok.body)).to.equal(200);
  });

  it('ACME challenge names in another zone, or not a challenge name at all: 422, zones unchanged', async () => {
    for (const name of [
      `_acme-challenge.${DEV}`,
      `_acme-challenge.${DEV}.`,
      DEV,
      'evil.com',
      '_acme-challenge.evil.com',
      `_acme-challenge.x${SHOP}`,
      `_acme-challenge.${SHOP}.evil.com`,
      `${SHOP}.evil.com`,
      '_acme-challenge',
      '_acme-challenge.',
      '',
      ' ',
      '..',
      `_acme-challenge..${SHOP}`,
      `_acme-challenge._acme-challenge.${SHOP}`,
      `a/b.${SHOP}`,
      `${'a'.repeat(64)}.${SHOP}`,
      'com.ua',
    ]) {
      const r = await zonesUnchanged(() => post(`/v1/domains/${SHOP}/dns/acme-challenges`, { name, value: 'tok' }, acme));
      expectErrorShape(r, 422, 'validation_failed');
    }
  });

  // Regression guard (was a bug found by the hostile pass): POST /v1/domains/{zone}/dns/acme-challenges with name `_acme-challenge.*.<zone>` (or `*.*.<zone>`, or
  // `_acme-challenge.*.www.<zone>`) is 201 and stores a TXT at the literal owner `_acme-challenge.*.<zone>` — a name
  // no CA ever queries (RFC 8555 §8.4: the wildcard's challenge is at _acme-challenge.<zone>). Expected 422
  // validation_failed (or normalisation to _acme-challenge.<zone>). core/dns/acme-challenges.use-case.ts
  // challengeName(): `normalizeDomain(host.replace(/^\*\./, ''))` validates the host with `*.` stripped but returns
  // `n` with it kept; the bare-input branch strips only one leading `*.`.
  it('a "*" label anywhere but first is refused, never stored as a literal name like _acme-challenge.*.<zone>', async () => {
    for (const name of [`*.*.${SHOP}`, `_acme-challenge.*.${SHOP}`, `_acme-challenge.*.www.${SHOP}`, `www.*.${SHOP}`]) {
      const r = await zonesUnchanged(() => post(`/v1/domains/${SHOP}/dns/acme-challenges`, { name, value: 'tok-star' }, acme));
      expectErrorShape(r, 422, 'validation_failed');
    }
    const z = await api.system.store.zones.find(api.demo.accountId, 'test', SHOP);
    expect(z!.recordSets.map((x) => x.name).filter((n) => n.includes('*'))).to.deep.equal([]);
  });

  it('challenge values with spaces, quotes, 256 chars, control chars, non-ASCII: 422, zones unchanged', async () => {
    for (const value of ['a b', 'x'.repeat(256), 'a\u0000b', 'a\nb', 'a\tb', 'тест', '', ' ', 'a;b\u007f', 123, null]) {
      const r = await zonesUnchanged(() => post(`/v1/domains/${SHOP}/dns/acme-challenges`, { name: SHOP, value }, acme));
      if (r.status === 201) throw new Error(`accepted ${JSON.stringify(value)}`);
      expectErrorShape(r, 422, 'validation_failed');
    }
  });

  it('a value with quotes and backslashes (allowed by the schema) is stored and exported without breaking the zone file', async () => {
    const before = await zoneState(api.demo.accountId, SHOP);
    const value = 'a"b\\c;d';
    const r = await post(`/v1/domains/${SHOP}/dns/acme-challenges`, { name: `quote.${SHOP}`, value }, acme);
    expect(r.status, JSON.stringify(r.body)).to.equal(201);
    const z = await api.call(`/v1/domains/${SHOP}/dns/zone`, { headers: bearer(editor) });
    expect(z.status).to.equal(200);
    // The exported zone file parses back into the same zone (round trip through a records-free plan).
    const rt = await post(`/v1/domains/${SHOP}/dns/plans`, { zone_file: z.body });
    expect(rt.status, JSON.stringify(rt.body).slice(0, 1500)).to.equal(201);
    expect(rt.body.valid, JSON.stringify(rt.body.checks)).to.equal(true);
    expect(rt.body.changes, JSON.stringify(rt.body.changes)).to.deep.equal([]);
    const d = await del(`/v1/domains/${SHOP}/dns/acme-challenges/${r.body.id}`, acme);
    expect(d.status).to.equal(204);
    expect((await zoneState(api.demo.accountId, SHOP)).sets).to.equal(before.sets);
  });

  it("deleting another zone's or another account's challenge id is 404 challenge_not_found; the challenge stays", async () => {
    const c = await post(`/v1/domains/${DEV}/dns/acme-challenges`, { name: DEV, value: 'tok-dev' }, editor);
    expect(c.status, JSON.stringify(c.body)).to.equal(201);
    expectErrorShape(
      await zonesUnchanged(() => del(`/v1/domains/${SHOP}/dns/acme-challenges/${c.body.id}`, acme)),
      404,
      'challenge_not_found',
    );
    expectErrorShape(
      await zonesUnchanged(() => del(`/v1/domains/${SHOP}/dns/acme-challenges/${c.body.id}`, editor)),
      404,
      'challenge_not_found',
    );
    const bKey = (await api.issueKey({ environment: 'test', rights: ['dns.acme_challenge'], domains: [DEV, 'bee-zone.com.ua'] }, b.cookie))
      .secret;
    expectErrorShape(
      await zonesUnchanged(() => del(`/v1/domains/bee-zone.com.ua/dns/acme-challenges/${c.body.id}`, bKey)),
      404,
      'challenge_not_found',
    );
    const viaDev = await zonesUnchanged(() => del(`/v1/domains/${DEV}/dns/acme-challenges/${c.body.id}`, bKey));
    expectErrorShape(viaDev, 404);
    for (const id of ['..', '%2e%2e', 'x'.repeat(41), `${c.body.id}%00`, "' or 1=1 --"]) {
      const r = await zonesUnchanged(() => del(`/v1/domains/${DEV}/dns/acme-challenges/${encodeURIComponent(id)}`));
      expect(r.status, id).to.be.within(400, 499);
      if (r.body && typeof r.body === 'object') expectErrorShape(r);
    }
    expect(await api.system.store.knex('acme_challenges').where({ id: c.body.id })).to.have.length(1);
    expect((await del(`/v1/domains/${DEV}/dns/acme-challenges/${c.body.id}`)).status).to.equal(204);
  });

  it('plan ids that are not ids (too long, SQL, path tricks) are clean 4xx on get and apply', async () => {
    for (const id of ['x'.repeat(41), "' or '1'='1", '..', '%00', 'null', 'undefined', '0']) {
      const g = await api.call(`/v1/domains/${SHOP}/dns/plans/${encodeURIComponent(id)}`, { headers: bearer(editor) });
      expect(g.status, id).to.be.within(400, 499);
      if (g.body && typeof g.body === 'object') expectErrorShape(g);
      const a = await zonesUnchanged(() => post(`/v1/domains/${SHOP}/dns/plans/${encodeURIComponent(id)}/apply`, {}));
      expect(a.status, id).to.be.within(400, 499);
      if (a.body && typeof a.body === 'object') expectErrorShape(a);
    }
    expectErrorShape(await post(`/v1/domains/${SHOP}/dns/plans/x/apply`, { force: 'yes' }), 422, 'validation_failed');
    expectErrorShape(await post(`/v1/domains/${SHOP}/dns/plans/x/apply`, { force: true, extra: 1 }), 422, 'validation_failed');
  });
});
