import { expect } from 'chai';
import QRCode from 'qrcode';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { eachStore } from '../support/stores.js';
import { addPerson, startApi, type TestApi } from '../support/system.js';
import { checkPage, launch, signInThroughForm, totpFor } from './browser.js';
import { noticeText } from '../../adapters/http/console/pages.js';

/**
 * The console's keys, people and security pages in headless Chromium (issue 25, items 6–9): every result
 * page reloaded without a second effect, the CIDR field by class, two-factor enrolment from the QR payload,
 * a forgotten password reset through the in-app outbox, a password change, a used TOTP code told apart,
 * the sandbox clock in the header, and axe-core on every page (no serious or critical violation).
 * Screenshots at 1280 and 375 px go to $CONSOLE_SHOTS (default /tmp/console-a-shots), never to git.
 */
const SHOTS = process.env.CONSOLE_SHOTS || '/tmp/console-a-shots';

eachStore('Console keys, people and security in headless Chromium', (kind) => {
  let api: TestApi;
  let browser: Browser;
  let ctx: BrowserContext;
  let page: Page;
  let demo: { email: string; password: string; totpSecret: string };
  const errors: string[] = [];
  const tag = kind.engine;
  const nav = (p: Page, action: Promise<unknown>) => Promise.all([p.waitForNavigation(), action]);
  const text = async (p: Page, sel = 'main') => (await p.locator(sel).first().textContent()) ?? '';

  const check = (p: Page, name: string) => checkPage(p, name, tag === 'sqlite' ? SHOTS : null);
  const outboxCount = async (address: string) => (await api.system.store.mailbox.to(address, 100)).length;

  before(async function () {
    this.timeout(120_000);
    api = await startApi(kind);
    browser = await launch();
    ctx = await browser.newContext({ locale: 'en-GB', timezoneId: 'America/New_York', viewport: { width: 1280, height: 900 } });
    page = await ctx.newPage();
    page.on('dialog', (d) => void d.accept());
    page.on('pageerror', (e) => errors.push(e.message));
    // A CSP violation (the inline QR SVG, say) shows as a console error; refused forms answer 4xx on purpose.
    page.on('console', (m) => {
      if (m.type() === 'error' && !/status of 4\d\d/.test(m.text())) errors.push(m.text());
    });
    demo = { email: api.demo.email, password: api.demo.password, totpSecret: api.demo.totpSecret };
    await signInThroughForm(page, api, demo);
  });
  beforeEach(function () {
    this.currentTest?.timeout(120_000);
  });
  after(async () => {
    await browser?.close();
    await api?.close();
  });

  it('the key wizard leaves CIDR empty for class 0–1 and requires it, pre-filled and explained, for class 2–3', async () => {
    await page.goto(`${api.base}/console/keys/new?step=3&environment=test&template=read_only&scope=label&label=prod`);
    expect(await page.inputValue('#cidr'), 'class 0: empty').to.equal('');
    expect(await page.getAttribute('#cidr', 'required')).to.equal(null);
    expect(await text(page, '#cidr-hint')).to.include('needs no network');
    await check(page, '10-wizard-conditions-class0');
    await page.goto(`${api.base}/console/keys/new?step=3&environment=test&template=billing&scope=label&label=prod`);
    expect(await page.inputValue('#cidr'), 'class 2: the caller’s address').to.equal('127.0.0.1/32');
    expect(await page.getAttribute('#cidr', 'required')).to.equal('');
    expect(await text(page, '#cidr-hint')).to.include('the server that will call the API');
    await check(page, '11-wizard-conditions-class2');
    // The browser refuses to go on with the required field emptied (nothing is previewed).
    await page.fill('#cidr', '');
    await page.click('text=Review');
    expect(new URL(page.url()).searchParams.get('step')).to.equal('3');
  });

  it('issuing a key: the key page shows what it reaches; reloading the result issues nothing more', async () => {
    await page.goto(`${api.base}/console/keys/new?step=4&environment=test&template=read_only&scope=label&label=prod&name=reload-check`);
    await check(page, '12-wizard-review');
    const count = async () => (await api.system.store.keys.list({ accountId: api.demo.accountId, limit: 200 })).length;
    const before = await count();
    await nav(page, page.click('text=Issue the key'));
    const secret = (await text(page, '#key-secret')).trim();
    expect(secret).to.match(/^dmk_test_/);
    await check(page, '13-key-issued');
    await page.reload();
    expect(await page.content()).to.not.include(secret);
    expect(await text(page)).to.include('already shown once');
    expect(await count(), 'one key, whatever the reloads').to.equal(before + 1);
    await check(page, '14-key-issued-reloaded');
    await page.goto(`${api.base}/console/keys`);
    const row = page.locator('tr', { hasText: 'reload-check' });
    expect(await row.textContent())
      .to.include('label: prod')
      .and.include('0 · Read')
      .and.include('not used yet');
    await check(page, '15-keys');
    await nav(page, row.locator('a').first().click());
    expect(await text(page))
      .to.include('dns.read')
      .and.include('any address');
    await check(page, '16-key-detail');
    await nav(page, page.click('text=Revoke the key'));
    expect(await text(page, '[role=status]')).to.include('revoked');
    await page.reload();
    expect(await text(page, '[role=status]')).to.include('revoked');
  });

  it('an invitation says truthfully that no mail server is set, shows the link once; the invitee scans the QR and signs in with a first code', async () => {
    await page.goto(`${api.base}/console/people`);
    expect(await text(page)).to.include('No mail server is set');
    await check(page, '20-people');
    await page.fill('#invite-email', 'joiner@example.com');
    await nav(page, page.click('text=Send the invitation'));
    expect((await text(page, 'h1')).trim()).to.equal('Invitation created');
    expect(await text(page, '[role=status]'))
      .to.include('No mail server is set')
      .and.include('in-app outbox')
      .and.not.include('was sent');
    const link = (await text(page, '#invite-link')).trim();
    await check(page, '21-invited');
    await page.reload();
    expect(await page.content()).to.not.include(link);
    const { invitations } = await api.system.get((await import('../../src/tokens.js')).TOKENS.ManagePeople).list({
      accountId: api.demo.accountId,
      personId: api.demo.personId,
      role: 'owner',
    });
    expect(
      invitations.filter((i) => i.email === 'joiner@example.com'),
      'one invitation',
    ).to.have.length(1);
    const other = await (await browser.newContext({ locale: 'uk-UA' })).newPage();
    await other.goto(link.replace(/^https?:\/\/[^/]+/, api.base));
    await check(other, '23-invitation-accept-uk');
    await other.fill('#name', 'Joiner');
    await other.fill('#password', 'joiner joiner joiner');
    await nav(other, other.click('button[type=submit]'));
    const uri = (await text(other, '#totp-uri')).trim();
    // The QR code is the otpauth:// payload itself: the same SVG as the payload encoded again.
    const svg = await other.locator('figure.qr svg').evaluate((e) => e.outerHTML);
    const again = await QRCode.toString(uri, { type: 'svg', margin: 2, errorCorrectionLevel: 'M' });
    expect(svg.match(/ d="[^"]+"/g)).to.deep.equal(again.match(/ d="[^"]+"/g));
    const secret = new URL(uri).searchParams.get('secret')!;
    await check(other, '22-welcome-uk');
    await other.fill('#password', 'joiner joiner joiner');
    await other.fill('#totp', await totpFor(api, secret));
    await nav(other, other.click('button[type=submit]'));
    expect(new URL(other.url()).pathname).to.equal('/console/');
    await other.context().close();
  });

  it('two-factor enrolment: the code computed from the QR payload switches it on; a reload makes no second secret', async () => {
    const who = await addPerson(api, 'member', 'enrol@example.com');
    await api.system.store.people.setTwoFactor(who.id, false);
    const p = await (await browser.newContext({ locale: 'en-GB', viewport: { width: 1280, height: 900 } })).newPage();
    await p.goto(`${api.base}/console/sign-in`);
    await p.fill('#email', who.email);
    await p.fill('#password', who.password);
    await nav(p, p.click('button[type=submit]'));
    // A member issues keys up to class 1 (the key rule): the class 2–3 templates are there, but not choosable.
    await p.goto(`${api.base}/console/keys/new`);
    expect(await p.isDisabled('input[name=template][value=billing]')).to.equal(true);
    expect(await p.isDisabled('input[name=template][value=dns_editor]')).to.equal(false);
    expect(await text(p, 'label:has(input[value=billing])')).to.include('owners only');
    await p.goto(`${api.base}/console/security`);
    await check(p, '30-security-2fa-off');
    await nav(p, p.click('text=Switch on two-factor checks'));
    const uri = (await text(p, '#totp-uri')).trim();
    const sealed = (await api.system.store.accounts.findPerson(who.id))!.totpPendingSecret;
    await check(p, '31-enrolment-qr');
    await p.reload();
    expect(await text(p)).to.include('already shown once');
    expect((await api.system.store.accounts.findPerson(who.id))!.totpPendingSecret, 'the same pending secret').to.equal(sealed);
    const secret = new URL(uri).searchParams.get('secret')!;
    await p.fill('#totp', await totpFor(api, secret));
    await nav(p, p.click('text=Confirm and switch on'));
    expect(await text(p, '[role=status]')).to.include('Two-factor checks are on again');
    expect((await api.system.store.accounts.findPerson(who.id))!.twoFactorEnabled).to.equal(true);
    await p.context().close();
  });

  it('a used one-time code gets its own text, not "wrong code"', async () => {
    const p = await (await browser.newContext({ locale: 'en-GB' })).newPage();
    const code = await totpFor(api, api.demo.totpSecret);
    for (const round of [1, 2]) {
      await p.goto(`${api.base}/console/sign-in`);
      await p.fill('#email', api.demo.email);
      await p.fill('#password', api.demo.password);
      await p.fill('#totp', code);
      await nav(p, p.click('button[type=submit]'));
      if (round === 1) {
        expect(new URL(p.url()).pathname).to.equal('/console/');
        await p.context().clearCookies();
      }
    }
    expect(await text(p, '[role=alert]'))
      .to.include('already used')
      .and.include('next code');
    await check(p, '40-sign-in-code-used');
    await p.context().close();
  });

  it('a forgotten password: the same answer for any address, the mail in the in-app outbox, 2FA still asked, the link works once', async () => {
    const p = await (await browser.newContext({ locale: 'en-GB', viewport: { width: 1280, height: 900 } })).newPage();
    await p.goto(`${api.base}/console/sign-in`);
    await nav(p, p.click('text=Forgot your password?'));
    await check(p, '50-forgot');
    await p.fill('#email', 'nobody@example.com');
    await nav(p, p.click('text=Send the link'));
    const unknown = await text(p, '[role=status]');
    await p.fill('#email', api.demo.email);
    await nav(p, p.click('text=Send the link'));
    const known = await text(p, '[role=status]');
    expect(known.replace(api.demo.email, '')).to.equal(unknown.replace('nobody@example.com', ''));
    expect(known).to.include('in-app outbox');
    await check(p, '51-forgot-sent');
    const mails = await outboxCount(api.demo.email);
    await p.reload();
    expect(await outboxCount(api.demo.email), 'a reload sends nothing more').to.equal(mails);
    await nav(p, p.click('text=in-app outbox'));
    await check(p, '52-outbox');
    // The link points at PUBLIC_URL (unset here: port 8080); the same path on this test server.
    const href = (await p.locator('article').first().locator('a[href*="/password/reset"]').first().getAttribute('href'))!;
    const resetUrl = href.replace(/^https?:\/\/[^/]+/, api.base);
    await p.goto(resetUrl);
    await check(p, '53-reset');
    await p.fill('#password', 'a brand new password');
    await p.fill('#totp', '000000');
    await nav(p, p.click('text=Set the new password'));
    expect(await text(p, '[role=alert]')).to.include('one-time code is wrong');
    await p.fill('#password', 'a brand new password');
    await p.fill('#totp', await totpFor(api, api.demo.totpSecret));
    await nav(p, p.click('text=Set the new password'));
    expect(new URL(p.url()).pathname).to.equal('/console/sign-in');
    expect(await text(p, '[role=status]')).to.include('new password is set');
    const reused = await p.goto(resetUrl);
    expect(reused!.status()).to.equal(404);
    expect(await text(p)).to.include('password_reset_invalid');
    // The old session (the shared page's) ended with the reset; the new password signs in.
    await page.goto(`${api.base}/console/keys`);
    expect(new URL(page.url()).pathname).to.equal('/console/sign-in');
    demo.password = 'a brand new password';
    await signInThroughForm(page, api, demo);
    expect(new URL(page.url()).pathname).to.equal('/console/');
    await p.context().close();
  });

  it('a password change ends the sessions and asks to sign in with the new password', async () => {
    await page.goto(`${api.base}/console/security`);
    await check(page, '54-security');
    await page.fill('#current_password', 'wrong wrong wrong');
    await page.fill('#new_password', 'changed password here');
    await nav(page, page.click('text=Change the password'));
    expect(await text(page, '[role=alert]')).to.include('current_password');
    await page.goto(`${api.base}/console/security`);
    await page.fill('#current_password', demo.password);
    await page.fill('#new_password', 'changed password here');
    await nav(page, page.click('text=Change the password'));
    expect(new URL(page.url()).pathname).to.equal('/console/sign-in');
    expect(await text(page, '[role=status]')).to.include('password was changed');
    demo.password = 'changed password here';
    await signInThroughForm(page, api, demo);
    expect(new URL(page.url()).pathname).to.equal('/console/');
  });

  it('the sandbox clock shows in the header with a time-travelled badge once moved; domains warn when expiring', async () => {
    await page.goto(`${api.base}/console/`);
    expect(await text(page, '#sandbox-clock'))
      .to.include('Sandbox time')
      .and.not.include('time travelled');
    // domivka-blog.kyiv.ua is seeded 20 days from expiry.
    expect(await text(page, '[role=status]'))
      .to.include('Domains that expire within 30 days: 1.')
      .and.not.include('expired');
    expect(await text(page, 'tr:has-text("domivka-blog.kyiv.ua")')).to.include('expires in 20 d');
    await check(page, '61-domains-expiring');
    await page.goto(`${api.base}/console/sandbox`);
    await page.fill('#advance', 'P30D');
    await nav(page, page.click('text=Move forward'));
    await page.reload();
    expect(await api.system.store.sandboxClocks.offset(api.demo.accountId), 'one move, however many reloads').to.equal(30 * 86_400_000);
    expect(await text(page, '#sandbox-clock')).to.include('time travelled: +30 d');
    await check(page, '60-sandbox');
    // The owner's control in the header leads to the form (a plain link: no second submit button on every page).
    await page.goto(`${api.base}/console/keys`);
    await nav(page, page.click('a.clockmove'));
    expect(new URL(page.url()).pathname).to.equal('/console/sandbox');
    expect(await page.locator('#advance').count()).to.equal(1);
    await page.goto(`${api.base}/console/`);
    await check(page, '62-domains-after-move');
  });

  it('notices show each time once, in the person’s zone; the other pages pass axe too', async () => {
    const ny = { lang: 'en' as const, tz: 'America/New_York' } as Parameters<typeof noticeText>[0];
    const shown = noticeText(ny, 'Key X renewed a.com until 2027-01-01. Time: 2026-11-26T15:00:00.000Z.');
    expect(shown).to.equal('Key X renewed a.com until 2027-01-01.');
    expect(noticeText(ny, 'It takes effect at 2026-11-27T15:00:00.000Z unless confirmed.')).to.include('27 Nov 2026, 10:00');
    for (const [path, name] of [
      ['/console/notices', '70-notices'],
      ['/console/billing', '71-billing'],
      ['/console/operations', '72-operations'],
      ['/console/domains/domivka-demo.com.ua', '73-domain'],
      ['/console/keys/new', '74-wizard-template'],
      ['/console/reauth?next=/console/security', '75-reauth'],
      ['/console/account/delete', '76-account-delete'],
    ] as const) {
      await page.goto(`${api.base}${path}`);
      await check(page, name);
    }
    const times = await page.goto(`${api.base}/console/notices`).then(() => text(page));
    expect(times, 'no UTC instant left in the notices').to.not.match(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/);
    expect(errors, 'no script error').to.deep.equal([]);
  });
});
