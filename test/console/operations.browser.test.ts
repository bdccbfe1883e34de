import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { eachStore } from '../support/stores.js';
import { addPerson, bearer, startApi, type TestApi } from '../support/system.js';
import { launch, shot, signInThroughForm } from './browser.js';

/**
 * Class 3 operations in the console (DESIGN): a key asks for a nameserver change (202, pending); the owner
 * who issued that key cannot confirm it — not in the console either; a second owner confirms it in the
 * console and it takes effect at once.
 */
eachStore('Console: a second owner confirms a class 3 operation (headless Chromium)', (kind) => {
  let api: TestApi;
  let browser: Browser;
  let first: Page;
  let second: Page;
  let key = '';
  let opId = '';
  const tag = kind.engine;
  const nav = (p: Page, action: Promise<unknown>) => Promise.all([p.waitForNavigation(), action]);

  before(async function () {
    this.timeout(120_000);
    api = await startApi(kind);
    browser = await launch();
    first = await (await browser.newContext({ locale: 'en-GB', viewport: { width: 1200, height: 900 } })).newPage();
    second = await (await browser.newContext({ locale: 'uk-UA', viewport: { width: 1200, height: 900 } })).newPage();
    for (const p of [first, second]) p.on('dialog', (d) => void d.accept());
    key = (
      await api.issueKey({
        environment: 'test',
        rights: ['domain.read', 'domain.nameservers'],
        domains: ['domivka-demo.dev'],
        conditions: { cidr: '127.0.0.0/8' },
      })
    ).secret;
  });
  // A browser on a loaded CI machine is slow: each step may take up to two minutes (mocha's default is 20 s).
  beforeEach(function () {
    this.currentTest?.timeout(120_000);
  });
  after(async () => {
    await browser?.close();
    await api?.close();
  });

  it('a key asks for new nameservers: 202 and a pending operation', async () => {
    const r = await api.call('/v1/domains/domivka-demo.dev/nameservers', {
      method: 'PUT',
      headers: { ...bearer(key), 'idempotency-key': 'ns-1' },
      json: { nameservers: ['ns1.domivka.net', 'ns2.domivka.net', 'ns3.example.net'] },
    });
    expect(r.status, JSON.stringify(r.body)).to.equal(202);
    expect(r.body.status).to.equal('pending');
    opId = r.body.id;
  });

  it('the requesting owner sees it pending but cannot confirm it, not even by posting the form', async () => {
    await signInThroughForm(first, api, api.demo);
    await first.goto(`${api.base}/console/operations`);
    expect(await first.locator(`#op-${opId}`).count()).to.equal(1);
    expect(await first.locator(`#op-${opId} form[action$="/confirm"]`).count()).to.equal(0);
    await shot(first, `${tag}-30-operations-requester`);
    const csrf = await first.locator('input[name=_csrf]').first().getAttribute('value');
    const forced = await first.request.post(`${api.base}/console/operations/${opId}/confirm`, {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      data: `_csrf=${encodeURIComponent(csrf!)}`,
    });
    expect(forced.status()).to.be.within(400, 499);
    expect((await api.call(`/v1/operations/${opId}`, { headers: bearer(key) })).body.status).to.equal('pending');
    // The domain page lists it too.
    await first.goto(`${api.base}/console/domains/domivka-demo.dev`);
    expect(await first.locator('main').textContent()).to.include('Pending class 3 operations');
  });

  it('a second owner confirms it in the console; it takes effect at once', async () => {
    const other = await addPerson(api, 'owner', 'second-owner@example.com');
    await signInThroughForm(second, api, other);
    await second.goto(`${api.base}/console/operations`);
    await shot(second, `${tag}-31-operations-second-owner`);
    await nav(second, second.click(`#op-${opId} form[action$="/confirm"] button`));
    expect(await second.locator('[role=status]').textContent()).to.include('Готово');
    const op = (await api.call(`/v1/operations/${opId}`, { headers: bearer(key) })).body;
    expect(op.status).to.equal('active');
    expect(op.confirmations.map((c: { by: { person_id: string } }) => c.by.person_id)).to.deep.equal([other.id]);
    expect((await api.system.store.sandboxRegistry.find('domivka-demo.dev'))!.nameservers).to.deep.equal([
      'ns1.domivka.net',
      'ns2.domivka.net',
      'ns3.example.net',
    ]);
  });
});
