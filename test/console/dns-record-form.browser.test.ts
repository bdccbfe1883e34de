import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { STORES } from '../support/stores.js';
import { startApi, type TestApi } from '../support/system.js';
import { checkPage, launch } from './browser.js';

/**
 * The DNS record form in Chromium: choosing another type changes the values' hint and placeholder to that
 * type's (console.js; the server draws the form with the type it was given), and the form with a mistake next
 * to its field passes axe and fits a 375 px screen. What the server draws is tested over HTTP
 * (dns-record-form.test.ts); one store is enough here.
 */
describe('Console: the DNS record form in Chromium', () => {
  let api: TestApi;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];

  before(async function () {
    this.timeout(120_000);
    api = await startApi(STORES[0]!);
    browser = await launch();
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await ctx.addCookies([
      { name: 'dmk_session', value: (await api.signIn()).split('=')[1]!, url: api.base },
      { name: 'dmk_lang', value: 'en', url: api.base },
    ]);
    page = await ctx.newPage();
    page.on('console', (m) => {
      if (m.type() === 'error' && !/status of 4\d\d/.test(m.text())) errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(String(e)));
  });
  beforeEach(function () {
    this.currentTest?.timeout(120_000);
  });
  after(async () => {
    await browser?.close();
    await api?.close();
  });

  const editor = `/console/domains/domivka-demo.com.ua/dns`;

  it('the values’ hint and placeholder follow the type chosen', async () => {
    await page.goto(`${api.base}${editor}?add=1`);
    expect(await page.getAttribute('#rec-values', 'placeholder')).to.equal('203.0.113.10');
    await page.selectOption('#rec-type', 'MX');
    expect(await page.getAttribute('#rec-values', 'placeholder')).to.equal('10 mail.example.net.');
    expect(await page.textContent('#rec-values-what')).to.equal('A priority and a mail server; one value per line.');
    expect(await page.textContent('#rec-values-example')).to.equal('10 mail.example.net.');
    await page.selectOption('#rec-type', 'CNAME');
    expect(await page.textContent('#rec-values-what')).to.equal('The name this record points to; one value only.');
    expect(errors).to.deep.equal([]);
  });

  it('a mistake shows next to its field; the page passes axe and fits 375 px', async () => {
    await page.goto(`${api.base}${editor}?add=1&type=CAA`);
    await page.fill('#rec-name', 'caa');
    await page.fill('#rec-values', '0 issue');
    await Promise.all([page.waitForNavigation(), page.click('text=Add to the plan')]);
    expect(await page.getAttribute('#rec-values', 'aria-invalid')).to.equal('true');
    expect(await page.textContent('#rec-values-error')).to.contain('CAA value');
    expect(await page.inputValue('#rec-values')).to.equal('0 issue');
    await checkPage(page, 'dns-record-form-mistake', null);
    expect(errors).to.deep.equal([]);
  });
});
