import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { TOKENS } from '../../src/tokens.js';
import { eachStore } from '../support/stores.js';
import { startApi, type TestApi } from '../support/system.js';
import { launch, shot, signInThroughForm } from './browser.js';

/**
 * The people, payment, two-factor and account pages in headless Chromium: an invitation by link accepted in
 * another browser, the new person signing in, a sandbox card saved, two-factor checks switched off and on
 * again with a new secret, the account deletion refused with its reason, and a session that ends.
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
    expect(await again!.text()).to.include('<code>invitation_invalid</code>');
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
    // "Sign in again" answers the form itself, carrying it; confirmed, it is sent again with one button.
    expect(await page.locator('h1').textContent()).to.equal('Sign in again');
    expect(await page.locator('#resume-note').textContent()).to.include('has not been done yet');
    const { totpFor } = await import('./browser.js');
    await page.fill('#password', api.demo.password);
    await page.fill('#totp', await totpFor(api, api.demo.totpSecret));
    await nav(page, page.click('button[type=submit]'));
    await nav(page, page.click('button:has-text("Send it")'));
    expect(await page.locator('[role=status]').textContent()).to.include('Two-factor checks are off');
    await shot(page, `${tag}-24-security`);
  });

  it('switching two-factor checks on again: sign in again, a new secret shown once, a wrong code refused, the right one switches it on', async () => {
    const { totpFor } = await import('./browser.js');
    api.clock.advance(6 * 60_000);
    await page.goto(`${api.base}/console/security`);
    expect(await page.locator('main').textContent()).to.include('Off: signing in takes the password only');
    await nav(page, page.click('text=Switch on two-factor checks'));
    expect(await page.locator('h1').textContent()).to.equal('Sign in again');
    expect(await page.locator('#totp').count(), 'two-factor is off: the password alone').to.equal(0);
    await page.fill('#password', api.demo.password);
    await nav(page, page.click('button[type=submit]'));
    await nav(page, page.click('button:has-text("Send it")'));
    const secret = (await page.locator('#totp-secret').textContent())!.trim();
    const uri = (await page.locator('#totp-uri').textContent())!.trim();
    expect(secret)
      .to.match(/^[A-Z2-7]{16,}$/)
      .and.not.equal(api.demo.totpSecret);
    expect(uri)
      .to.match(/^otpauth:\/\/totp\//)
      .and.include(`secret=${secret}`);
    expect(await page.locator('[role=status]').textContent()).to.include('authenticator app');
    await shot(page, `${tag}-25-two-factor-enrolment`);
    // A wrong code (the old secret's): refused, the form asks again, nothing switched.
    const right = await totpFor(api, secret);
    const old = await totpFor(api, api.demo.totpSecret);
    await page.fill('#totp', old === right ? String((Number(old) + 1) % 1_000_000).padStart(6, '0') : old);
    await nav(page, page.click('text=Confirm and switch on'));
    expect(await page.locator('[role=alert]').textContent())
      .to.include('does not match')
      .and.include('totp_invalid');
    expect((await api.system.store.accounts.findPerson(api.demo.personId))!.twoFactorEnabled).to.equal(false);
    await shot(page, `${tag}-26-two-factor-wrong-code`);
    // The enrolment waits: the security page (here in Ukrainian) asks for the code of the pending secret.
    await page.goto(`${api.base}/console/lang/uk?next=/console/security`);
    expect(await page.locator('main').textContent()).to.include('Новий секрет чекає на підтвердження');
    expect(await page.locator('#totp').count()).to.equal(1);
    await shot(page, `${tag}-26b-two-factor-pending-uk`);
    await page.goto(`${api.base}/console/lang/en?next=/console/security`);
    // The right code from the secret shown on the page.
    await page.fill('#totp', await totpFor(api, secret));
    await nav(page, page.click('text=Confirm and switch on'));
    expect(new URL(page.url()).pathname).to.equal('/console/security');
    expect(await page.locator('[role=status]').textContent()).to.include('Two-factor checks are on again');
    expect(await page.locator('main').textContent()).to.include('On: signing in asks for the password and a one-time code');
    expect(await page.locator('text=Switch off two-factor checks').count()).to.equal(1);
    const me = (await api.system.store.accounts.findPerson(api.demo.personId))!;
    expect(me.twoFactorEnabled).to.equal(true);
    expect(api.system.get(TOKENS.SecretBox).open(me.totpSecret)).to.equal(secret);
    await shot(page, `${tag}-27-two-factor-on-again`);
    // Sign-in in another browser now takes a code from the new secret.
    const other = await (await browser.newContext({ locale: 'en-GB' })).newPage();
    await signInThroughForm(other, api, { email: api.demo.email, password: api.demo.password, totpSecret: secret });
    expect(new URL(other.url()).pathname).to.equal('/console/');
    await other.context().close();
  });

  it('a session ends 12 hours after sign-in: the next page asks to sign in again', async () => {
    api.clock.advance(12 * 3600_000 + 1000);
    await page.goto(`${api.base}/console/keys`);
    expect(new URL(page.url()).pathname).to.equal('/console/sign-in');
    expect(await page.locator('[role=status]').textContent()).to.include('session has ended');
  });
});
