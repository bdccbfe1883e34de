import { expect } from 'chai';
import { generate } from 'otplib';
import { CREDENTIAL_POLICY } from '../../core/accounts/credential-throttle.js';
import { TOKENS } from '../../src/tokens.js';
import { eachStore } from '../support/stores.js';
import pino from 'pino';
import { System } from '../../src/system.js';
import { Worker } from '../../src/worker.js';
import { DomainError } from '../../core/kernel/errors.js';
import { addPerson, startApi, testConfig, type TestApi } from '../support/system.js';

const FREE = CREDENTIAL_POLICY.person.free;
const CAP = CREDENTIAL_POLICY.person.capMs;

/**
 * One limiter for every password and TOTP check (core/accounts/credential-throttle.ts), API and console
 * alike. The API trusts X-Forwarded-For here, so one test process can speak from many addresses.
 */
eachStore('Credential checks are throttled per address and per person, API and console alike', (kind) => {
  let api: TestApi;
  beforeEach(async () => {
    api = await startApi(kind, { env: { TRUST_PROXY: 'true', RATE_LIMIT_ANON_BURST: '1000' } });
  });
  afterEach(async () => api.close());

  const from = (ip: string) => ({ 'x-forwarded-for': ip });
  const code = async (secret = api.demo.totpSecret) => generate({ secret, epoch: Math.floor(api.clock.now().getTime() / 1000) });
  const signIn = (body: Record<string, unknown>, ip = '198.51.100.1') =>
    api.call('/v1/account/sessions', { method: 'POST', headers: from(ip), json: body });
  const wrong = (ip?: string, email = api.demo.email) => signIn({ email, password: 'not-the-password', totp: '000000' }, ip);
  const right = async (ip?: string) => {
    api.clock.advance(31_000); // a fresh TOTP step: codes are never accepted twice
    return signIn({ email: api.demo.email, password: api.demo.password, totp: await code() }, ip);
  };
  const codes = (rs: ReadonlyArray<{ body: any }>) => rs.map((r) => r.body?.error?.code ?? 'ok');
  const throttledNotices = async (personId: string) =>
    (await api.system.store.notices.listForPerson(personId, 'live', undefined, 50)).filter((n) => n.kind === 'person.sign_in_throttled');

  it('a parallel burst of wrong passwords to POST /v1/account/sessions: the first few are checked, the rest 429 too_many_attempts with Retry-After', async () => {
    const rs = await Promise.all(Array.from({ length: 40 }, () => wrong()));
    const got = codes(rs);
    expect(
      got.filter((c) => c === 'sign_in_failed'),
      got.join(','),
    ).to.have.length(FREE);
    expect(got.filter((c) => c === 'too_many_attempts')).to.have.length(40 - FREE);
    const refused = rs.find((r) => r.body.error.code === 'too_many_attempts')!;
    expect(refused.status).to.equal(429);
    expect(Number(refused.headers.get('retry-after'))).to.be.within(1, CAP / 1000);
    expect(refused.body.error.message.en).to.match(/Too many failed sign-in attempts.*try again in \d+ s/);
    expect(refused.body.error.message.uk).to.match(/Забагато невдалих спроб увійти.*через \d+ с/);
  });

  it('one address trying many e-mails is stopped by its own counter', async () => {
    const got: string[] = [];
    for (let i = 0; i < CREDENTIAL_POLICY.address.free + 5; i++)
      got.push(...codes([await wrong('203.0.113.9', `nobody-${i}@example.com`)]));
    expect(got.slice(0, CREDENTIAL_POLICY.address.free)).to.deep.equal(Array(CREDENTIAL_POLICY.address.free).fill('sign_in_failed'));
    expect(got.slice(CREDENTIAL_POLICY.address.free)).to.deep.equal(Array(5).fill('too_many_attempts'));
    // Another address is not held back by it; an IPv6 /64 is one address.
    expect(codes([await wrong('203.0.113.10', 'someone@example.com')])).to.deep.equal(['sign_in_failed']);
    for (let i = 0; i < CREDENTIAL_POLICY.address.free; i++) await wrong(`2001:db8:1:2::${i.toString(16)}`, `v6-${i}@example.com`);
    expect(codes([await wrong('2001:db8:1:2:ffff::1', 'v6-last@example.com')])).to.deep.equal(['too_many_attempts']);
  });

  it('the console sign-in form: a burst of wrong passwords gets 429 and the same text in the page', async () => {
    const page = await fetch(`${api.base}/console/sign-in`, { headers: { ...from('198.51.100.7'), 'accept-language': 'en' } });
    const pre = page.headers
      .getSetCookie()
      .find((c) => c.startsWith('dmk_console_pre='))!
      .split(';')[0]!;
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())![1]!;
    const post = async () => {
      const r = await fetch(`${api.base}/console/sign-in`, {
        method: 'POST',
        redirect: 'manual',
        headers: { ...from('198.51.100.7'), cookie: pre, 'content-type': 'application/x-www-form-urlencoded', 'accept-language': 'en' },
        body: new URLSearchParams({ _csrf: csrf, email: api.demo.email, password: 'wrong', totp: '000000', next: '/console/' }).toString(),
      });
      return { status: r.status, retryAfter: r.headers.get('retry-after'), text: await r.text() };
    };
    const rs = [];
    for (let i = 0; i < 30; i++) rs.push(await post());
    expect(rs.map((r) => r.status).filter((s) => s === 401)).to.have.length(FREE);
    const refused = rs.slice(FREE);
    expect(refused.map((r) => r.status)).to.deep.equal(Array(30 - FREE).fill(429));
    expect(refused[0]!.text).to.match(/Too many failed sign-in attempts from this address or for this e-mail/);
    expect(refused[0]!.text).to.match(/name="password"/); // the form again, to try later
    expect(Number(refused[0]!.retryAfter)).to.be.at.least(1);
    // The API and the console count together: the API route is held back too.
    expect(codes([await wrong('198.51.100.7')])).to.deep.equal(['too_many_attempts']);
  });

  it('wrong TOTP codes (the password known) are limited per person, from however many addresses', async () => {
    const rs = [];
    for (let i = 0; i < 30; i++) {
      rs.push(
        await signIn(
          { email: api.demo.email, password: api.demo.password, totp: '000000' === (await code()) ? '111111' : '000000' },
          `192.0.2.${i + 1}`,
        ),
      );
    }
    const got = codes(rs);
    expect(
      got.filter((c) => c === 'sign_in_failed'),
      got.join(','),
    ).to.have.length(FREE);
    expect(got.slice(FREE)).to.deep.equal(Array(30 - FREE).fill('too_many_attempts'));
  });

  it('the counts are shared by every API process (they live in the store, not in one process)', async () => {
    // A second process over the same store, as under npm run cluster.
    const other = new System(testConfig(api.store, { TRUST_PROXY: 'true' }), { clock: api.clock, logger: pino({ level: 'silent' }) });
    try {
      const signInThere = () =>
        other
          .get(TOKENS.SignIn)
          .execute({ email: api.demo.email, password: 'wrong', totp: '000000', address: '198.51.100.60' })
          .then(
            () => 'ok',
            (e: unknown) => (e instanceof DomainError ? e.code : String(e)),
          );
      for (let i = 0; i < FREE - 1; i++) expect(codes([await wrong('198.51.100.60')])).to.deep.equal(['sign_in_failed']);
      expect(await signInThere(), 'the other process checks the last free one').to.equal('sign_in_failed');
      expect(await signInThere(), 'and then refuses, as this one does').to.equal('too_many_attempts');
      expect(codes([await wrong('198.51.100.60')])).to.deep.equal(['too_many_attempts']);
    } finally {
      await other.close();
    }
  });

  it('a refused attempt takes the same path for an unknown e-mail as for a known one: no hashing, no lookup', async () => {
    const hasher = api.system.get(TOKENS.PasswordHasher);
    const verify = hasher.verify.bind(hasher);
    const accounts = api.system.store.accounts;
    const find = accounts.findPersonByEmail.bind(accounts);
    let hashes = 0;
    let lookups = 0;
    hasher.verify = async (h, p) => (hashes++, verify(h, p));
    accounts.findPersonByEmail = async (e) => (lookups++, find(e));
    const measure = async (email: string) => {
      const before = { hashes, lookups };
      const r = await wrong('198.51.100.20', email);
      return { code: r.body.error.code, status: r.status, hashes: hashes - before.hashes, lookups: lookups - before.lookups };
    };
    for (const email of [api.demo.email, 'nobody@example.com']) {
      const checked = await measure(email);
      expect(checked, `${email}: a checked attempt`).to.deep.equal({ code: 'sign_in_failed', status: 401, hashes: 1, lookups: 1 });
      for (let i = 1; i < FREE; i++) await wrong('198.51.100.20', email);
      const refused = await measure(email);
      expect(refused, `${email}: a refused attempt`).to.deep.equal({ code: 'too_many_attempts', status: 429, hashes: 0, lookups: 0 });
    }
  });

  it('the owners hear of a burst once, not once per attempt; the attempts are never a notice each', async () => {
    const second = await addPerson(api, 'owner', 'second-owner@example.com');
    for (let i = 0; i < FREE + 8; i++) {
      expect(codes([await wrong(`192.0.2.${(i % 3) + 1}`)])).to.deep.equal(['sign_in_failed']);
      api.clock.advance(CAP); // past every wait, so each attempt is checked and fails
    }
    for (const id of [api.demo.personId, second.id]) {
      const ns = await throttledNotices(id);
      expect(ns, id).to.have.length(1);
      expect(ns[0]!.message.en).to.contain(api.demo.email).and.contain('failed password or one-time code checks');
      expect(ns[0]!.message.uk).to.contain('невдалих перевірок');
    }
    const events = await api.system.store.knex('events').where({ type: 'person.sign_in_throttled' });
    expect(events).to.have.length(1);
    expect(JSON.stringify(events)).not.to.contain('not-the-password');
    // An unknown e-mail tells nobody.
    for (let i = 0; i < FREE + 2; i++) await wrong('192.0.2.50', 'nobody@example.com');
    expect(await api.system.store.knex('events').where({ type: 'person.sign_in_throttled' })).to.have.length(1);
  });

  it('after the capped wait the right credential works, even while an attacker keeps failing', async () => {
    // Attackers (three addresses) drive the person's wait up to its cap.
    const attacker = (i: number) => `203.0.113.${60 + (i % 3)}`;
    let lastWait = 0;
    for (let i = 0; lastWait < CAP / 1000; i++) {
      expect(i, 'the wait reaches its cap').to.be.below(200);
      const r = await wrong(attacker(i));
      if (r.body.error.code === 'too_many_attempts') {
        lastWait = Number(r.headers.get('retry-after'));
        api.clock.advance(lastWait * 1000);
      }
    }
    expect(codes([await wrong(attacker(0))])).to.deep.equal(['sign_in_failed']);
    // The owner, from an address that never failed, is refused — for at most the cap.
    const owner = '198.51.100.99';
    api.clock.advance(31_000);
    const first = await signIn({ email: api.demo.email, password: api.demo.password, totp: await code() }, owner);
    expect(first.body.error.code).to.equal('too_many_attempts');
    const wait = Number(first.headers.get('retry-after'));
    expect(wait).to.be.within(1, CAP / 1000);
    // An attacker takes the very moment the person's wait ends, and puts it back at the cap …
    api.clock.advance(wait * 1000);
    expect(codes([await wrong(attacker(0))])).to.deep.equal(['sign_in_failed']);
    expect(codes([await wrong(attacker(1))])).to.deep.equal(['too_many_attempts']);
    // … and still the owner's one check comes when it was promised.
    const ok = await right(owner);
    expect(ok.status, JSON.stringify(ok.body)).to.equal(201);
    // A success ends the burst: the next sign-in, from anywhere, is not held back.
    expect((await right('198.51.100.100')).status).to.equal(201);
  });

  it('signing in again (API and console) and a new secret’s first code go through the same limiter', async () => {
    const cookie = await api.signIn();
    const reauth = (password: string, ip = '198.51.100.30') =>
      api.call('/v1/account/reauthentications', { method: 'POST', headers: { cookie, ...from(ip) }, json: { password, totp: '000000' } });
    const got = [];
    for (let i = 0; i < FREE + 3; i++) got.push(...codes([await reauth('wrong')]));
    expect(got).to.deep.equal([...Array(FREE).fill('sign_in_failed'), ...Array(3).fill('too_many_attempts')]);
    // The sign-in route counts the same failures (same person): held back as well.
    expect(codes([await wrong('198.51.100.30')])).to.deep.equal(['too_many_attempts']);
    // The console's re-authentication page answers the same refusal, in the page.
    const page = await fetch(`${api.base}/console/reauth`, { headers: { cookie, ...from('198.51.100.30'), 'accept-language': 'en' } });
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())![1]!;
    const r = await fetch(`${api.base}/console/reauth`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: `${cookie}; dmk_lang=en`, ...from('198.51.100.30'), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: csrf, password: 'wrong', totp: '000000', next: '/console/' }).toString(),
    });
    expect(r.status).to.equal(429);
    expect(await r.text())
      .to.contain('Too many failed sign-in attempts')
      .and.contain('too_many_attempts');
  });

  it('a check counted only on failure (TSIG) that may go is decided by one read: no transaction, no row written; failures still make it wait', async () => {
    const throttle = api.system.get(TOKENS.CredentialThrottle);
    const uow = api.system.store.uow;
    const transaction = uow.transaction.bind(uow);
    let opened = 0;
    uow.transaction = ((fn: Parameters<typeof transaction>[0]) => (opened++, transaction(fn))) as typeof uow.transaction;
    const rows = async () => Number((await api.system.store.knex('credential_attempts').count({ n: '*' }).first())!.n);
    try {
      const before = await rows();
      for (let i = 0; i < 3; i++) {
        const check = await throttle.admit('192.0.2.88', 'tsig:dmk-test-throttle', 'on_failure');
        expect(check).to.deep.include({ counted: false, clean: true });
        await throttle.succeeded(check);
      }
      expect(opened).to.equal(0);
      expect(await rows()).to.equal(before);
      for (let i = 0; i < FREE; i++)
        await throttle.failed(await throttle.admit('192.0.2.88', 'tsig:dmk-test-throttle', 'on_failure'), null);
      const refused = await throttle.admit('192.0.2.88', 'tsig:dmk-test-throttle', 'on_failure').then(
        () => null,
        (err: unknown) => err,
      );
      expect(refused).to.be.instanceOf(DomainError);
      expect((refused as DomainError).code).to.equal('too_many_attempts');
    } finally {
      uow.transaction = transaction;
    }
  });

  it('the worker forgets counters a day old (they would count from zero anyway)', async () => {
    for (let i = 0; i < 3; i++) await wrong('192.0.2.77');
    const rows = () => api.system.store.knex('credential_attempts').count({ n: '*' }).first();
    expect(Number((await rows())!.n)).to.be.at.least(3);
    expect(JSON.stringify(await api.system.store.knex('credential_attempts')))
      .not.to.contain(api.demo.email)
      .and.not.to.contain('192.0.2.77');
    api.clock.advance(CREDENTIAL_POLICY.pairMemoryMs + 1000);
    const report = await new Worker(api.system).tick(new Date());
    expect(report.credentialAttemptsPruned).to.be.at.least(3);
    expect(Number((await rows())!.n)).to.equal(0);
  });

  it('the first code of a new TOTP secret is limited too', async () => {
    const person = await addPerson(api, 'owner', 'enrol@example.com');
    await api.system.store.people.setTwoFactor(person.id, false);
    const cookie = await api.signIn({ email: person.email, password: person.password, totpSecret: person.totpSecret });
    const start = await api.call('/v1/account/two-factor/enrolment', { method: 'POST', headers: { cookie, ...from('198.51.100.40') } });
    expect(start.status, JSON.stringify(start.body)).to.equal(201);
    const got = [];
    for (let i = 0; i < FREE + 2; i++) {
      const r = await api.call('/v1/account/two-factor', {
        method: 'PUT',
        headers: { cookie, ...from(`198.51.100.${41 + i}`) },
        json: { totp: '000000' === (await code(start.body.secret)) ? '111111' : '000000' },
      });
      got.push(...codes([r]));
    }
    expect(got).to.deep.equal([...Array(FREE).fill('totp_invalid'), ...Array(2).fill('too_many_attempts')]);
  });
});
