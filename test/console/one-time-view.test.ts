import { expect } from 'chai';
import { eachStore } from '../support/stores.js';
import { startApi, type TestApi } from '../support/system.js';
import { consoleHttp, hiddenField } from './http.js';

/**
 * The console's one-time view (an issued key, a new webhook secret): handed from the POST to the GET that
 * follows in the dmk_once cookie. The cookie is sealed (no secret readable in a cookie jar), bound to the
 * session, cleared by the first GET, and nothing of it waits in the process (any node of a cluster serves it).
 */
eachStore('Console: the one-time view is sealed, bound to its session and read once', (kind) => {
  let api: TestApi;
  before(async function () {
    this.timeout(60_000);
    api = await startApi(kind);
  });
  after(async () => {
    await api?.close();
  });

  const get = async (cookie: string, path: string) => {
    const r = await consoleHttp(api).get(path, cookie);
    return { ...r, setCookie: r.cookies };
  };
  const onceOf = (setCookie: string[]) => {
    const c = setCookie.find((x) => x.startsWith('dmk_once='));
    return c ? decodeURIComponent(c.slice('dmk_once='.length).split(';')[0]!) : null;
  };

  it('a new webhook secret: the cookie holds no readable secret, another session cannot open it, the first GET shows and clears it', async () => {
    const cookie = await api.signIn();
    const page = await get(cookie, '/console/webhooks');
    const csrf = hiddenField(page.text, '_csrf')!;
    const r = await consoleHttp(api).post('/console/webhooks', cookie, {
      _csrf: csrf,
      url: 'https://hooks.example.com/in',
      events: '*',
      domains: '',
    });
    expect(r.status, r.text).to.equal(302);
    const location = r.location!;
    expect(location).to.match(/^\/console\/webhooks\/[^?]+\?done=created$/);
    const sealed = onceOf(r.cookies);
    expect(sealed, 'the one-time view cookie').to.be.a('string');
    // Sealed: neither the secret nor the JSON around it can be read from the cookie, in any decoding.
    for (const text of [sealed!, Buffer.from(sealed!, 'base64url').toString('latin1'), Buffer.from(sealed!, 'base64').toString('latin1')])
      expect(text).not.to.match(/whsec_|"k":|webhook-secret/);
    expect(sealed!.split('.')[0]).to.equal('v1');

    // Another session of the same person presenting the stolen cookie sees nothing (and it is cleared for it too).
    const other = await api.signIn();
    const stolen = await get(`${other}; dmk_once=${encodeURIComponent(sealed!)}`, location);
    expect(stolen.status).to.equal(200);
    expect(stolen.text).not.to.include('whsec_');
    expect(stolen.text).to.include('already shown');
    // An altered cookie does not open either.
    const flipped = sealed!.slice(0, -2) + (sealed!.endsWith('A') ? 'BB' : 'AA');
    const altered = await get(`${cookie}; dmk_once=${encodeURIComponent(flipped)}`, location);
    expect(altered.text).not.to.include('whsec_');

    // Its own session: shown once, and the same response clears the cookie.
    const first = await get(`${cookie}; dmk_once=${encodeURIComponent(sealed!)}`, location);
    expect(first.text, first.text.slice(first.text.indexOf('<main'), first.text.indexOf('<main') + 1500)).to.match(
      /id="wh-secret">whsec_[A-Za-z0-9+/=_-]+</,
    );
    expect(first.setCookie.some((c) => /^dmk_once=;.*Max-Age=0/.test(c))).to.equal(true);
    // A reload (the browser no longer sends the cleared cookie) shows that it was already shown.
    const reload = await get(cookie, location);
    expect(reload.text).not.to.include('whsec_');
    expect(reload.text).to.include('already shown');
  });
});
