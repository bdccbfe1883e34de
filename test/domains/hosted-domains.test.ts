import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { TOKENS } from '../../src/tokens.js';
import { expectErrorShape } from '../support/error-shape.js';
import { eachStore } from '../support/stores.js';
import { bearer, startApi, type TestApi } from '../support/system.js';
import { secondAccount } from '../hostile/support/second-account.js';

const NAMES = [
  'hosted-one.com',
  'undelegated-two.com',
  'undelegated-three.com',
  'hosted-four.net',
  'hosted-five.org',
  'hosted-six.org',
  'b-active.com',
  'b-pending.com',
  'sub.b-zone.com.ua',
  'b-zone.com.ua',
  'domivka-demo.com.ua',
  'xn--80aikifvh.xn--j1amh',
  'com.ua',
  'github.io',
  'x.github.io',
];

/** DESIGN "Domains born elsewhere": hosted domains, their sandbox verification, refusals and deletion. */
eachStore('Hosted domains (API)', (kind) => {
  let api: TestApi;
  let key: string;
  let b: Awaited<ReturnType<typeof secondAccount>>;
  let bKey: string;
  before(async () => {
    api = await startApi(kind, { env: { HOSTED_DOMAIN_LIMIT: '6', ZONE_RECORD_LIMIT: '4' } });
    key = (
      await api.issueKey({
        environment: 'test',
        rights: ['domain.read', 'domain.host', 'dns.edit', 'sandbox.clock'],
        domains: NAMES,
      })
    ).secret;
    b = await secondAccount(api, 'b-zone.com.ua');
    const cookie = await api.signIn({ email: b.email, password: b.password, totpSecret: b.totpSecret });
    bKey = (await api.issueKey({ environment: 'test', rights: ['domain.read', 'domain.host'], domains: NAMES }, cookie)).secret;
  });
  after(async () => api.close());

  const post = (path: string, json: unknown, secret = key) =>
    api.call(path, { method: 'POST', headers: { ...bearer(secret), 'idempotency-key': randomUUID() }, json });
  const host = (domain: string, secret = key) => post('/v1/hosted-domains', { domain }, secret);
  const del = (domain: string, secret = key) =>
    api.call(`/v1/hosted-domains/${domain}`, { method: 'DELETE', headers: { ...bearer(secret), 'idempotency-key': randomUUID() } });
  const get = async (domain: string, secret = key) => api.call(`/v1/domains/${domain}`, { headers: bearer(secret) });

  it('POST /v1/hosted-domains → 201: registrar external, status [], expires_at null, the hosting object; sandbox names verify at once', async () => {
    const r = await host('Hosted-One.com.');
    expect(r.status, JSON.stringify(r.body)).to.equal(201);
    expect(r.headers.get('location')).to.equal('/v1/domains/hosted-one.com');
    const d = r.body;
    expect(d).to.include({ domain: 'hosted-one.com', registrar: 'external', expires_at: null });
    expect(d.status).to.deep.equal([]);
    expect(d.labels).to.deep.equal([]);
    expect(d.hosting.status).to.equal('active');
    expect(d.hosting.nameservers).to.deep.equal(['ns1.domivka.net', 'ns2.domivka.net']);
    expect(d.hosting.verification).to.include({ type: 'txt', name: '_domivka-challenge.hosted-one.com' });
    expect(d.hosting.verification.value).to.match(/^domivka-verify=[0-9A-Za-z]{32}$/);
    expect(d.hosting.verification.checked_at).to.be.a('string');
    expect(d.hosting.problem).to.equal(null);
    // A registered domain says so too.
    const demo = await api.call('/v1/domains/domivka-demo.com.ua', { headers: bearer(key) });
    expect(demo.body.registrar).to.equal('domivka');
    expect(demo.body).not.to.have.property('hosting');
  });

  it('the zone exists at once (apex SOA/NS, service-owned) and a plan applies to it as on a registered domain', async () => {
    const records = await api.call('/v1/domains/undelegated-three.com/dns/records', { headers: bearer(key) });
    expect(records.status).to.equal(404); // not added yet
    expect((await host('undelegated-three.com')).status).to.equal(201);
    const zone = await api.call('/v1/domains/undelegated-three.com/dns/records', { headers: bearer(key) });
    expect(zone.status, JSON.stringify(zone.body)).to.equal(200);
    const types = (zone.body.data ?? zone.body.records ?? zone.body).map((s: { type: string }) => s.type).sort();
    expect(types).to.deep.equal(['NS', 'SOA']);
    const plan = await post('/v1/domains/undelegated-three.com/dns/plans', {
      changes: [{ action: 'create', name: 'www', type: 'A', ttl: 300, values: ['192.0.2.7'] }],
    });
    expect(plan.status, JSON.stringify(plan.body)).to.equal(201);
    expect(plan.body.valid).to.equal(true);
    const applied = await post(`/v1/domains/undelegated-three.com/dns/plans/${plan.body.id}/apply`, {});
    expect(applied.status, JSON.stringify(applied.body)).to.equal(200);
    // The apex SOA and NS stay the service's.
    const refused = await post('/v1/domains/undelegated-three.com/dns/plans', {
      changes: [{ action: 'create', name: '@', type: 'NS', ttl: 300, values: ['ns.elsewhere.example.'] }],
    });
    expect(refused.body.valid, JSON.stringify(refused.body)).to.equal(false);
  });

  it('undelegated- names stay pending_delegation (problem not_delegated); the simulated parent then activates them', async () => {
    const r = await host('undelegated-two.com');
    expect(r.status).to.equal(201);
    expect(r.body.hosting.status).to.equal('pending_delegation');
    expect(r.body.hosting.problem.code).to.equal('not_delegated');
    expect(r.body.hosting.problem.message.uk).to.match(/[\u0400-\u04FF]/);
    const again = await post('/v1/domains/undelegated-two.com/hosting/verify', {});
    expect(again.status).to.equal(200);
    expect(again.body.hosting.status).to.equal('pending_delegation');
    const pending = await api.call('/v1/domains?registrar=external&hosting_status=pending_delegation', { headers: bearer(key) });
    expect(pending.body.data.map((d: { domain: string }) => d.domain))
      .to.include('undelegated-two.com')
      .and.not.include('hosted-one.com');
    const delegated = await post('/v1/sandbox/delegations/undelegated-two.com', { delegated: true });
    expect(delegated.status, JSON.stringify(delegated.body)).to.equal(200);
    expect(delegated.body.hosting).to.include({ status: 'active', problem: null });
    const active = await api.call('/v1/domains?registrar=external&hosting_status=active', { headers: bearer(key) });
    expect(active.body.data.map((d: { domain: string }) => d.domain)).to.include.members(['undelegated-two.com', 'hosted-one.com']);
    const registered = await api.call('/v1/domains?registrar=domivka', { headers: bearer(key) });
    expect(registered.body.data.map((d: { registrar: string }) => d.registrar)).to.deep.equal(['domivka']);
  });

  it('a lost delegation sets hosting.problem delegation_lost, records domain.hosting_problem, tells the owners; the zone stays active', async () => {
    const lost = await post('/v1/sandbox/delegations/hosted-one.com', { delegated: false });
    expect(lost.status).to.equal(200);
    expect(lost.body.hosting.status).to.equal('active');
    expect(lost.body.hosting.problem.code).to.equal('delegation_lost');
    await api.system.get(TOKENS.PublishEvents).run();
    const events = await api.call('/v1/events?types=domain.hosting_problem', { headers: bearer(key) });
    const ev = events.body.data.find((e: { data: { domain: string } }) => e.data.domain === 'hosted-one.com');
    expect(ev, JSON.stringify(events.body)).to.exist;
    expect(ev.data).to.include({ code: 'delegation_lost', status: 'active' });
    const notices = await api.call('/v1/notices', { headers: bearer(key) });
    expect(
      notices.body.data.some((n: { kind: string; domain: string }) => n.kind === 'domain.hosting_problem' && n.domain === 'hosted-one.com'),
    ).to.equal(true);
    const back = await post('/v1/sandbox/delegations/hosted-one.com', { delegated: true });
    expect(back.body.hosting.problem).to.equal(null);
  });

  it('refusals, each with its code: already in this account, public suffix, invalid name, registered here elsewhere, hosted actively elsewhere, child of another account, not hosted', async () => {
    expectErrorShape(await host('hosted-one.com'), 409, 'domain_already_yours');
    expectErrorShape(await host('domivka-demo.com.ua'), 409, 'domain_already_yours');
    expectErrorShape(await host('com.ua'), 422, 'domain_public_suffix');
    expectErrorShape(await host('github.io'), 422, 'domain_public_suffix');
    expectErrorShape(await host('bad_name!.com'), 422, 'domain_invalid');
    // Another account: its registered domain always wins; its active zone is not claimable; nor its zone's children.
    expectErrorShape(await host('b-zone.com.ua'), 409, 'domain_registered_here');
    expectErrorShape(await host('sub.b-zone.com.ua'), 409, 'domain_parent_held_elsewhere');
    expect((await host('b-active.com', bKey)).body.hosting.status).to.equal('active');
    expectErrorShape(await host('b-active.com'), 409, 'domain_hosted_elsewhere');
    // A pending claim elsewhere does not lock the name.
    await post('/v1/sandbox/delegations/b-pending.com', { delegated: false }, bKey).catch(() => null);
    const bPending = await host('b-pending.com', bKey);
    expect(bPending.status).to.equal(201);
    expect((await api.call('/v1/domains/b-pending.com', { headers: bearer(key) })).status).to.equal(404);
    expectErrorShape(await post('/v1/domains/domivka-demo.com.ua/hosting/verify', {}, key), 409, 'domain_not_hosted');
    expectErrorShape(await del('domivka-demo.com.ua'), 409, 'domain_not_hosted');
    expectErrorShape(await post('/v1/domains/hosted-six.org/hosting/verify', {}), 404, 'domain_not_found');
    // Renewal belongs to the other registrar.
    const renew = await api.issueKey({
      environment: 'test',
      rights: ['domain.renew'],
      domains: ['hosted-one.com'],
      conditions: { cidr: '127.0.0.0/8', spend_limit: { amount: 100000, currency: 'UAH' } },
    });
    expectErrorShape(await post('/v1/domains/hosted-one.com/renewals', { years: 1 }, renew.secret), 409, 'domain_not_registered_here');
  });

  it('a domain registered through us always wins: registering a name another account hosts removes that claim and tells its owners', async () => {
    const registrar = await api.issueKey({
      environment: 'test',
      rights: ['domain.register'],
      domains: ['b-active.com'],
      conditions: { cidr: '127.0.0.0/8', spend_limit: { amount: 10_000_000, currency: 'UAH' } },
    });
    const r = await post('/v1/domains', { domain: 'b-active.com', years: 1 }, registrar.secret);
    expect(r.status, JSON.stringify(r.body)).to.equal(201);
    expect(r.body.registrar).to.equal('domivka');
    expect((await get('b-active.com', bKey)).status).to.equal(404);
    const zone = await api.system.store.zones.find(b.accountId, 'test', 'b-active.com');
    expect(zone).to.equal(null);
    const rows: Array<{ account_id: string; data: string }> = await api.system.store
      .knex('events')
      .where({ type: 'domain.hosting_deleted', subject: 'domain:b-active.com' });
    expect(rows.map((x) => x.account_id)).to.deep.equal([b.accountId]);
    expect(rows[0]!.data).to.include('registered_here');
  });

  it('the console lists a hosted domain and shows its page (no expiry: registered elsewhere)', async () => {
    const cookie = await api.signIn();
    const list = await api.call('/console/', { headers: { cookie } });
    expect(list.status).to.equal(200);
    expect(String(list.body))
      .to.include('hosted-one.com')
      .and.match(/в іншого реєстратора|at another registrar/);
    const page = await api.call('/console/domains/hosted-one.com', { headers: { cookie } });
    expect(page.status).to.equal(200);
    expect(String(page.body))
      .to.match(/зареєстровано в іншого реєстратора|registered at another registrar/)
      .and.not.include('>null<');
  });

  it('ZONE_RECORD_LIMIT is a plan check: a plan that grows a zone past it is invalid (zone-record-limit) and cannot be applied', async () => {
    const a = (n: string) => ({ action: 'create', name: n, type: 'A', ttl: 300, values: ['192.0.2.1'] });
    const over = await post('/v1/domains/hosted-one.com/dns/plans', { changes: [a('a'), a('b'), a('c')] });
    expect(over.status, JSON.stringify(over.body)).to.equal(201);
    expect(over.body.valid).to.equal(false);
    const check = over.body.checks.find((c: { rule: string }) => c.rule === 'zone-record-limit');
    expect(check, JSON.stringify(over.body.checks)).to.include({ severity: 'error', name: 'hosted-one.com' });
    expect(check.message.en).to.match(/5 record sets; the limit is 4/);
    expectErrorShape(await post(`/v1/domains/hosted-one.com/dns/plans/${over.body.id}/apply`, {}), 422, 'plan_invalid');
    const fits = await post('/v1/domains/hosted-one.com/dns/plans', { changes: [a('a'), a('b')] });
    expect(fits.body.valid, JSON.stringify(fits.body.checks)).to.equal(true);
  });

  it('IDN names are stored as A-labels', async () => {
    const r = await host('приклад.укр');
    expect(r.status, JSON.stringify(r.body)).to.equal(201);
    expect(r.body.domain).to.equal('xn--80aikifvh.xn--j1amh');
  });

  it('HOSTED_DOMAIN_LIMIT: 409 hosted_domain_limit_reached, nothing stored', async () => {
    // hosted-one, undelegated-two, undelegated-three, приклад.укр so far; two more fit.
    expect((await host('hosted-four.net')).status).to.equal(201);
    expect((await host('hosted-five.org')).status).to.equal(201);
    expectErrorShape(await host('hosted-six.org'), 409, 'hosted_domain_limit_reached');
    expect((await get('hosted-six.org')).status).to.equal(404);
  });

  it('sandbox delegations: a live key is refused (sandbox_only); a registered domain is not hosted', async () => {
    const live = await api.issueKey({ environment: 'live', rights: ['domain.host'], domains: ['hosted-one.com'] });
    const r = await post('/v1/sandbox/delegations/hosted-one.com', { delegated: true }, live.secret);
    expect(r.status).to.equal(403);
    expect(r.body.error.code).to.equal('sandbox_only');
    expectErrorShape(await post('/v1/sandbox/delegations/domivka-demo.com.ua', { delegated: true }), 409, 'domain_not_hosted');
  });

  it('DELETE: a pending claim goes at once (200); an active zone is a class 3 operation (202) that removes domain and zone when it activates', async () => {
    await post('/v1/sandbox/delegations/undelegated-three.com', { delegated: false });
    expect((await get('undelegated-three.com')).body.hosting.status).to.equal('pending_delegation');
    const now = await del('undelegated-three.com');
    expect(now.status, JSON.stringify(now.body)).to.equal(200);
    expect(now.body).to.deep.equal({ deleted: true, domain: 'undelegated-three.com' });
    expect((await get('undelegated-three.com')).status).to.equal(404);
    expect(await api.system.store.zones.find(api.demo.accountId, 'test', 'undelegated-three.com')).to.equal(null);

    const op = await del('hosted-four.net');
    expect(op.status, JSON.stringify(op.body)).to.equal(202);
    expect(op.body).to.include({ kind: 'hosted_delete', status: 'pending', right: 'domain.host', domain: 'hosted-four.net' });
    expect((await get('hosted-four.net')).body.status).to.include('pendingUpdate');
    expectErrorShape(await del('hosted-four.net'), 409, 'operation_pending');
    const travel = await post('/v1/sandbox/clock', { advance: 'P2D' });
    expect(travel.status, JSON.stringify(travel.body)).to.equal(200);
    expect((await get('hosted-four.net')).status).to.equal(404);
    expect(await api.system.store.zones.find(api.demo.accountId, 'test', 'hosted-four.net')).to.equal(null);
    // The domains are gone, so no key reads their events any more: the log has them.
    const rows: Array<{ subject: string }> = await api.system.store
      .knex('events')
      .where({ type: 'domain.hosting_deleted' })
      .select('subject');
    expect(rows.map((r) => r.subject)).to.include.members(['domain:undelegated-three.com', 'domain:hosted-four.net']);
  });

  it('a label-scoped domain.host key adds a domain that carries no label', async () => {
    const labelled = (await api.issueKey({ environment: 'test', rights: ['domain.host'], label: 'prod' })).secret;
    // The limit is full: free one first (pending, so at once).
    await post('/v1/sandbox/delegations/hosted-five.org', { delegated: false });
    const removed = await api.system.store.domains.find(api.demo.accountId, 'test', 'hosted-five.org');
    expect(removed!.hosting!.status).to.equal('active'); // an active zone stays active on a lost delegation
    const op = await del('hosted-five.org');
    expect(op.status).to.equal(202);
    const cancelled = await post(`/v1/operations/${op.body.id}/cancel`, {});
    expect(cancelled.status, JSON.stringify(cancelled.body)).to.equal(200);
    expect((await get('hosted-five.org')).status).to.equal(200);
    await api.system.store.uow.transaction(async () => {
      await api.system.get(TOKENS.ZoneService).remove(api.demo.accountId, 'test', 'hosted-five.org');
      await api.system.store.domains.remove(removed!.id);
    });
    const r = await host('hosted-six.org', labelled);
    expect(r.status, JSON.stringify(r.body)).to.equal(201);
    expect(r.body.labels).to.deep.equal([]);
    // Without a label of its own, the label-scoped key does not reach it afterwards.
    expect((await get('hosted-six.org', labelled)).status).to.equal(403);
  });
});
