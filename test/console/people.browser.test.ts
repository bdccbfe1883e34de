import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { eachStore } from '../support/stores.js';
import { startApi, type TestApi } from '../support/system.js';
import { launch, shot, signInThroughForm } from './browser.js';

/**
 * The people, payment, two-factor and account pages in headless Chromium: an invitation by link accepted in
 * another browser, the new person signing in, a sandbox card saved, two-factor checks switched off, the
 * account deletion refused with its reason, and a session that ends.
 */
eachStore('Console people and account pages in headless Chromium', (kind) => {
  let api: TestApi;
  let browser: Browser;
  let page: Page;
  const tag = kind.engine;
  const nav = (p: Page, action: Promise<unknown>) => Promise.all([p.waitForNavigation(), action]);

  before(async function () {
    this.timeout(120_000);
    api = await startApi(kind);
    browser = await launch();
    const ctx = await browser.newContext({ locale: 'en-GB', viewport: { width: 1200, height: 900 } });
    page = await ctx.newPage();
    page.on('dialog', (d) => void d.accept());
    await signInThroughForm(page, api, api.demo);
  });
  // A browser on a loaded CI machine is slow: each step may take up to two minutes (mocha's default is 20 s).
  beforeEach(function () {
    this.currentTest?.timeout(120_000);
  });
  after(async () => {
    await browser?.close();
    await api?.close();
  });

  it('an owner invites by e-mail link; the invitee joins in another browser, gets a TOTP secret once and signs in', async () => {
    await page.goto(`${api.base}/console/people`);
    await page.fill('#invite-email', 'new.member@example.com');
    await page.selectOption('#invite-role', 'member');
    await nav(page, page.click('text=Send the invitation'));
    const link = (await page.locator('#invite-link').textContent())!.trim();
    expect(link).to.match(/\/console\/invitations\?token=[0-9A-Za-z]{43}$/);
    await shot(page, `${tag}-20-invitation-sent`);
    const other = await (await browser.newContext({ locale: 'en-GB' })).newPage();
    await other.goto(`${api.base}${new URL(link).pathname}${new URL(link).search}`);
    expect(await other.locator('main').textContent()).to.include('new.member@example.com');
    await other.fill('#name', 'New Member');
    await other.fill('#password', 'correct horse battery staple');
    await nav(other, other.click('button[type=submit]'));
    const secret = (await other.locator('#totp-secret').textContent())!.trim();
    expect(secret).to.match(/^[A-Z2-7]{16,}$/);
    await shot(other, `${tag}-21-invitation-accepted`);
    await signInThroughForm(other, api, { email: 'new.member@example.com', password: 'correct horse battery staple', totpSecret: secret });
    await other.goto(`${api.base}/console/people`);
    expect(await other.locator('h1').textContent()).to.equal('People of the account');
    expect(await other.locator('#invite-email').count(), 'members do not invite').to.equal(0);
    // The link works once.
    const again = await other.goto(`${api.base}${new URL(link).pathname}${new URL(link).search}`);
    expect(again!.status()).to.equal(404);
    await other.context().close();
  });

  it('the last owner is told they cannot leave; a member is promoted to owner', async () => {
    await page.goto(`${api.base}/console/people`);
    const me = await api.system.store.accounts.findPersonByEmail(api.demo.email);
    await nav(page, page.click(`form[action="/console/people/${me!.id}/remove"] button`));
    expect(await page.locator('[role=alert]').textContent()).to.include('last owner');
    const member = await api.system.store.accounts.findPersonByEmail('new.member@example.com');
    await page.goto(`${api.base}/console/people`);
    await page.selectOption(`#role-${member!.id}`, 'owner');
    await nav(page, page.click(`form[action="/console/people/${member!.id}/role"] button`));
    expect((await api.system.store.accounts.findPerson(member!.id))!.role).to.equal('owner');
    await shot(page, `${tag}-22-people`);
  });

  it('a sandbox card is saved from the balance page', async () => {
    await page.goto(`${api.base}/console/billing`);
    await page.fill('#card_number', '4000 0000 0000 0002');
    await nav(page, page.click('text=Save the card'));
    expect(await page.locator('main').textContent()).to.include('•••• 0002');
  });

  it('deleting the account is refused with the reason, in the page language', async () => {
    await page.goto(`${api.base}/console/account/delete`);
    await page.check('input[name=confirm]');
    await nav(page, page.click('button.danger'));
    const text = await page.locator('[role=alert]').textContent();
    expect(text).to.include('3 domains').and.include('account_not_empty');
    await shot(page, `${tag}-23-delete-refused`);
  });

  it('switching off two-factor checks asks to sign in again when the last proof is old, then tells the owners', async () => {
    api.clock.advance(6 * 60_000);
    await page.goto(`${api.base}/console/security`);
    await nav(page, page.click('text=Switch off two-factor checks'));
    expect(new URL(page.url()).pathname).to.equal('/console/reauth');
    const { totpFor } = await import('./browser.js');
    await page.fill('#password', api.demo.password);
    await page.fill('#totp', await totpFor(api, api.demo.totpSecret));
    await nav(page, page.click('button[type=submit]'));
    await nav(page, page.click('text=Switch off two-factor checks'));
    expect(await page.locator('[role=status]').textContent()).to.include('Two-factor checks are off');
    await shot(page, `${tag}-24-security`);
  });

  it('a session ends 12 hours after sign-in: the next page asks to sign in again', async () => {
    api.clock.advance(12 * 3600_000 + 1000);
    await page.goto(`${api.base}/console/keys`);
    expect(new URL(page.url()).pathname).to.equal('/console/sign-in');
    expect(await page.locator('[role=status]').textContent()).to.include('session has ended');
  });
});
