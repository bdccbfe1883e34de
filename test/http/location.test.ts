import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { eachStore } from '../support/stores.js';
import { bearer, startApi, type TestApi } from '../support/system.js';

/**
 * A Location header is built from the canonical (A-label) name, never from the path segment as typed:
 * a fullwidth letter there used to make Node refuse the header after the write had committed, a 500 for
 * a stored success, and the same 500 on every idempotent replay.
 */
eachStore('Location headers after a committed write', (kind) => {
  let api: TestApi;
  before(async () => {
    api = await startApi(kind);
  });
  after(async () => api.close());

  it('a domain typed with a fullwidth letter: 2xx with the canonical Location, and the same on the idempotent retry', async () => {
    const key = (await api.issueKey({ environment: 'test', rights: ['dns.acme_challenge'], domains: ['domivka-demo.com.ua'] })).secret;
    // U+FF45 FULLWIDTH LATIN SMALL LETTER E: UTS 46 maps it to "e".
    const typed = 'domivka-d\uff45mo.com.ua';
    const init = {
      method: 'POST',
      headers: { ...bearer(key), 'idempotency-key': randomUUID() },
      json: { name: '_acme-challenge.www.domivka-demo.com.ua', value: 'fullwidth-location-token' },
    };
    const first = await api.call(`/v1/domains/${encodeURIComponent(typed)}/dns/acme-challenges`, init);
    expect(first.status, JSON.stringify(first.body)).to.equal(201);
    const location = first.headers.get('location');
    expect(location).to.equal(`/v1/domains/domivka-demo.com.ua/dns/acme-challenges/${first.body.id}`);
    const again = await api.call(`/v1/domains/${encodeURIComponent(typed)}/dns/acme-challenges`, init);
    expect(again.status, JSON.stringify(again.body)).to.equal(201);
    expect(again.headers.get('idempotent-replayed')).to.equal('true');
    expect(again.headers.get('location')).to.equal(location);
    expect(again.body.id).to.equal(first.body.id);
  });
});
