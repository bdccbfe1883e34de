import { expect } from 'chai';
import { eachStore } from '../support/stores.js';
import { bearer, startApi, type TestApi } from '../support/system.js';

eachStore('Domains: the read path (seed 2.5, 4) and search', (kind) => {
  let api: TestApi;
  let all: string;
  before(async () => {
    api = await startApi(kind);
    all = (
      await api.issueKey({
        environment: 'test',
        rights: ['domain.read'],
        domains: ['domivka-demo.com.ua', 'domivka-demo.dev', 'domivka-blog.kyiv.ua'],
      })
    ).secret;
    // An IDN domain, to read in Unicode and in punycode.
    await api.system.store.domains.insert({
      id: 'idn-1',
      accountId: api.demo.accountId,
      environment: 'test',
      name: 'xn--80aikifvh.xn--j1amh',
      labels: ['prod'],
      status: ['ok'],
      expiresOn: '2027-06-01',
      autoRenew: false,
      transferLock: false,
      nameservers: ['ns1.domivka.net'],
      createdAt: api.clock.now(),
    });
  });
  after(async () => api.close());

  const get = (path: string, secret = all) => api.call(path, { headers: bearer(secret) });

  it('GET /v1/domains/{domain} returns the four seed fields plus labels, nameservers, transfer_lock, created_at, registrar', async () => {
    const r = await get('/v1/domains/domivka-demo.com.ua');
    expect(r.status).to.equal(200);
    expect(Object.keys(r.body).sort()).to.deep.equal([
      'auto_renew',
      'created_at',
      'domain',
      'expires_at',
      'labels',
      'nameservers',
      'registrar',
      'status',
      'transfer_lock',
    ]);
    expect(r.body.registrar).to.equal('domivka');
    expect(r.body.domain).to.equal('domivka-demo.com.ua');
    expect(r.body.status).to.be.an('array').that.includes('clientTransferProhibited');
    expect(r.body.expires_at).to.match(/^\d{4}-\d{2}-\d{2}$/);
    expect(r.body.auto_renew).to.equal(true);
    expect(r.body.labels).to.deep.equal(['prod', 'shop']);
    expect(r.body.transfer_lock).to.equal(true);
  });

  it('names are normalised: case, trailing dot', async () => {
    expect((await get('/v1/domains/DOMIVKA-Demo.com.ua.')).body.domain).to.equal('domivka-demo.com.ua');
  });

  it('IDNs are accepted in Unicode or punycode', async () => {
    const k = (await api.issueKey({ environment: 'test', rights: ['domain.read'], domains: ['приклад.укр'] })).secret;
    const uni = await get(`/v1/domains/${encodeURIComponent('Приклад.укр')}`, k);
    expect(uni.status, JSON.stringify(uni.body)).to.equal(200);
    expect(uni.body.domain).to.equal('xn--80aikifvh.xn--j1amh');
    expect((await get('/v1/domains/xn--80aikifvh.xn--j1amh', k)).status).to.equal(200);
  });

  it('a named domain that is not in the account is 404 domain_not_found; an invalid name is 422', async () => {
    const k = (await api.issueKey({ environment: 'test', rights: ['domain.read'], domains: ['not-mine.com'] })).secret;
    const r = await get('/v1/domains/not-mine.com', k);
    expect(r.status).to.equal(404);
    expect(r.body.error.code).to.equal('domain_not_found');
    const bad = await get('/v1/domains/a..b', k);
    expect(bad.status).to.equal(422);
    expect(bad.body.error.code).to.equal('domain_invalid');
  });

  it('a label-scoped key learns nothing about names outside its label (403, not 404)', async () => {
    const k = (await api.issueKey({ environment: 'test', rights: ['domain.read'], label: 'blog' })).secret;
    for (const r of [await get('/v1/domains/not-mine.com', k), await get('/v1/domains/domivka-demo.dev', k)]) {
      expect(r.status).to.equal(403);
      expect(r.body.error.code).to.equal('right_missing');
    }
  });

  it('GET /v1/domains lists only what the key may read, by name, with a label filter and cursor pages', async () => {
    const prod = (await api.issueKey({ environment: 'test', rights: ['domain.read'], label: 'prod' })).secret;
    expect((await get('/v1/domains', prod)).body.data.map((d: any) => d.domain)).to.deep.equal([
      'domivka-demo.com.ua',
      'domivka-demo.dev',
      'xn--80aikifvh.xn--j1amh',
    ]);
    expect((await get('/v1/domains?label=shop', prod)).body.data.map((d: any) => d.domain)).to.deep.equal(['domivka-demo.com.ua']);
    const p1 = await get('/v1/domains?limit=2');
    expect(p1.body.data.map((d: any) => d.domain)).to.deep.equal(['domivka-blog.kyiv.ua', 'domivka-demo.com.ua']);
    const p2 = await get(`/v1/domains?limit=2&cursor=${p1.body.next_cursor}`);
    expect(p2.body.data.map((d: any) => d.domain)).to.deep.equal(['domivka-demo.dev']);
    expect(p2.body.next_cursor).to.equal(null);
    for (const r of [await get('/v1/domains?limit=0'), await get('/v1/domains?limit=201')]) {
      expect(r.status).to.equal(422);
      expect(r.body.error.code).to.equal('validation_failed');
    }
  });

  it('GET /v1/domains needs domain.read somewhere', async () => {
    const k = (await api.issueKey({ environment: 'test', rights: ['billing.read'] })).secret;
    const r = await get('/v1/domains', k);
    expect(r.status).to.equal(403);
    expect(r.body.error.code).to.equal('right_missing');
  });

  it('search: any valid key; every priced TLD with its yearly price; exact match first; taken names show their date', async () => {
    const k = (await api.issueKey({ environment: 'test', rights: ['billing.read'] })).secret;
    const r = await get('/v1/search?q=domivka-demo.dev', k);
    expect(r.status).to.equal(200);
    expect(r.body.results[0]).to.deep.include({ domain: 'domivka-demo.dev', exact: true, available: false });
    expect(r.body.results[0].registered_until).to.match(/^\d{4}-\d{2}-\d{2}$/);
    const tlds = r.body.results.map((x: any) => x.tld);
    expect(tlds).to.include.members(['ua', 'com.ua', 'kyiv.ua', 'org.ua', 'com', 'net', 'org', 'dev', 'io']);
    expect(r.body.results.find((x: any) => x.domain === 'domivka-demo.io')).to.deep.include({
      available: true,
      price: { amount: 180000, currency: 'UAH' },
      registered_until: null,
    });
    const taken = await get('/v1/search?q=taken-shop', k);
    expect(taken.body.results.every((x: any) => x.available === false && x.registered_until === '2031-03-14')).to.equal(true);
  });

  it('search refuses names outside the price list and empty text', async () => {
    const r = await get('/v1/search?q=example.xyz');
    expect(r.status).to.equal(422);
    expect(r.body.error.code).to.equal('tld_not_supported');
    for (const r of [await get('/v1/search?q='), await get('/v1/search')]) {
      expect(r.status).to.equal(422);
      expect(r.body.error.code).to.equal('validation_failed');
    }
  });
});
