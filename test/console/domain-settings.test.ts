import { expect } from 'chai';
import { eachStore } from '../support/stores.js';
import { addPerson, startApi, type TestApi } from '../support/system.js';
import { consoleHttp, hiddenField } from './http.js';

/**
 * A domain's nameservers, transfer lock and labels changed from the console (a browser walk found them
 * read-only there): the same use cases and class 3 operations as `PUT …/nameservers`, `DELETE`/`PUT
 * …/transfer-lock` and `PUT …/labels`, owners only, with the error shown beside the form and what was typed kept.
 */
eachStore('Console: a domain’s nameservers, transfer lock and labels', (kind) => {
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

  const http = () => consoleHttp(api);
  const page = (d: string, c = cookie) => http().get(`/console/domains/${d}`, c, 'en');
  const send = async (d: string, action: string, form: Record<string, string>, c = cookie) => {
    const csrf = hiddenField((await page(d, c)).text, '_csrf')!;
    return http().post(`/console/domains/${d}/${action}`, c, { _csrf: csrf, ...form }, 'en');
  };
  const pending = async (d: string) =>
    (await api.system.store.knex('operations').where({ domain: d, status: 'pending' })) as Array<{ kind: string; params: string }>;
  const text = (html: string) => html.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');

  it('the domain page offers the three changes to an owner, with the current values filled in', async () => {
    const p = await page('domivka-demo.com.ua');
    expect(p.status).to.equal(200);
    expect(p.text).to.contain('action="/console/domains/domivka-demo.com.ua/nameservers"');
    expect(p.text).to.match(/<textarea[^>]*name="nameservers"[^>]*>\s*ns1\.domivka\.net\nns2\.domivka\.net<\/textarea>/);
    expect(p.text).to.contain('action="/console/domains/domivka-demo.com.ua/transfer-lock/lift"');
    expect(p.text).to.match(/name="labels"[^>]*value="prod, shop"/);
  });

  it('nameservers: a class 3 operation is requested (the domain waits), and a second request is refused beside the form', async () => {
    const ok = await send('domivka-demo.com.ua', 'nameservers', { nameservers: 'ns1.elsewhere.example\nns2.elsewhere.example' });
    expect(ok.status).to.equal(302);
    expect(ok.location).to.match(/^\/console\/domains\/domivka-demo\.com\.ua\?done=operation-requested&op=[^#]+#settings$/);
    const [op] = await pending('domivka-demo.com.ua');
    expect(op?.kind).to.equal('nameservers');
    expect(JSON.parse(op!.params)).to.deep.include({ nameservers: ['ns1.elsewhere.example', 'ns2.elsewhere.example'] });
    const after = await http().get(ok.location!, cookie, 'en');
    expect(text(after.text)).to.contain('The request is recorded as a class 3 operation');
    expect(after.text).to.contain('Pending class 3 operations');
    // The only owner is told how it ends: by itself at its time, or confirmed by a second owner they invite.
    const ops = text((await http().get('/console/operations', cookie, 'en')).text);
    expect(ops).to.match(/You are the only owner: it takes effect by itself \d{1,2} \w{3} \d{4}, \d{2}:\d{2}/);
    expect(ops).to.contain('invite a second owner on the People page to confirm it.');

    const again = await send('domivka-demo.com.ua', 'labels', { labels: 'prod, shop, extra' });
    expect(again.status).to.equal(422);
    expect(again.text).to.contain('<code>operation_pending</code>');
    expect(again.text, 'what was typed is kept').to.match(/name="labels"[^>]*value="prod, shop, extra"/);
    expect(await pending('domivka-demo.com.ua')).to.have.length(1);
  });

  it('a bad list is refused by the API route’s own schema, beside its field, and nothing is requested', async () => {
    const one = await send('domivka-demo.dev', 'nameservers', { nameservers: 'ns1.only.example' });
    expect(one.status).to.equal(422);
    expect(one.text).to.contain('<code>validation_failed</code>');
    expect(one.text).to.match(/<textarea[^>]*name="nameservers"[^>]*aria-invalid="true"[^>]*>\s*ns1\.only\.example<\/textarea>/);
    // Said as a person reads it, not as the API's schema sentence with JSON pointers.
    expect(text(one.text)).to.contain('Please correct: nameservers: must have at least 2 item(s).');
    expect(one.text).not.to.contain('/body/nameservers');
    const csrf = hiddenField((await http().get('/console/domains/domivka-demo.dev', cookie, 'uk')).text, '_csrf')!;
    const uk = await http().post('/console/domains/domivka-demo.dev/labels', cookie, { _csrf: csrf, labels: 'x'.repeat(64) }, 'uk');
    expect(uk.status).to.equal(422);
    expect(text(uk.text)).to.contain('Виправте значення: labels (1): має містити не більше 63 символ(ів).');
    expect(await pending('domivka-demo.dev')).to.have.length(0);
  });

  it('the transfer lock: lifting is a class 3 request; locking again is at once and cancels that request', async () => {
    const lift = await send('domivka-demo.dev', 'transfer-lock/lift', {});
    expect(lift.status).to.equal(302);
    expect((await pending('domivka-demo.dev')).map((o) => o.kind)).to.deep.equal(['transfer_unlock']);
    const lock = await send('domivka-demo.dev', 'transfer-lock/set', {});
    expect(lock.status).to.equal(302);
    expect(lock.location).to.equal('/console/domains/domivka-demo.dev?done=locked-cancelled#settings');
    expect(await pending('domivka-demo.dev')).to.have.length(0);
  });

  it('labels: a class 3 request with the labels typed (commas or spaces)', async () => {
    const ok = await send('domivka-blog.kyiv.ua', 'labels', { labels: 'blog, news' });
    expect(ok.status).to.equal(302);
    const [op] = await pending('domivka-blog.kyiv.ua');
    expect(op?.kind).to.equal('labels');
    expect(JSON.parse(op!.params)).to.deep.include({ labels: ['blog', 'news'] });
  });

  it('a member sees no forms, and a posted one is refused: members act up to class 1', async () => {
    const member = await addPerson(api, 'member', 'member-settings@example.com');
    const c = await api.signIn(member);
    const p = await page('domivka-demo.dev', c);
    expect(p.status).to.equal(200);
    expect(p.text).not.to.contain('/transfer-lock/lift"');
    expect(text(p.text)).to.contain('Only the account’s owners ask for these changes');
    const posted = await send('domivka-demo.dev', 'labels', { labels: 'prod, member' }, c);
    expect(posted.status).to.equal(422);
    expect(text(posted.text)).to.contain('Only the account’s owners ask for these changes');
    expect(await pending('domivka-demo.dev')).to.have.length(0);
  });

  it('a domain registered elsewhere (hosted here): the labels only; its nameservers and lock are at its registrar, and a posted form is refused', async () => {
    const hoster = await api.issueKey({ environment: 'test', rights: ['domain.host'], domains: ['hosted-settings.org'] });
    const hosted = await api.call('/v1/hosted-domains', {
      method: 'POST',
      headers: { authorization: `Bearer ${hoster.secret}`, 'idempotency-key': `h-${Date.now()}` },
      json: { domain: 'hosted-settings.org' },
    });
    expect(hosted.status, JSON.stringify(hosted.body)).to.equal(201);
    const p = await page('hosted-settings.org');
    expect(p.status).to.equal(200);
    expect(p.text).to.contain('id="settings-hosted"');
    expect(p.text).not.to.contain('/transfer-lock/');
    expect(p.text).not.to.contain('action="/console/domains/hosted-settings.org/nameservers"');
    expect(p.text).to.contain('action="/console/domains/hosted-settings.org/labels"');
    for (const action of ['transfer-lock/set', 'transfer-lock/lift']) {
      const r = await send('hosted-settings.org', action, {});
      expect(r.status, action).to.equal(422);
      expect(r.text, action).to.contain('<code>domain_not_registered_here</code>');
    }
    const ns = await send('hosted-settings.org', 'nameservers', { nameservers: 'ns1.a.example\nns2.a.example' });
    expect(ns.text).to.contain('<code>domain_not_registered_here</code>');
    expect(await pending('hosted-settings.org')).to.have.length(0);
  });

  it('a class 3 request with the last sign-in older than 5 minutes asks to sign in again first, carrying the form; nothing is requested', async () => {
    const c = await api.signIn();
    const csrf = hiddenField((await page('domivka-blog.kyiv.ua', c)).text, '_csrf')!;
    await api.system.store.knex('sessions').update({ authenticated_at: new Date(Date.now() - 10 * 60_000).toISOString() });
    const before = (await pending('domivka-blog.kyiv.ua')).length;
    for (const [action, form] of [
      ['nameservers', { nameservers: 'ns1.later.example\nns2.later.example' }],
      ['labels', { labels: 'blog, later' }],
      ['transfer-lock/lift', {}],
    ] as const) {
      const r = await http().post(`/console/domains/domivka-blog.kyiv.ua/${action}`, c, { _csrf: csrf, ...form }, 'en');
      expect(r.status, action).to.equal(200);
      expect(r.text, action).to.contain('<h1>Sign in again</h1>');
      expect(r.text, action).to.contain(`name="_resume_action" value="/console/domains/domivka-blog.kyiv.ua/${action}"`);
    }
    expect(await pending('domivka-blog.kyiv.ua')).to.have.length(before);
  });
});
