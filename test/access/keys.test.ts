import { expect } from 'chai';
import { eachStore } from '../support/stores.js';
import { addPerson, bearer, startApi, type TestApi } from '../support/system.js';

eachStore('Key issuance by humans (seed A8, DESIGN classes)', (kind) => {
  let api: TestApi;
  let owner: string;
  before(async () => {
    api = await startApi(kind);
    api.clock.set(new Date('2026-11-21T10:00:00Z'));
    owner = await api.signIn();
  });
  after(async () => api.close());

  const post = (path: string, json: unknown, cookie = owner) => api.call(path, { method: 'POST', headers: { cookie }, json });

  it('preview shows class, policies, conditions and a uk+en summary, and issues nothing', async () => {
    const before = Number((await api.system.store.knex('api_keys').count({ n: '*' }).first())!.n);
    const r = await post('/v1/account/keys/preview', {
      environment: 'test',
      template: 'registrar',
      domains: ['new-shop.com.ua'],
      conditions: { cidr: '203.0.113.7/24', expires_on: '2027-01-31', spend_limit: { amount: 150000, currency: 'UAH' } },
    });
    expect(r.status, JSON.stringify(r.body)).to.equal(200);
    expect(r.body.class).to.equal(2);
    expect(r.body.conditions).to.deep.equal({
      cidr: '203.0.113.0/24',
      expires_on: '2027-01-31',
      spend_limit: { amount: 150000, currency: 'UAH' },
    });
    expect(r.body.policies.map((p: any) => p.right)).to.have.members(['domain.read', 'domain.register', 'domain.renew', 'billing.read']);
    expect(r.body.summary.en)
      .to.contain('new-shop.com.ua')
      .and.contain('2027-01-31')
      .and.contain('203.0.113.0/24')
      .and.contain('1500.00 UAH')
      .and.contain('Money');
    expect(r.body.summary.uk)
      .to.contain('new-shop.com.ua')
      .and.contain('2027-01-31')
      .and.contain('203.0.113.0/24')
      .and.contain('1500.00 грн')
      .and.contain('Гроші');
    expect(r.body).not.to.have.property('secret');
    const after = Number((await api.system.store.knex('api_keys').count({ n: '*' }).first())!.n);
    expect(after).to.equal(before);
  });

  it('issue returns the secret once; the list never shows it', async () => {
    const k = await api.issueKey({ environment: 'test', template: 'dns_editor', label: 'prod', name: 'CI deploy' }, owner);
    expect(k.body.key).to.include({ name: 'CI deploy', class: 1, environment: 'test', status: 'active' });
    expect(k.body.key.conditions.expires_on).to.equal('2027-05-20'); // class 1 cap: 180 days
    const list = await api.call('/v1/account/keys', { headers: { cookie: owner } });
    expect(list.status).to.equal(200);
    expect(JSON.stringify(list.body)).not.to.contain(k.secret);
    expect(list.body.data.map((x: any) => x.id)).to.include(k.id);
  });

  const refused = async (body: unknown, status: number, code: string, cookie = owner) => {
    const r = await post('/v1/account/keys', body, cookie);
    expect(r.status, JSON.stringify(r.body)).to.equal(status);
    expect(r.body.error.code).to.equal(code);
    expect(r.body.error.message.uk).to.not.equal(r.body.error.message.en);
    return r;
  };

  it('lifetime is capped per class (0: 365, 1: 180, 2: 90, 3: 30 days)', async () => {
    const r = await refused(
      { environment: 'test', rights: ['dns.edit'], domains: ['a.com'], conditions: { expires_on: '2027-05-21' } },
      422,
      'key_lifetime_exceeded',
    );
    expect(r.body.error.message.en).to.contain('2027-05-20');
    await refused(
      {
        environment: 'test',
        rights: ['domain.nameservers'],
        domains: ['a.com'],
        conditions: { cidr: '10.0.0.0/8', expires_on: '2026-12-22' },
      },
      422,
      'key_lifetime_exceeded',
    );
    await refused(
      { environment: 'test', rights: ['domain.read'], domains: ['a.com'], conditions: { expires_on: '2026-11-20' } },
      422,
      'expiry_in_past',
    );
  });

  it('class ≥ 2 needs an IPv4 restriction of /8 or longer', async () => {
    await refused(
      { environment: 'test', rights: ['domain.renew'], domains: ['a.com'], conditions: { spend_limit: { amount: 100, currency: 'UAH' } } },
      422,
      'ip_restriction_required',
    );
    await refused(
      {
        environment: 'test',
        rights: ['domain.renew'],
        domains: ['a.com'],
        conditions: { cidr: '10.0.0.0/7', spend_limit: { amount: 100, currency: 'UAH' } },
      },
      422,
      'ip_restriction_too_wide',
    );
    await refused({ environment: 'test', rights: ['domain.lock'], domains: ['a.com'] }, 422, 'ip_restriction_required');
    const v = await post('/v1/account/keys', {
      environment: 'test',
      rights: ['domain.read'],
      domains: ['a.com'],
      conditions: { cidr: '2001:db8::/32' },
    });
    expect(v.status).to.equal(422);
    expect(v.body.error.code).to.equal('validation_failed');
  });

  it('a spending right needs a spend limit', async () => {
    await refused({ environment: 'test', rights: ['billing.topup'], conditions: { cidr: '10.0.0.0/8' } }, 422, 'spend_limit_required');
    await refused(
      { environment: 'test', rights: ['domain.register'], label: 'prod', conditions: { cidr: '10.0.0.0/8' } },
      422,
      'spend_limit_required',
    );
  });

  it('domain rights need domains; account rights (billing.*) do not', async () => {
    await refused({ environment: 'test', rights: ['dns.edit'] }, 422, 'domains_required');
    const k = await api.issueKey({ environment: 'test', rights: ['billing.read'] }, owner);
    expect(k.body.key.class).to.equal(0);
  });

  it('bad input is 422 validation_failed with details, not a 500', async () => {
    const r = await refused({ environment: 'prod', rights: ['domain.write'], domains: 'a.com', extra: 1 }, 422, 'validation_failed');
    const fields = r.body.error.details.map((d: any) => d.field);
    expect(fields).to.include.members(['/body/environment', '/body/domains']);
    for (const d of r.body.error.details) expect(d.message.uk).to.be.a('string').and.not.equal(d.message.en);
    await refused({ environment: 'test', rights: ['domain.read'], domains: ['not a domain'] }, 422, 'domain_invalid');
  });

  it('issuing a class ≥ 2 key notifies every owner; class < 2 does not', async () => {
    const second = await addPerson(api, 'owner', 'second-owner@domivka-demo.com.ua');
    const secondCookie = await api.signIn(second);
    const count = async (cookie: string) => (await api.call('/v1/account/notices?limit=200', { headers: { cookie } })).body.data.length;
    const [a0, b0] = [await count(owner), await count(secondCookie)];
    await api.issueKey({ environment: 'test', rights: ['domain.read'], domains: ['a.com'] }, owner);
    expect(await count(owner)).to.equal(a0);
    const k = await api.issueKey(
      {
        environment: 'test',
        rights: ['domain.renew'],
        domains: ['domivka-demo.dev'],
        conditions: { cidr: '127.0.0.0/8', spend_limit: { amount: 50000, currency: 'UAH' } },
      },
      owner,
    );
    expect(await count(owner)).to.equal(a0 + 1);
    expect(await count(secondCookie)).to.equal(b0 + 1);
    const n = (await api.call('/v1/account/notices', { headers: { cookie: secondCookie } })).body.data[0];
    expect(n.kind).to.equal('key.issued');
    expect(n.message.en).to.contain(k.id).and.contain('class 2').and.contain('500.00 UAH');
    expect(n.message.uk).to.contain(k.id).and.contain('класу 2');
  });

  it('members issue keys of class ≤ 1 only, and see and revoke only their own', async () => {
    const m = await addPerson(api, 'member', 'member@domivka-demo.com.ua');
    const mc = await api.signIn(m);
    await refused(
      {
        environment: 'test',
        rights: ['domain.renew'],
        domains: ['a.com'],
        conditions: { cidr: '10.0.0.0/8', spend_limit: { amount: 100, currency: 'UAH' } },
      },
      403,
      'role_forbidden',
      mc,
    );
    const mine = await api.issueKey({ environment: 'test', rights: ['dns.edit'], domains: ['domivka-demo.dev'] }, mc);
    const ownersKey = await api.issueKey({ environment: 'test', rights: ['domain.read'], domains: ['domivka-demo.dev'] }, owner);
    const list = await api.call('/v1/account/keys?limit=200', { headers: { cookie: mc } });
    expect(list.body.data.map((k: any) => k.id)).to.deep.equal([mine.id]);
    const r = await api.call(`/v1/account/keys/${ownersKey.id}`, { method: 'DELETE', headers: { cookie: mc } });
    expect(r.status).to.equal(404);
    expect(r.body.error.code).to.equal('key_not_found');
    expect((await api.call(`/v1/account/keys/${mine.id}`, { method: 'DELETE', headers: { cookie: mc } })).body.status).to.equal('revoked');
    // Owners revoke any key of the account.
    const ownersList = await api.call('/v1/account/keys?limit=200', { headers: { cookie: owner } });
    expect(ownersList.body.data.map((k: any) => k.id)).to.include.members([mine.id, ownersKey.id]);
  });

  it('key lists are cursor pages', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const r: any = await api.call(`/v1/account/keys?limit=2${cursor ? `&cursor=${cursor}` : ''}`, { headers: { cookie: owner } });
      expect(r.status).to.equal(200);
      expect(r.body.data.length).to.be.at.most(2);
      seen.push(...r.body.data.map((k: any) => k.id));
      cursor = r.body.next_cursor;
    } while (cursor);
    const all = await api.call('/v1/account/keys?limit=200', { headers: { cookie: owner } });
    expect(seen).to.deep.equal(all.body.data.map((k: any) => k.id));
    expect(new Set(seen).size).to.equal(seen.length);
    const bad = await api.call('/v1/account/keys?cursor=garbage', { headers: { cookie: owner } });
    expect(bad.status).to.equal(422);
    expect(bad.body.error.code).to.equal('cursor_invalid');
  });

  it('GET /v1/key shows the calling key, its class, conditions and spend this month', async () => {
    const k = await api.issueKey(
      {
        environment: 'test',
        rights: ['domain.renew'],
        label: 'prod',
        conditions: { cidr: '127.0.0.0/8', spend_limit: { amount: 30000, currency: 'UAH' } },
      },
      owner,
    );
    const r = await api.call('/v1/key', { headers: bearer(k.secret) });
    expect(r.status).to.equal(200);
    expect(r.body).to.include({ id: k.id, environment: 'test', class: 2, status: 'active' });
    expect(r.body.policies).to.deep.equal([{ right: 'domain.renew', resources: { label: 'prod' } }]);
    expect(r.body.conditions).to.deep.equal({
      cidr: '127.0.0.0/8',
      expires_on: '2027-02-19',
      spend_limit: { amount: 30000, currency: 'UAH' },
    });
    expect(r.body.spend).to.deep.equal({
      month: '2026-11',
      used: { amount: 0, currency: 'UAH' },
      limit: { amount: 30000, currency: 'UAH' },
      remaining: { amount: 30000, currency: 'UAH' },
    });
    expect(r.body.class_meaning.en).to.contain('owners');
  });
});
