import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { eachStore } from '../support/stores.js';
import { addPerson, bearer, startApi, type TestApi } from '../support/system.js';
import { checkPage, launch, signInThroughForm } from './browser.js';
import { consoleHttp } from './http.js';
import { TOKENS } from '../../src/tokens.js';

/**
 * The console pages of issue 25 item 10 / issue 22 item 6 in headless Chromium: a domain's DNSSEC (more
 * pages join this suite). Each page: its main path, one refusal, a reload repeats nothing, axe-core has no
 * serious or critical violation, nothing overflows 375 px. Screenshots at 1280 and 375 px go to
 * $CONSOLE_SHOTS (default /tmp/console-c-shots), never to git.
 */
const SHOTS = process.env.CONSOLE_SHOTS || '/tmp/console-c-shots';
const ZONE = 'domivka-demo.dev';

eachStore('Console: DNSSEC, hosted domains, zone import and transfers in headless Chromium', (kind) => {
  let api: TestApi;
  let browser: Browser;
  let ctx: BrowserContext;
  let page: Page;
  let reader = '';
  const errors: string[] = [];
  const tag = kind.engine;
  const nav = (p: Page, action: Promise<unknown>) => Promise.all([p.waitForNavigation(), action]);
  const text = async (p: Page, sel = 'main') => (await p.locator(sel).first().textContent()) ?? '';

  const check = (p: Page, name: string) => checkPage(p, name, tag === 'sqlite' ? SHOTS : null);
  /** A console POST by another person (a refusal is checked without a second browser). */
  const postAs = async (cookie: string, path: string, form: Record<string, string>) => {
    // The sign-out form on the security page carries the session's token for everyone.
    const get = await fetch(`${api.base}/console/security`, { headers: { cookie: `${cookie}; dmk_lang=en; dmk_env=test` } });
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await get.text())?.[1] ?? '';
    const r = await fetch(`${api.base}${path}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: `${cookie}; dmk_lang=en; dmk_env=test`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: csrf, _back: path, ...form }).toString(),
    });
    return { status: r.status, text: await r.text() };
  };

  before(async function () {
    this.timeout(120_000);
    api = await startApi(kind);
    reader = (await api.issueKey({ environment: 'test', rights: ['dns.read', 'domain.read'], domains: [ZONE, 'domivka-demo.com.ua'] }))
      .secret;
    browser = await launch();
    ctx = await browser.newContext({ locale: 'en-GB', viewport: { width: 1280, height: 900 } });
    await ctx.addCookies([
      { name: 'dmk_lang', value: 'en', url: api.base },
      { name: 'dmk_env', value: 'test', url: api.base },
    ]);
    page = await ctx.newPage();
    page.on('dialog', (d) => void d.accept());
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error' && !/status of 4\d\d/.test(m.text())) errors.push(m.text());
    });
    await signInThroughForm(page, api, { email: api.demo.email, password: api.demo.password, totpSecret: api.demo.totpSecret });
  });
  after(async () => {
    await browser?.close();
    await api?.close();
  });
  afterEach(() => {
    expect(errors, 'no script or CSP errors in the page').to.deep.equal([]);
  });

  it('DNSSEC: an owner signs the zone (algorithm 13), sees the key and the DS the API gives; a reload signs nothing again; a member is refused; switched off', async function () {
    this.timeout(60_000);
    await page.goto(`${api.base}/console/domains/${ZONE}`);
    await nav(page, page.click('a:has-text("DNSSEC")'));
    expect(await page.locator('#dnssec-status').textContent()).to.include('off');
    await check(page, 'dnssec-off');

    await page.check('input[name=algorithm][value="13"]');
    await nav(page, page.click('button:has-text("Sign the zone")'));
    expect(page.url()).to.match(/\/dnssec\?done=enabled$/);
    const api1 = await api.call(`/v1/domains/${ZONE}/dnssec`, { headers: bearer(reader) });
    expect(api1.status).to.equal(200);
    expect(api1.body.enabled).to.equal(true);
    expect(api1.body.algorithm).to.equal(13);
    const ds = api1.body.ds as string[];
    expect(ds).to.have.length(1);
    expect(await page.locator('#ds-0').textContent()).to.equal(`${ZONE}. IN DS ${ds[0]}`);
    const tagCell = await page.locator('td[data-label="Tag"]').first().textContent();
    expect(Number(tagCell?.trim())).to.equal(api1.body.keys[0].tag);
    expect(await text(page)).to.include('257');
    await check(page, 'dnssec-signed');

    // A reload is a GET: the same key, no second signing event.
    const events = async () => (await api.system.store.knex('events').where('type', 'like', 'dns.dnssec%')).length;
    const before = await events();
    await page.reload();
    expect(await page.locator('#ds-0').textContent()).to.equal(`${ZONE}. IN DS ${ds[0]}`);
    expect(await events()).to.equal(before);

    // A member: no form, and a POST anyway is refused with the API's reason (class 3 is for owners).
    const member = await addPerson(api, 'member', `member-dnssec-${tag}@example.com`);
    const memberCookie = await api.signIn(member);
    const seen = await fetch(`${api.base}/console/domains/${ZONE}/dnssec`, {
      headers: { cookie: `${memberCookie}; dmk_lang=en; dmk_env=test` },
    });
    expect(await seen.text()).to.include('Only the account’s owners switch DNSSEC on or off');
    const refused = await postAs(memberCookie, `/console/domains/${ZONE}/dnssec/off`, {});
    expect(refused.status).to.equal(422); // the page again, with the API's reason next to the form
    expect(refused.text, refused.text.slice(refused.text.indexOf('<main'), refused.text.indexOf('<main') + 1200)).to.include(
      'right_missing',
    );
    expect((await api.call(`/v1/domains/${ZONE}/dnssec`, { headers: bearer(reader) })).body.enabled).to.equal(true);

    // Off again (the parent holds no DS in the sandbox).
    await nav(page, page.click('button:has-text("Switch DNSSEC off")'));
    expect(page.url()).to.match(/\/dnssec\?done=disabled$/);
    expect(await page.locator('#dnssec-status').textContent()).to.include('off');
    expect((await api.call(`/v1/domains/${ZONE}/dnssec`, { headers: bearer(reader) })).body.enabled).to.equal(false);
  });
  it('DNSSEC: publishing the DS is a class 3 operation shown and linked on the page; another algorithm shows the rollover step and the history', async function () {
    this.timeout(60_000);
    await page.goto(`${api.base}/console/domains/${ZONE}/dnssec`);
    await page.check('input[name=algorithm][value="13"]');
    await nav(page, page.click('button:has-text("Sign the zone")'));
    await nav(page, page.click('button:has-text("Publish the DS at the registry")'));
    expect(page.url()).to.match(/\/dnssec\?done=ds-requested&op=/);
    const link = await page.locator('#dnssec-op-link').getAttribute('href');
    expect(link).to.match(/^\/console\/operations#op-/);
    expect(await text(page, '#dnssec-ops')).to.include('Publishing the DS at the registry');
    await check(page, 'dnssec-ds-requested');

    await page.check('input[name=algorithm][value="15"]');
    await nav(page, page.click('button:has-text("Sign again with the chosen algorithm")'));
    await api.system.get(TOKENS.PublishEvents).run();
    await page.reload();
    expect(await page.locator('#dnssec-status').textContent()).to.include('a key rollover is under way');
    expect(await page.locator('ol.steps li[aria-current=step]').textContent()).to.equal('new signatures');
    // Newest first: this test's two steps above the previous test's switch-on and switch-off.
    const kinds = await page.locator('#dnssec-history tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-event')));
    expect(kinds).to.deep.equal(['dns.dnssec_rollover', 'dns.dnssec_enabled', 'dns.dnssec_disabled', 'dns.dnssec_enabled']);
    expect(await text(page, '#dnssec-history tbody tr')).to.include('Algorithm rollover');
    await check(page, 'dnssec-rolling');

    // The way the operation link leads: the operations page, where another owner confirms it.
    await nav(page, page.click('#dnssec-ops a:has-text("Confirm or cancel")'));
    expect(page.url()).to.equal(`${api.base}${link}`);
    expect(await page.locator(`#${link!.split('#')[1]}`).count()).to.equal(1);
  });
  it('hosted domain: a public suffix is refused next to the field (what was typed kept); an undelegated name shows the exact TXT and nameservers, "check now" tells the problem, then verifies once the parent delegates', async function () {
    this.timeout(60_000);
    const NAME = `undelegated-shop-${tag}.com`;
    await page.goto(`${api.base}/console/`);
    await nav(page, page.click('a:has-text("A domain from another registrar")'));
    await page.fill('#hosted-domain', 'com.ua');
    await nav(page, page.click('button:has-text("Add the domain")'));
    expect(await page.locator('#err-domain').textContent()).to.include('domain_public_suffix');
    expect(await page.inputValue('#hosted-domain')).to.equal('com.ua');
    await check(page, 'hosted-refused');

    await page.fill('#hosted-domain', NAME);
    await nav(page, page.click('button:has-text("Add the domain")'));
    expect(page.url()).to.equal(`${api.base}/console/domains/${NAME}/hosting?done=added`);
    const key = (await api.issueKey({ environment: 'test', rights: ['domain.read', 'domain.host'], domains: [NAME] })).secret;
    const viaApi = (await api.call(`/v1/domains/${NAME}`, { headers: bearer(key) })).body;
    expect(viaApi.hosting.status).to.equal('pending_delegation');
    expect(await page.locator('#txt-name').textContent()).to.equal(`_domivka-challenge.${NAME}`);
    expect(await page.locator('#txt-value').textContent()).to.equal(viaApi.hosting.verification.value);
    expect((await page.locator('#our-nameservers li').allTextContents()).map((x) => x.trim())).to.deep.equal(viaApi.hosting.nameservers);
    expect(await page.locator('#hosting-status').textContent()).to.include('waiting');
    // A reload repeats nothing: still one hosted domain of that name, the same TXT value.
    await page.reload();
    expect(await page.locator('#txt-value').textContent()).to.equal(viaApi.hosting.verification.value);
    expect(await api.system.store.knex('domains').where({ name: NAME })).to.have.length(1);

    await nav(page, page.click('button:has-text("Check now")'));
    expect(await page.locator('#hosting-problem').textContent()).to.include('does not delegate');
    await check(page, 'hosted-pending');

    const sim = await api.call(`/v1/sandbox/delegations/${NAME}`, {
      method: 'POST',
      headers: { ...bearer(key), 'idempotency-key': randomUUID() },
      json: { delegated: true },
    });
    expect(sim.status, JSON.stringify(sim.body)).to.equal(200);
    await nav(page, page.click('button:has-text("Check now")'));
    expect(await page.locator('#hosting-status').textContent()).to.include('verified');
    expect(await page.locator('#hosting-next').textContent()).to.include('Keep our nameservers');
    expect((await api.call(`/v1/domains/${NAME}`, { headers: bearer(key) })).body.hosting.status).to.equal('active');
    await check(page, 'hosted-active');
  });
  it('transfer in: a wrong auth code is refused next to its field (domain and years kept); requested with the price and the class 2 notice, watched, cancelled; a reload requests nothing again', async function () {
    this.timeout(60_000);
    const NAME = `transfer-shop-${tag}.com`;
    await page.goto(`${api.base}/console/`);
    await nav(page, page.click('a:has-text("Transfer a domain in")'));
    expect(await text(page)).to.include('class 2 action (money)');
    await page.fill('#tr-domain', NAME);
    await page.fill('#tr-code', 'wrong-code');
    await page.selectOption('#tr-years', '2');
    await nav(page, page.click('button:has-text("Request and reserve the amount")'));
    expect(await page.locator('#err-auth_code').textContent()).to.include('transfer_auth_code_invalid');
    expect(await page.inputValue('#tr-domain')).to.equal(NAME);
    expect(await page.inputValue('#tr-years')).to.equal('2');
    await check(page, 'transfer-refused');

    await page.fill('#tr-code', 'sandbox-auth-ok');
    await nav(page, page.click('button:has-text("Request and reserve the amount")'));
    expect(page.url()).to.match(new RegExp(`/console/transfers/${NAME.replace(/\./g, '\\.')}/[^/?]+\\?done=requested$`));
    expect(await page.locator('#transfer-status').textContent()).to.include('under way');
    const key = (
      await api.issueKey({
        environment: 'test',
        rights: ['domain.register'],
        domains: [NAME],
        conditions: { cidr: '127.0.0.0/8', spend_limit: { amount: 5_000_000, currency: 'UAH' } },
      })
    ).secret;
    const listed = async () => (await api.call(`/v1/domains/${NAME}/transfers`, { headers: bearer(key) })).body.items as any[];
    const before = await listed();
    const t = before.find((x) => x.status === 'pending')!;
    expect(
      before.filter((x) => x.status === 'pending'),
      JSON.stringify(before),
    ).to.have.length(1);
    expect(t.status).to.equal('pending');
    expect(t.years).to.equal(2);
    expect(await text(page)).to.include(((t.amount.amount as number) / 100).toFixed(2).replace('.', ',').slice(0, -3));
    await page.reload();
    expect((await listed()).map((x) => x.id)).to.deep.equal(before.map((x) => x.id));
    await check(page, 'transfer-pending');

    // Reachable again without the redirect: the domains list names it under way, and so do the transfers page
    // and the account-wide API list; its row leads back to its page.
    await page.goto(`${api.base}/console/`);
    expect(await page.locator('#transfers-pending').textContent()).to.include(NAME);
    await check(page, 'domains-transfer-pending');
    // From the domains page to the account's transfers (in and out), which the navigation keeps under Domains.
    await nav(page, page.click('a:has-text("Transfers in and out")'));
    expect(new URL(page.url()).pathname).to.equal('/console/transfers');
    expect(await page.locator('nav a[aria-current="page"]').textContent()).to.equal('Domains');
    expect(await page.locator('#transfers-pending').textContent()).to.include(NAME);
    await check(page, 'transfers-list');
    const all = await api.call('/v1/transfers?active=true', { headers: bearer(key) });
    expect(all.status, JSON.stringify(all.body)).to.equal(200);
    expect((all.body.data as any[]).map((x) => x.id)).to.deep.equal([t.id]);
    await nav(page, page.click(`#transfers-pending a:has-text("${NAME}")`));
    expect(await page.locator('#transfer-status').textContent()).to.include('under way');

    await nav(page, page.click('button:has-text("Cancel the transfer")'));
    expect(await page.locator('#transfer-status').textContent()).to.include('cancelled');
    expect((await listed()).find((x) => x.id === t.id).status).to.equal('cancelled');
    await page.goto(`${api.base}/console/transfers`);
    expect(await page.locator('#transfers-pending').count()).to.equal(0);
    expect(await page.locator('#transfers-recent').textContent()).to.include(NAME);
    expect(((await api.call('/v1/transfers?active=true', { headers: bearer(key) })).body.data as any[]).length).to.equal(0);
    // Newest first: the cancelled one, then the request the wrong code failed.
    const everything = (await api.call('/v1/transfers', { headers: bearer(key) })).body.data as any[];
    expect(everything.map((x) => x.status)).to.deep.equal(['cancelled', 'failed']);
    expect(everything[0].id).to.equal(t.id);
    // A key that does not name the domain does not see its transfer.
    const other = (
      await api.issueKey({
        environment: 'test',
        rights: ['domain.register'],
        domains: ['domivka-demo.dev'],
        conditions: { cidr: '127.0.0.0/8', spend_limit: { amount: 5_000_000, currency: 'UAH' } },
      })
    ).secret;
    expect((await api.call('/v1/transfers', { headers: bearer(other) })).body.data).to.deep.equal([]);
  });

  it('transfer out: owners see the request on the domain page and reject it; a member is refused (owner_only)', async function () {
    this.timeout(60_000);
    // A domain transferred in (unlocked at the registry, as the sandbox has it), then asked for by another registrar.
    const D = `transfer-away-${tag}.com.ua`;
    const key = (
      await api.issueKey({
        environment: 'test',
        rights: ['domain.register', 'domain.read'],
        domains: [D],
        conditions: { cidr: '127.0.0.0/8', spend_limit: { amount: 5_000_000, currency: 'UAH' } },
      })
    ).secret;
    const clock = (await api.issueKey({ environment: 'test', rights: ['sandbox.clock'] })).secret;
    const call = (path: string, json: unknown, secret: string) =>
      api.call(path, { method: 'POST', headers: { ...bearer(secret), 'idempotency-key': randomUUID() }, json });
    expect((await call(`/v1/domains/${D}/transfers`, { auth_code: 'sandbox-auth-ok' }, key)).status).to.equal(202);
    expect((await call('/v1/sandbox/clock', { advance: 'P5D' }, clock)).status).to.equal(200);
    const sim = await call('/v1/sandbox/transfer-out', { domain: D }, key);
    expect(sim.status, JSON.stringify(sim.body)).to.equal(202);
    await page.goto(`${api.base}/console/domains/${D}`);
    expect(await page.locator('#transfer-out').textContent()).to.include('Another registrar asks');
    // The domain page lists its transfers: the one that brought it in, and the one out, under way.
    const rows = await page.locator('#domain-transfers tbody tr').allTextContents();
    expect(rows, rows.join(' | ')).to.have.length(2);
    expect(rows[0]).to.match(/out[\s\S]*another registrar asks for it/);
    expect(rows[1]).to.match(/in[\s\S]*completed/);
    await check(page, 'transfer-out');
    // The account's transfers list it under way beside nothing else pending; its page sends the answer to the domain page.
    await page.goto(`${api.base}/console/transfers`);
    const pendingRows = await page.locator('#transfers-pending tbody tr').allTextContents();
    expect(pendingRows, pendingRows.join(' | ')).to.have.length(1);
    expect(pendingRows[0])
      .to.include(D)
      .and.to.match(/out[\s\S]*another registrar asks for it/);
    const recentRows = (await page.locator('#transfers-recent tbody tr').allTextContents()).filter((x) => x.includes(D));
    expect(recentRows, recentRows.join(' | ')).to.have.length(1);
    expect(recentRows[0]).to.include('completed: the domain is here now');
    await check(page, 'transfers-in-and-out');
    await nav(page, page.click(`#transfers-pending a:has-text("${D}")`));
    expect(await page.locator('#transfer-status').textContent()).to.include('another registrar asks for it');
    expect(await page.locator('button:has-text("Cancel the transfer")').count()).to.equal(0);
    await nav(page, page.click('a:has-text("Answer the request on the domain’s page")'));
    expect(new URL(page.url()).pathname).to.equal(`/console/domains/${D}`);

    const member = await addPerson(api, 'member', `member-out-${tag}@example.com`);
    const refused = await postAs(await api.signIn(member), `/console/domains/${D}/transfer-out/reject`, {});
    expect(refused.text).to.include('owner_only');
    expect((await api.call(`/v1/domains/${D}`, { headers: bearer(key) })).body.status).to.include('pendingTransfer');

    await nav(page, page.click('button:has-text("Reject the transfer")'));
    expect(page.url()).to.match(/\?done=transfer-out-rejected$/);
    expect(await page.locator('#transfer-out').count()).to.equal(0);
    expect((await api.call(`/v1/domains/${D}`, { headers: bearer(key) })).body.status).not.to.include('pendingTransfer');
    await page.reload();
    expect(await text(page)).not.to.include('That did not work');
    await page.goto(`${api.base}/console/transfers`);
    expect(await page.locator('#transfers-pending').count()).to.equal(0);
    expect(await page.locator('#transfers-recent').textContent()).to.include('rejected: the domain stayed here');
  });
  it('ACME values: added in the console and through the API, listed with their expiry, removed one by one (CSRF, confirm, POST-redirect-GET); a reload or a second send of the same removal removes nothing more', async function () {
    this.timeout(60_000);
    const acmeKey = (await api.issueKey({ environment: 'test', rights: ['dns.acme_challenge'], domains: [ZONE] })).secret;
    const txt = async () => {
      const r = await api.call(`/v1/domains/${ZONE}/dns/records`, { headers: bearer(reader) });
      expect(r.status, JSON.stringify(r.body)).to.equal(200);
      return JSON.stringify(r.body);
    };
    const removals = async () => (await api.system.store.knex('events').where('type', 'dns.acme_challenge_removed')).length;
    await page.goto(`${api.base}/console/domains/${ZONE}/dns#acme`);
    await page.fill('#acme-name', `www.${ZONE}`);
    await page.fill('#acme-value', `console-token-${tag}`);
    await nav(page, page.click('button:has-text("Add the value")'));
    expect(page.url()).to.match(/\/dns\?done=challenge#acme$/);
    const byApi = await api.call(`/v1/domains/${ZONE}/dns/acme-challenges`, {
      method: 'POST',
      headers: { ...bearer(acmeKey), 'idempotency-key': randomUUID() },
      json: { name: `_acme-challenge.www.${ZONE}`, value: `api-token-${tag}` },
    });
    expect(byApi.status, JSON.stringify(byApi.body)).to.equal(201);
    await page.reload();
    const rows = await page.locator('#acme-values tbody tr').allTextContents();
    expect(rows, rows.join(' | ')).to.have.length(2);
    expect(rows.join(' ')).to.include(`console-token-${tag}`).and.to.include(`api-token-${tag}`);
    expect(await txt())
      .to.include(`console-token-${tag}`)
      .and.to.include(`api-token-${tag}`);
    await check(page, 'acme-values');
    // The same list in Ukrainian.
    const session = (await ctx.cookies()).find((c) => c.name === 'dmk_session')!;
    const uk = await consoleHttp(api).get(`/console/domains/${ZONE}/dns`, `dmk_session=${session.value}`, 'uk');
    expect(uk.text).to.include('Перевірки ACME').and.to.include('Зникне').and.to.include('Прибрати');

    // The console's value goes; the API's stays, at the same name.
    const before = await removals();
    const row = page.locator('#acme-values tbody tr', { hasText: `console-token-${tag}` });
    const action = await row.locator('form').getAttribute('action');
    const formId = await row.locator('input[name=_form]').inputValue();
    await nav(page, row.locator('button:has-text("Remove")').click());
    expect(page.url()).to.match(/\/dns\?done=challenge-removed#acme$/);
    expect(await page.locator('main .alert.ok').textContent()).to.include('The ACME value was removed');
    const left = await page.locator('#acme-values tbody tr').allTextContents();
    expect(left, left.join(' | ')).to.have.length(1);
    expect(left[0]).to.include(`api-token-${tag}`);
    expect(await txt()).not.to.include(`console-token-${tag}`);
    expect(await txt()).to.include(`api-token-${tag}`);
    expect(await removals()).to.equal(before + 1);
    await check(page, 'acme-removed');

    // A reload repeats nothing; the same form sent again (a double click) gets the first one's redirect.
    await page.reload();
    expect(await removals()).to.equal(before + 1);
    const cookie = (await ctx.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    const csrf = (await page.locator('input[name=_csrf]').first().inputValue())!;
    const send = (form: Record<string, string>) =>
      fetch(`${api.base}${action}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form).toString(),
      });
    const again = await send({ _csrf: csrf, _form: formId, _back: `/console/domains/${ZONE}/dns#acme` });
    expect(again.status).to.equal(302);
    expect(again.headers.get('location')).to.match(/done=challenge-removed/);
    // A new form for a value already gone says so in words; nothing else is removed.
    const gone = await send({ _csrf: csrf, _back: `/console/domains/${ZONE}/dns#acme` });
    expect(gone.status).to.equal(404);
    expect(await gone.text()).to.include('challenge_not_found');
    // Without the session's CSRF token nothing is removed.
    const apiRow = page.locator('#acme-values tbody tr', { hasText: `api-token-${tag}` });
    const apiAction = (await apiRow.locator('form').getAttribute('action'))!;
    const forged = await fetch(`${api.base}${apiAction}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: 'forged' }).toString(),
    });
    expect(forged.status).to.equal(403);
    expect(await forged.text()).to.include('csrf_failed');
    expect(await removals()).to.equal(before + 1);
    expect(await txt()).to.include(`api-token-${tag}`);
    // The API's value, removed through the API's own DELETE, leaves the list too.
    const del = await api.call(`/v1/domains/${ZONE}/dns/acme-challenges/${byApi.body.id}`, {
      method: 'DELETE',
      headers: { ...bearer(acmeKey), 'idempotency-key': randomUUID() },
    });
    expect(del.status).to.equal(204);
    await page.reload();
    expect(await page.locator('#acme-values').count()).to.equal(0);
  });
  it('zone import: $INCLUDE fails the import with its line and reason, the pasted text kept in the form; a pasted zone file ends in the DNS editor plan review, nothing applied; a reload imports nothing again', async function () {
    this.timeout(60_000);
    const D = 'domivka-demo.com.ua';
    await page.goto(`${api.base}/console/domains/${D}/dns`);
    await nav(page, page.click('a:has-text("Import from the current provider")'));
    const bad = `$INCLUDE /etc/passwd\nwww 300 IN A 192.0.2.1\n`;
    await page.fill('#zone-file', bad);
    await nav(page, page.click('button:has-text("Read the file and build a plan")'));
    // The file is read after the 202 (as through the API); the console waits for it, so the form comes back
    // with the pasted text and, next to it, which line failed and why.
    expect(await page.inputValue('#zone-file')).to.equal(bad);
    expect(await page.locator('#err-zone_file').textContent()).to.match(/Line 1: \$INCLUDE is refused/);
    expect(await text(page)).to.include('zone_file_include');
    await check(page, 'import-refused');

    await page.goto(`${api.base}/console/domains/${D}/dns/imports`);
    await page.fill(
      '#zone-file',
      `$ORIGIN ${D}.\n$TTL 300\n@ IN A 192.0.2.10\nwww IN A 192.0.2.10\nshop IN A 198.51.100.77\n@ IN MX 10 mail\n`,
    );
    await nav(page, page.click('button:has-text("Read the file and build a plan")'));
    const imports = async () => (await api.system.store.knex('dns_imports').where({ domain: D })).length;
    const count = await imports();
    for (let i = 0; i < 20 && (await page.locator('a:has-text("Review the plan")').count()) === 0; i++) {
      await new Promise((r) => setTimeout(r, 150));
      await page.reload();
    }
    expect(await imports(), 'reloading the import page starts no second import').to.equal(count);
    await check(page, 'import-ready');
    await nav(page, page.click('a:has-text("Review the plan")'));
    expect(page.url()).to.match(new RegExp(`/console/domains/${D.replace(/\./g, '\\.')}/dns/plans/[^/?]+$`));
    const plan = await text(page);
    expect(plan).to.include('shop');
    expect(plan).to.include('198.51.100.77');
    expect(plan).to.include('MX');
    const records = await api.call(`/v1/domains/${D}/dns/records`, { headers: bearer(reader) });
    expect(JSON.stringify(records.body), 'nothing applied before the review').not.to.include('198.51.100.77');
  });
  // Last in the suite: it moves the account's sandbox clock on by two days.
  it('DNSSEC with the DS at the parent: switching off is the dnssec_disable operation, linked; once it takes effect the page says when signing stops', async function () {
    this.timeout(60_000);
    const BLOG = 'domivka-blog.kyiv.ua';
    const clockKey = (await api.issueKey({ environment: 'test', rights: ['sandbox.clock'], domains: [BLOG] })).secret;
    const travel = async () =>
      expect(
        (
          await api.call('/v1/sandbox/clock', {
            method: 'POST',
            headers: { ...bearer(clockKey), 'idempotency-key': randomUUID() },
            json: { advance: 'PT25H' },
          })
        ).status,
      ).to.equal(200);
    await page.goto(`${api.base}/console/domains/${BLOG}/dnssec`);
    await page.check('input[name=algorithm][value="13"]');
    await nav(page, page.click('button:has-text("Sign the zone")'));
    await nav(page, page.click('button:has-text("Publish the DS at the registry")'));
    await travel();
    await page.goto(`${api.base}/console/domains/${BLOG}/dnssec`);
    expect(await page.locator('#dnssec-status').textContent()).to.equal('secure: the parent zone holds our DS');
    expect(await text(page, 'main')).to.include('switching off goes in the safe order: the registry removes the DS');

    await nav(page, page.click('button:has-text("Switch DNSSEC off")'));
    expect(page.url()).to.match(/\/dnssec\?done=disable-requested&op=/);
    expect(await page.locator('#dnssec-op-link').getAttribute('href')).to.match(/^\/console\/operations#op-/);
    expect(await page.locator('#dnssec-status').textContent()).to.include('switching off is requested');
    await check(page, 'dnssec-disable-requested');

    await travel();
    await api.system.get(TOKENS.PublishEvents).run();
    await page.goto(`${api.base}/console/domains/${BLOG}/dnssec`);
    expect(await page.locator('#dnssec-history tbody tr').first().getAttribute('data-event')).to.equal('dns.dnssec_disabling');
    expect(await page.locator('#dnssec-status').textContent()).to.match(/^being switched off: the DS left the registry, signing stops /);
    expect(await page.locator('#dnssec-stop-signing').textContent()).not.to.equal('—');
    await check(page, 'dnssec-disabling');
  });

  it("DNSSEC moving in: the other operator's key pasted from dig is listed with whose it is; a key of another algorithm is refused in words; the owner takes it out at once", async function () {
    this.timeout(60_000);
    const MOVING = 'domivka-demo.com.ua';
    await page.goto(`${api.base}/console/domains/${MOVING}/dnssec`);
    await page.check('input[name=algorithm][value="13"]');
    await nav(page, page.click('button:has-text("Sign the zone")'));
    const jwk = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).publicKey.export({ format: 'jwk' });
    const b64 = Buffer.concat([Buffer.from(jwk.x!, 'base64url'), Buffer.from(jwk.y!, 'base64url')]).toString('base64');
    await page.fill('#foreign-dnskey', `256 3 15 ${b64.slice(0, 43)}`);
    await nav(page, page.click('button:has-text("Add the key")'));
    expect(await text(page, 'main')).to.include('operators signing one zone must share the algorithm');
    await page.goto(`${api.base}/console/domains/${MOVING}/dnssec`);
    await page.fill('#foreign-dnskey', `${MOVING}. 3600 IN DNSKEY 256 3 13 ${b64.slice(0, 44)} ${b64.slice(44)}`);
    await page.fill('#foreign-note', 'the old provider');
    await nav(page, page.click('button:has-text("Add the key")'));
    expect(page.url()).to.match(/\/dnssec\?done=foreign-added$/);
    const row = await text(page, '#dnssec-foreign-keys tbody tr');
    expect(row).to.include('the old provider');
    await check(page, 'dnssec-foreign-key');
    // The owner takes it out at once (the confirm dialog is accepted by the page's dialog handler).
    await nav(page, page.click('#dnssec-foreign-keys button:has-text("Take out now")'));
    expect(page.url()).to.match(/\/dnssec\?done=foreign-removed$/);
    expect(await page.locator('#dnssec-foreign-keys').count()).to.equal(0);
    await check(page, 'dnssec-foreign-removed');
  });
});
