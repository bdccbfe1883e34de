import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { eachStore } from '../support/stores.js';
import { bearer, startApi, type TestApi } from '../support/system.js';
import { consoleHttp } from './http.js';

/** The console's checks say what each looks at: two DNS checks of one domain no longer look the same (a browser walk). */
eachStore('Console: what each check looks at', (kind) => {
  let api: TestApi;
  before(async function () {
    this.timeout(60_000);
    api = await startApi(kind);
  });
  after(async () => {
    await api?.close();
  });

  it('the list and the check’s page name the record and the expected value, the URL, or host:port', async () => {
    const key = (await api.issueKey({ environment: 'test', template: 'monitoring', domains: ['domivka-demo.com.ua'] })).secret;
    const create = async (body: Record<string, unknown>) => {
      const r = await api.call('/v1/monitors', {
        method: 'POST',
        headers: { ...bearer(key), 'idempotency-key': randomUUID() },
        json: { domain: 'domivka-demo.com.ua', interval_seconds: 60, ...body },
      });
      expect(r.status, JSON.stringify(r.body)).to.equal(201);
      return r.body as { id: string };
    };
    const www = await create({ kind: 'dns', name: 'www', type: 'A', expected: ['192.0.2.99'] });
    await create({ kind: 'dns', name: '@', type: 'MX' });
    await create({ kind: 'tls', host: 'domivka-demo.com.ua', port: 443 });
    const cookie = await api.signIn();
    const list = (await consoleHttp(api).get('/console/monitors', cookie, 'en')).text.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');
    expect(list).to.contain('www.domivka-demo.com.ua A → 192.0.2.99');
    expect(list).to.contain('domivka-demo.com.ua MX');
    expect(list).to.contain('domivka-demo.com.ua:443');
    const page = await consoleHttp(api).get(`/console/monitors/${www.id}`, cookie, 'en');
    expect(page.text).to.match(
      /<h1>[^<]*<small class="muted">domivka-demo\.com\.ua · www\.domivka-demo\.com\.ua A → 192\.0\.2\.99<\/small><\/h1>/,
    );
  });
});
