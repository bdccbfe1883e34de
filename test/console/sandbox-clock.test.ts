import { expect } from 'chai';
import { eachStore } from '../support/stores.js';
import { addPerson, bearer, startApi, type TestApi } from '../support/system.js';

/**
 * The sandbox clock in the console (DESIGN: moving it needs sandbox.clock on a test key, or an owner in the
 * console): an owner moves it by a form, a member sees it without a form and is refused when posting anyway.
 */
eachStore('Console: the sandbox clock (owners move it, members only see it)', (kind) => {
  let api: TestApi;
  let readKey = '';
  const DAY = 86_400_000;

  const get = async (cookie: string, path: string) => {
    const r = await fetch(`${api.base}${path}`, { headers: { cookie: `${cookie}; dmk_lang=en; dmk_env=test` }, redirect: 'manual' });
    return { status: r.status, text: await r.text() };
  };
  const csrfOf = (page: string) => /name="_csrf" value="([^"]+)"/.exec(page)![1]!;
  const post = async (cookie: string, path: string, form: Record<string, string>) => {
    // The sign-out form on the security page carries the session's token for everyone (members have no clock form).
    const csrf = csrfOf((await get(cookie, '/console/security')).text);
    const r = await fetch(`${api.base}${path}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: `${cookie}; dmk_lang=en; dmk_env=test`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: csrf, _back: '/console/sandbox', ...form }).toString(),
    });
    return { status: r.status, location: r.headers.get('location'), text: await r.text() };
  };
  const offset = async () => {
    const r = await api.call('/v1/sandbox/clock', { headers: bearer(readKey) });
    expect(r.status, JSON.stringify(r.body)).to.equal(200);
    return r.body.offset_ms as number;
  };

  before(async function () {
    this.timeout(60_000);
    api = await startApi(kind);
    readKey = (await api.issueKey({ environment: 'test', rights: ['domain.read'], domains: ['domivka-demo.dev'] })).secret;
  });
  after(async () => {
    await api?.close();
  });

  it('an owner moves the clock P30D by the console form: the API reads 30 days and the event names the person', async () => {
    const cookie = await api.signIn();
    const before = await get(cookie, '/console/sandbox');
    expect(before.status).to.equal(200);
    expect(before.text).to.include('action="/console/sandbox/clock"');
    expect(before.text).to.include('does not change key validity');
    expect(await offset()).to.equal(0);

    const r = await post(cookie, '/console/sandbox/clock', { move: 'P1D', advance: 'P30D' });
    expect(r.status, r.text).to.equal(302);
    expect(r.location).to.equal('/console/sandbox?done=1');
    expect(await offset()).to.equal(30 * DAY);

    const events = await api.system.store.knex('events').where({ type: 'sandbox.clock_advanced' });
    expect(events).to.have.length(1);
    expect(events[0].actor).to.equal(`person:${api.demo.personId}`);
    expect(JSON.parse(events[0].data)).to.include({ advance: 'P30D', offset_ms: 30 * DAY });

    const after = await get(cookie, '/console/sandbox');
    expect(after.text).to.include('data-offset-ms="2592000000"');
    expect(after.text).to.include('30 d 0 h 0 min');
  });

  it('the select alone moves it too (the free field left empty)', async () => {
    const cookie = await api.signIn();
    const r = await post(cookie, '/console/sandbox/clock', { move: 'P1D', advance: '' });
    expect(r.status, r.text).to.equal(302);
    expect(await offset()).to.equal(31 * DAY);
  });

  it('a bad duration shows the validation text in the page and moves nothing', async () => {
    const cookie = await api.signIn();
    for (const bad of ['P1M', 'P2000D', 'P0D', 'soon']) {
      const r = await post(cookie, '/console/sandbox/clock', { move: 'P1D', advance: bad });
      expect(r.status, bad).to.equal(422);
      expect(r.text, bad).to.include('an ISO 8601 duration in days, hours or minutes (e.g. P30D), at most 3 years');
      expect(r.text, bad).to.include(`value="${bad}"`);
    }
    expect(await offset()).to.equal(31 * DAY);
  });

  it("a member sees the clock but no form, and a member's POST is refused with owner_only", async () => {
    const member = await addPerson(api, 'member', 'clock-member@example.com');
    const cookie = await api.signIn(member);
    const page = await get(cookie, '/console/sandbox');
    expect(page.status).to.equal(200);
    expect(page.text).to.include('data-offset-ms="2678400000"');
    expect(page.text).not.to.include('action="/console/sandbox/clock"');
    expect(page.text).to.include('Only owners can move the clock');

    const r = await post(cookie, '/console/sandbox/clock', { advance: 'P30D' });
    expect(r.status).to.equal(403);
    expect(r.text).to.include('<code>owner_only</code>');
    expect(await offset()).to.equal(31 * DAY);
    expect(await api.system.store.knex('events').where({ type: 'sandbox.clock_advanced' })).to.have.length(2);
  });

  it('the navigation links the sandbox page, and the page speaks Ukrainian too', async () => {
    const cookie = await api.signIn();
    const page = await get(cookie, '/console/');
    expect(page.text).to.include('href="/console/sandbox"');
    const r = await fetch(`${api.base}/console/sandbox`, { headers: { cookie: `${cookie}; dmk_lang=uk; dmk_env=test` } });
    const uk = await r.text();
    expect(uk).to.include('Годинник пісочниці');
    expect(uk).to.include('строк дії ключів він не змінює');
    expect(uk).to.include('31 дн. 0 год. 0 хв.');
  });
});
