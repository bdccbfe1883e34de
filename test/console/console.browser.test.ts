import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { CONSOLE_CSP } from '../../adapters/http/console/console.app.js';
import { eachStore } from '../support/stores.js';
import { addPerson, bearer, startApi, type TestApi } from '../support/system.js';
import { launch, shot, signInThroughForm, totpFor } from './browser.js';

/**
 * The humans' console in headless Chromium: sign-in with TOTP, the key wizard in seed A8's
 * order and the issued key used with fetch, the transfer code after signing in again, CSRF refusals,
 * the language switch and the Accept-Language default.
 */
eachStore('Console in headless Chromium', (kind) => {
  let api: TestApi;
  let browser: Browser;
  let ctx: BrowserContext;
  let page: Page;
  const errors: string[] = [];
  const tag = kind.engine;

  before(async function () {
    this.timeout(120_000);
    api = await startApi(kind);
    browser = await launch();
    ctx = await browser.newContext({ locale: 'uk-UA', viewport: { width: 1200, height: 900 } });
    page = await ctx.newPage();
    page.on('dialog', (d) => void d.accept());
    // A CSP violation or a script error shows in the console: none may happen.
    // (The one refused sign-in answers 401 on purpose.)
    page.on('console', (m) => {
      if (m.type() === 'error' && !/status of 401/.test(m.text())) errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(String(e)));
  });
  // A browser on a loaded CI machine is slow: each step may take up to two minutes (mocha's default is 20 s).
  beforeEach(function () {
    this.currentTest?.timeout(120_000);
  });
  after(async () => {
    await browser?.close();
    await api?.close();
  });

  it('an unsigned visit goes to the sign-in page; the page carries a strict CSP', async () => {
    const res = await page.goto(`${api.base}/console/`);
    expect(page.url()).to.match(/\/console\/sign-in\?next=/);
    const csp = res!.headers()['content-security-policy']!;
    expect(csp).to.equal(CONSOLE_CSP);
    expect(csp).to.not.include('unsafe-inline');
    expect(await page.locator('h1').textContent()).to.equal('Вхід до консолі');
    expect(await page.getAttribute('html', 'lang')).to.equal('uk');
    await shot(page, `${tag}-01-sign-in`);
  });

  it('a wrong one-time code is refused; password + TOTP sign in and show the domains', async () => {
    await page.fill('#email', api.demo.email);
    await page.fill('#password', api.demo.password);
    await page.fill('#totp', '000000');
    await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
    expect(await page.locator('[role=alert]').textContent()).to.include('Не вдалося увійти');
    await signInThroughForm(page, api, api.demo);
    expect(new URL(page.url()).pathname).to.equal('/console/');
    expect(await page.locator('h1').textContent()).to.equal('Домени');
    const rows = await page.locator('tbody th[scope=row]').allTextContents();
    expect(rows).to.deep.equal(['domivka-blog.kyiv.ua', 'domivka-demo.com.ua', 'domivka-demo.dev']);
    await shot(page, `${tag}-02-domains`);
  });

  it('the domain page shows status, expiry and zone records', async () => {
    await Promise.all([page.waitForURL('**/console/domains/domivka-demo.com.ua'), page.click('tbody a:text("domivka-demo.com.ua")')]);
    expect(await page.locator('h1').textContent()).to.equal('domivka-demo.com.ua');
    const body = await page.locator('main').textContent();
    expect(body).to.include('Записи зони');
    expect(body).to.match(/SOA/);
    expect(body, 'the expiry as a date in the page language').to.match(/\d{1,2} \S+ \d{4}/);
    await shot(page, `${tag}-03-domain`);
  });

  it('the language switch works both ways and keeps the page', async () => {
    await Promise.all([page.waitForURL('**/console/domains/domivka-demo.com.ua'), page.click('a[hreflang=en]')]);
    expect(await page.getAttribute('html', 'lang')).to.equal('en');
    expect(await page.locator('h1').textContent()).to.equal('domivka-demo.com.ua');
    expect(await page.locator('main').textContent()).to.include('Zone records');
    await page.goto(`${api.base}/console/`);
    expect(await page.locator('h1').textContent()).to.equal('Domains');
    await Promise.all([page.waitForURL(`${api.base}/console/`), page.click('a[hreflang=uk]')]);
    expect(await page.locator('h1').textContent()).to.equal('Домени');
    await Promise.all([page.waitForURL(`${api.base}/console/`), page.click('a[hreflang=en]')]); // the rest of the tour in English
  });

  it('Accept-Language sets the default language before any choice', async () => {
    for (const [locale, heading] of [
      ['en-US', 'Sign in to the console'],
      ['uk-UA', 'Вхід до консолі'],
      ['de-DE', 'Вхід до консолі'],
    ] as const) {
      const c = await browser.newContext({ locale });
      const p = await c.newPage();
      await p.goto(`${api.base}/console/sign-in`);
      expect(await p.locator('h1').textContent(), locale).to.equal(heading);
      await c.close();
    }
  });

  let secret = '';
  it('the key wizard goes template → label → conditions → summary → the key shown once, which then works', async () => {
    await page.goto(`${api.base}/console/keys`);
    await Promise.all([page.waitForNavigation(), page.click('text=Issue a key')]);
    expect(await page.locator('ol.steps li[aria-current=step]').textContent()).to.equal('Rights template');
    await page.check('input[name=environment][value=test]');
    await page.check('input[name=template][value=read_only]');
    await shot(page, `${tag}-04-wizard-template`);
    await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
    expect(await page.locator('ol.steps li[aria-current=step]').textContent()).to.equal('Domains or label');
    await page.check('input[name=scope][value=label]');
    expect(await page.locator('fieldset[data-scope=label]').isVisible(), 'the script shows the label choice').to.equal(true);
    await page.selectOption('#label', 'prod');
    await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
    expect(await page.locator('ol.steps li[aria-current=step]').textContent()).to.equal('Conditions');
    await page.fill('#name', 'browser read-only');
    await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
    expect(await page.locator('ol.steps li[aria-current=step]').textContent()).to.equal('Review');
    const summary = await page.locator('.summary').textContent();
    expect(summary).to.include('The key works in the test environment');
    expect(summary).to.include('on domains labelled "prod"');
    await shot(page, `${tag}-05-wizard-summary`);
    await Promise.all([page.waitForNavigation(), page.click('text=Issue the key')]);
    secret = (await page.locator('#key-secret').textContent())!.trim();
    expect(secret).to.match(/^dmk_test_/);
    await page.click('button[data-copy=key-secret]');
    // The copy is asynchronous (Clipboard API, else the selection): wait for the button to say so.
    await page.waitForFunction(() => document.querySelector('button[data-copy=key-secret]')?.textContent === 'Copied', null, {
      timeout: 10_000,
    });
    await shot(page, `${tag}-06-key-issued`);
    // POST-redirect-GET: a reload shows "already shown" and issues nothing more.
    const before = (await api.system.store.keys.list({ accountId: api.demo.accountId, limit: 100 })).length;
    await page.reload();
    expect(await page.content()).to.not.include(secret);
    expect(await page.locator('main').textContent()).to.include('already shown once');
    expect((await api.system.store.keys.list({ accountId: api.demo.accountId, limit: 100 })).length, 'no second key').to.equal(before);
    // The key works with a plain HTTP client, and reaches exactly the prod-labelled domains.
    const r = await fetch(`${api.base}/v1/domains`, { headers: bearer(secret) });
    expect(r.status).to.equal(200);
    const names = ((await r.json()) as { data: Array<{ domain: string }> }).data.map((d) => d.domain);
    expect(names).to.deep.equal(['domivka-demo.com.ua', 'domivka-demo.dev']);
    // Reloading the list never shows the key string again.
    await page.goto(`${api.base}/console/keys`);
    expect(await page.content()).to.not.include(secret);
    expect(await page.locator('main').textContent()).to.include('browser read-only');
    await shot(page, `${tag}-07-keys`);
  });

  it('a form POST without or with a wrong CSRF token is refused and changes nothing', async () => {
    const keyId = (await api.system.store.keys.list({ accountId: api.demo.accountId, limit: 50 })).find(
      (k) => k.name === 'browser read-only',
    )!.id;
    const form = { headers: { 'content-type': 'application/x-www-form-urlencoded' } };
    // page.request carries the browser's cookies, as a forged cross-site form would if cookies were sent.
    const missing = await page.request.post(`${api.base}/console/keys/${keyId}/revoke`, { ...form, data: '' });
    expect(missing.status()).to.equal(403);
    expect(await missing.text()).to.include('csrf_failed');
    const wrong = await page.request.post(`${api.base}/console/keys/${keyId}/revoke`, { ...form, data: `_csrf=${'x'.repeat(43)}` });
    expect(wrong.status()).to.equal(403);
    expect(await wrong.text()).to.include('csrf_failed');
    expect((await fetch(`${api.base}/v1/domains`, { headers: bearer(secret) })).status, 'the key still works').to.equal(200);
    // The key's own page (with the session's token) does revoke it.
    await page.goto(`${api.base}/console/keys/${keyId}`);
    await Promise.all([page.waitForNavigation(), page.click(`form[action="/console/keys/${keyId}/revoke"] button`)]);
    expect(await page.locator('[role=status]').textContent()).to.include('revoked');
    const revoked = await fetch(`${api.base}/v1/domains`, { headers: bearer(secret) });
    expect(revoked.status, 'revoked at once').to.equal(401);
    expect(((await revoked.json()) as { error: { code: string } }).error.code).to.equal('key_revoked');
  });

  it('revealing the transfer code asks to sign in again after 5 minutes; the reveal tells every owner', async () => {
    const second = await addPerson(api, 'owner', 'second-owner@example.com');
    api.clock.advance(6 * 60_000);
    await page.goto(`${api.base}/console/domains/domivka-demo.com.ua`);
    await Promise.all([page.waitForNavigation(), page.click('text=Reveal the transfer code')]);
    // "Sign in again" answers the form itself, carrying it; confirmed, the reveal is sent again with one button.
    expect(await page.locator('h1').textContent()).to.equal('Sign in again');
    await shot(page, `${tag}-08-reauth`);
    await page.fill('#password', api.demo.password);
    await page.fill('#totp', await totpFor(api, api.demo.totpSecret));
    await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
    expect(await page.locator('h1').textContent()).to.equal('Send the form again');
    await Promise.all([page.waitForNavigation(), page.click('button:has-text("Send it")')]);
    const code = (await page.locator('#transfer-code').textContent())!.trim();
    const registry = await api.system.store.sandboxRegistry.find('domivka-demo.com.ua');
    expect(code).to.equal(registry!.transferCode);
    await shot(page, `${tag}-09-transfer-code`);
    const notices = await api.system.store.notices.listForPerson(second.id, 'test', undefined, 10);
    expect(notices.map((n) => n.kind)).to.include('domain.transfer_code_revealed');
    const events = await api.system.store.uow.db()('events').where({ type: 'domain.transfer_code_revealed' });
    expect(events).to.have.length(1);
  });

  it('the other pages render for a person: notices, balance, people, security, operations, sandbox', async () => {
    for (const [path, heading, name] of [
      ['/console/notices', 'Notices', '10-notices'],
      ['/console/billing', 'Balance and payment', '11-billing'],
      ['/console/people', 'People of the account', '12-people'],
      ['/console/security', 'Security', '13-security'],
      ['/console/operations', 'Pending operations', '14-operations'],
      ['/console/sandbox', 'Sandbox clock', '15-sandbox'],
    ] as const) {
      await page.goto(`${api.base}${path}`);
      expect(await page.locator('h1').textContent(), path).to.equal(heading);
      await shot(page, `${tag}-${name}`);
    }
    expect(await page.locator('main').textContent()).to.be.a('string');
  });

  it('no script error and no CSP violation happened on any page', () => {
    expect(errors, errors.join('\n')).to.deep.equal([]);
  });
});
