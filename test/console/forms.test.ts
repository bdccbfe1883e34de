import { expect } from 'chai';
import { eachStore } from '../support/stores.js';
import { bearer, startApi, type TestApi } from '../support/system.js';
import { consoleHttp, hiddenField } from './http.js';

/**
 * The console's forms over HTTP, as a browser posts them: what a failed zone import gives back, the body
 * limits (a zone file's own, everything else 64 KiB) and the page a too-large post gets.
 */
const ZONE = 'domivka-demo.com.ua';
const IMPORT_MAX = 100_000;

eachStore('Console forms: kept input, body limits', (kind) => {
  let api: TestApi;
  let cookie = '';
  let reader = '';
  before(async function () {
    this.timeout(60_000);
    api = await startApi(kind, { env: { DNS_IMPORT_MAX_BYTES: String(IMPORT_MAX) } });
    cookie = await api.signIn();
    reader = (await api.issueKey({ environment: 'test', rights: ['dns.read'], domains: [ZONE] })).secret;
  });
  after(async () => {
    await api?.close();
  });

  const get = (path: string, lang: 'uk' | 'en' = 'en', c = cookie) => consoleHttp(api).get(path, c, lang);
  const csrfOf = (text: string) => hiddenField(text, '_csrf')!;
  const post = (path: string, form: Record<string, string>, lang: 'uk' | 'en' = 'en', c = cookie) =>
    consoleHttp(api).post(path, c, form, lang);
  const textarea = (page: string) => {
    const m = /<textarea id="zone-file"[^>]*>\n?([\s\S]*?)<\/textarea>/.exec(page);
    return m
      ? m[1]!
          .replace(/&lt;/g, '<')
          .replace(/&gt;/g, '>')
          .replace(/&quot;/g, '"')
          .replace(/&#39;/g, "'")
          .replace(/&amp;/g, '&')
      : null;
  };
  const importPath = `/console/domains/${ZONE}/dns/imports`;

  it('the import form of a domain not in the account is not found, and a send changes nothing', async () => {
    const page = await get('/console/domains/not-in-this-account.example/dns/imports');
    expect(page.status).to.equal(404);
    expect(page.text).to.contain('domain_not_found');
    expect(page.text).not.to.contain('right_missing');
    const form = await get(importPath);
    const sent = await post('/console/domains/not-in-this-account.example/dns/imports', {
      _csrf: csrfOf(form.text),
      source: 'file',
      zone_file: 'www 300 IN A 192.0.2.1\n',
    });
    expect(sent.status).to.equal(404);
    expect(await api.system.store.knex('dns_imports').where({ domain: 'not-in-this-account.example' })).to.have.length(0);
  });

  for (const lang of ['uk', 'en'] as const)
    it(`a zone file that fails to import comes back in the form with the reason next to it (${lang})`, async () => {
      const form = await get(importPath, lang);
      const bad = `; the old provider's export\n$INCLUDE /etc/passwd\nwww 300 IN A 192.0.2.1\n`;
      const r = await post(importPath, { _csrf: csrfOf(form.text), source: 'file', zone_file: bad }, lang);
      expect(r.status, r.text.slice(0, 300)).to.equal(422);
      expect(textarea(r.text), 'the pasted text is back in the form').to.equal(bad);
      const near = /<p class="field-error" id="err-zone_file">([\s\S]*?)<\/p>/.exec(r.text)?.[1] ?? '';
      expect(near).to.include('zone_file_include');
      expect(near).to.include(lang === 'uk' ? 'Рядок 2' : 'Line 2');
    });

  it('a zone file over 64 KiB (the other forms’ limit) is read: the import ends in a plan', async () => {
    const lines = [`$ORIGIN ${ZONE}.`, '$TTL 300'];
    for (let i = 0; lines.join('\n').length < 80_000; i++) lines.push(`host-${i} IN TXT "${'x'.repeat(60)}"`);
    const big = `${lines.join('\n')}\n`;
    expect(Buffer.byteLength(big))
      .to.be.above(64 * 1024)
      .and.below(IMPORT_MAX);
    const form = await get(importPath);
    const r = await post(importPath, { _csrf: csrfOf(form.text), source: 'file', zone_file: big });
    expect(r.status, r.text.slice(0, 500)).to.equal(302);
    let page = await get(r.location!);
    for (let i = 0; i < 40 && !page.text.includes('Review the plan'); i++) {
      await new Promise((res) => setTimeout(res, 150));
      page = await get(r.location!);
    }
    expect(page.text).to.include('Review the plan');
    expect(page.text).to.match(/id="import-read">\d{3,}</);
    // Nothing applied by the import itself.
    const records = await api.call(`/v1/domains/${ZONE}/dns/records`, { headers: bearer(reader) });
    expect(JSON.stringify(records.body)).not.to.include('host-1');
  });

  it('a zone file over DNS_IMPORT_MAX_BYTES is refused next to the field, in words', async () => {
    const form = await get(importPath);
    const r = await post(importPath, { _csrf: csrfOf(form.text), source: 'file', zone_file: `; ${'y'.repeat(IMPORT_MAX + 10)}\n` });
    expect(r.status).to.equal(422);
    expect(r.text).to.include('import_too_large');
    expect(r.text).to.include('larger than 100000 bytes');
  });

  it('a post over the form’s limit gets a readable page (413, the limit in words, a way back), not a reset connection', async () => {
    const webhooks = await get('/console/webhooks');
    const r = await post('/console/webhooks', {
      _csrf: csrfOf(webhooks.text),
      url: `https://hooks.example.com/${'z'.repeat(100_000)}`,
      events: '*',
    });
    expect(r.status).to.equal(413);
    expect(r.text).to.include('<h1>That did not work</h1>');
    expect(r.text).to.include('The request body is too large: at most 65536 bytes.');
    expect(r.text).to.include('href="/console/webhooks"');
    // The zone import's own limit is larger, and past it the same page (in Ukrainian here).
    const form = await get(importPath, 'uk');
    const huge = await post(importPath, { _csrf: csrfOf(form.text), source: 'file', zone_file: '%'.repeat(IMPORT_MAX + 40_000) }, 'uk');
    expect(huge.status).to.equal(413);
    expect(huge.text).to.include('Тіло запиту завелике');
    expect(huge.text).to.include(`href="${importPath}"`);
  });
});

eachStore('Console forms: one send per drawn form', (kind) => {
  let api: TestApi;
  let cookie = '';
  before(async function () {
    this.timeout(60_000);
    api = await startApi(kind);
    cookie = await api.signIn();
  });
  after(async () => {
    await api?.close();
  });
  const fieldsOf = async (path: string) => {
    const { text } = await consoleHttp(api).get(path, cookie);
    return { csrf: hiddenField(text, '_csrf')!, form: hiddenField(text, '_form')! };
  };
  const post = (path: string, form: Record<string, string>) => consoleHttp(api).post(path, cookie, form);

  it('two identical posts of one top-up form (one after the other, and at once) charge once; both get the same redirect', async () => {
    const f = await fieldsOf('/console/billing');
    const body = { _csrf: f.csrf, _form: f.form, amount: '123.45' };
    const first = await post('/console/billing/top-up', body);
    expect(first.status, first.text.slice(0, 400)).to.equal(302);
    const txs = async () => (await api.system.store.knex('ledger_entries').where({ kind: 'topup' })).length;
    const once = await txs();
    const second = await post('/console/billing/top-up', body);
    expect(second.status).to.equal(302);
    expect(second.location).to.equal(first.location);
    expect(await txs(), 'the second send charged nothing').to.equal(once);
    // At once: a fresh form sent twice concurrently.
    const g = await fieldsOf('/console/billing');
    const both = await Promise.all([0, 1].map(() => post('/console/billing/top-up', { _csrf: g.csrf, _form: g.form, amount: '200.00' })));
    expect(
      both.map((x) => x.status),
      both.map((x) => /<main[\s\S]{0,1500}/.exec(x.text)?.[0]).join('\n'),
    ).to.deep.equal([302, 302]);
    expect(both[0]!.location).to.equal(both[1]!.location);
    expect(await txs(), 'one more top-up for the concurrent pair').to.equal(once + 1);
  });

  it('two identical posts of one registration form (one after the other, and at once) register and charge once; both get the same redirect', async () => {
    const charges = async () => (await api.system.store.knex('ledger_entries').where({ kind: 'registration' })).length;
    const start = await charges();
    const f = await fieldsOf('/console/register');
    const body = { _csrf: f.csrf, _form: f.form, domain: `twice-${kind.engine}.dev`, years: '1', auto_renew: '1', labels: '' };
    const first = await post('/console/register', body);
    expect(first.status, first.text.slice(0, 400)).to.equal(302);
    expect(first.location).to.equal(`/console/domains/twice-${kind.engine}.dev?done=registered`);
    const second = await post('/console/register', body);
    expect(second.status).to.equal(302);
    expect(second.location).to.equal(first.location);
    expect(await charges(), 'the second send charged nothing').to.equal(start + 1);
    const g = await fieldsOf('/console/register');
    const both = await Promise.all(
      [0, 1].map(() => post('/console/register', { ...body, _csrf: g.csrf, _form: g.form, domain: `at-once-${kind.engine}.dev` })),
    );
    expect(
      both.map((x) => x.status),
      both.map((x) => /<main[\s\S]{0,1500}/.exec(x.text)?.[0]).join('\n'),
    ).to.deep.equal([302, 302]);
    expect(both[0]!.location).to.equal(both[1]!.location);
    expect(await charges(), 'one more registration for the concurrent pair').to.equal(start + 2);
    // Without the form's id (a form drawn before this rule, or a script) the second send is refused by the registry's own check.
    const bare = await post('/console/register', {
      _csrf: f.csrf,
      domain: `twice-${kind.engine}.dev`,
      years: '1',
      auto_renew: '1',
      labels: '',
    });
    expect(bare.status).to.equal(422);
    expect(await charges()).to.equal(start + 2);
  });

  it('a webhook form sent twice creates one webhook; the second send does not hand out the secret again', async () => {
    const count = async () => (await api.system.store.knex('webhooks')).length;
    const start = await count();
    const f = await fieldsOf('/console/webhooks');
    const body = { _csrf: f.csrf, _form: f.form, url: 'https://hooks.example.com/once', events: '*', domains: '' };
    const first = await post('/console/webhooks', body);
    const second = await post('/console/webhooks', body);
    expect([first.status, second.status]).to.deep.equal([302, 302]);
    expect(second.location).to.equal(first.location);
    expect(first.cookies.some((c) => c.startsWith('dmk_once='))).to.equal(true);
    expect(second.cookies.some((c) => c.startsWith('dmk_once='))).to.equal(false);
    expect(await count()).to.equal(start + 1);
    // Its page and the list say "every event", not "*".
    const made = await consoleHttp(api).get(first.location!, cookie, 'en');
    expect(made.text).to.contain('every event');
    expect(made.text).not.to.match(/>\s*\*\s*</);
    // The same form id with other content is refused, not run.
    const other = await post('/console/webhooks', { ...body, url: 'https://hooks.example.com/other' });
    expect(other.status).to.equal(409);
    expect(other.text).to.include('already sent with other content');
    expect(await count()).to.equal(start + 1);
  });

  it('a form that failed (a field error) may be sent again with the same id: nothing was done the first time', async () => {
    const f = await fieldsOf('/console/webhooks');
    const body = { _csrf: f.csrf, _form: f.form, url: 'not a url', events: '*', domains: '' };
    const a = await post('/console/webhooks', body);
    const b = await post('/console/webhooks', body);
    expect([a.status, b.status]).to.deep.equal([422, 422]);
  });
});

eachStore('Console forms: a form sent after the session ended', (kind) => {
  let api: TestApi;
  before(async function () {
    this.timeout(60_000);
    api = await startApi(kind);
  });
  after(async () => {
    await api?.close();
  });
  const send = (path: string, cookie: string, form: Record<string, string>) => consoleHttp(api).post(path, cookie, form);
  const hidden = hiddenField;

  it('leads to sign-in with nothing done, then back to the same form filled in; one button sends it under the new session', async () => {
    const cookie = await api.signIn();
    const page = (await consoleHttp(api).get('/console/webhooks', cookie)).text;
    const count = async () => (await api.system.store.knex('webhooks')).length;
    const start = await count();
    // The session ends while the form is open (12 hours after sign-in).
    api.clock.advance(13 * 3600_000);
    const url = 'https://hooks.example.com/after-expiry';
    const late = await send('/console/webhooks', cookie, {
      _csrf: hidden(page, '_csrf')!,
      _form: hidden(page, '_form')!,
      url,
      events: 'domain.registered',
      domains: '',
    });
    expect(late.status).to.equal(401);
    expect(late.text).to.include('id="resume-note"');
    expect(late.text).to.include('nothing was done');
    expect(await count()).to.equal(start);
    // Sign in from that page: the pre-session cookie and its token, the resume carried in hidden fields.
    const pre = late.cookies.find((c) => c.startsWith('dmk_console_pre='))!.split(';')[0]!;
    api.clock.advance(31_000);
    const { generate } = await import('otplib');
    const totp = await generate({ secret: api.demo.totpSecret, epoch: Math.floor(api.clock.now().getTime() / 1000) });
    const signedIn = await send('/console/sign-in', pre, {
      _csrf: hidden(late.text, '_csrf')!,
      next: '',
      _resume_action: hidden(late.text, '_resume_action')!,
      _resume: hidden(late.text, '_resume')!,
      email: api.demo.email,
      password: api.demo.password,
      totp,
    });
    expect(signedIn.status, signedIn.text.slice(0, 400)).to.equal(200);
    expect(signedIn.text).to.include('Send the form again');
    expect(signedIn.text).to.include(url);
    const session = signedIn.cookies.find((c) => c.startsWith('dmk_session='))!.split(';')[0]!;
    const resent = await send('/console/webhooks', session, {
      _csrf: hidden(signedIn.text, '_csrf')!,
      _form: hidden(signedIn.text, '_form')!,
      url: hidden(signedIn.text, 'url')!,
      events: hidden(signedIn.text, 'events')!,
      domains: hidden(signedIn.text, 'domains')!,
    });
    expect(resent.status, resent.text.slice(0, 400)).to.equal(302);
    expect(await count()).to.equal(start + 1);
    expect((await api.system.store.knex('webhooks').orderBy('created_at', 'desc').first()).url).to.equal(url);
  });

  it('never carries a transfer code or a password through the sign-in page, and says which fields to type again', async () => {
    const cookie = await api.signIn();
    api.clock.advance(13 * 3600_000);
    const late = await send('/console/transfers', cookie, {
      _csrf: 'stale',
      domain: 'transfer-kept.com',
      auth_code: 'sandbox-auth-ok',
      years: '2',
    });
    expect(late.status).to.equal(401);
    expect(late.text).not.to.include('sandbox-auth-ok');
    expect(hidden(late.text, '_resume')).to.include('transfer-kept.com');
    expect(late.text).to.match(/Not kept \(type them again\):\s*<code>auth_code<\/code>/);
  });
});

eachStore('Console: what a person does is recorded as theirs', (kind) => {
  let api: TestApi;
  before(async function () {
    this.timeout(60_000);
    api = await startApi(kind);
  });
  after(async () => {
    await api?.close();
  });

  it('the events of console actions name the person (person:<id>), not the transient key; a key’s own actions still name the key', async () => {
    const cookie = await api.signIn();
    const owner = await api.system.store.knex('people').where({ email: api.demo.email }).first();
    const http = consoleHttp(api);
    const page = (await http.get('/console/webhooks', cookie)).text;
    const r = await http.post('/console/webhooks', cookie, {
      _csrf: hiddenField(page, '_csrf')!,
      url: 'https://hooks.example.com/who',
      events: '*',
      domains: '',
    });
    expect(r.status).to.equal(302);
    const created = await api.system.store.knex('events').where({ type: 'webhook.created' }).orderBy('seq', 'desc').first();
    expect(created.actor).to.equal(`person:${owner.id}`);
    const hook = await api.system.store.knex('webhooks').orderBy('created_at', 'desc').first();
    expect(hook.created_by).to.equal(`person:${owner.id}`);

    const key = await api.issueKey({ environment: 'test', rights: ['webhook.manage'], domains: ['domivka-demo.dev'] });
    const byKey = await api.call('/v1/webhooks', {
      method: 'POST',
      headers: { ...bearer(key.secret), 'idempotency-key': 'who-by-key' },
      json: { url: 'https://hooks.example.com/by-key', events: ['*'] },
    });
    expect(byKey.status, JSON.stringify(byKey.body)).to.equal(201);
    const second = await api.system.store.knex('events').where({ type: 'webhook.created' }).orderBy('seq', 'desc').first();
    expect(second.actor).to.equal(`key:${key.id}`);
  });
});
