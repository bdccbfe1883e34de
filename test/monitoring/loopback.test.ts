import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { DomainError } from '../../core/kernel/errors.js';
import { TOKENS } from '../../src/tokens.js';
import { Worker } from '../../src/worker.js';
import { freePort } from '../dns/server/tools.js';
import { expectErrorShape } from '../support/error-shape.js';
import { eachStore } from '../support/stores.js';
import { bearer, startApi, type TestApi } from '../support/system.js';
import { startHttpPeer, type HttpPeer } from './peers.js';

const zone = 'domivka-demo.com.ua';

/** loopback targets only in the sandbox with MONITORS_ALLOW_LOOPBACK=1; live intervals ≥ 60 s. */
eachStore('monitoring: loopback and live rules', (kind) => {
  let api: TestApi;
  let peer: HttpPeer;
  before(async function () {
    this.timeout(120_000);
    const dnsPort = await freePort();
    api = await startApi(kind, { dns: true, dnsPort, env: { DNS_PORT: String(dnsPort), MONITOR_LIMIT: '4' } }); // no MONITORS_ALLOW_LOOPBACK
    peer = await startHttpPeer();
  });
  after(async () => {
    await peer?.close();
    await api?.close();
  });
  const post = (path: string, json: unknown, secret: string) =>
    api.call(path, { method: 'POST', headers: { ...bearer(secret), 'idempotency-key': randomUUID() }, json });

  it('without MONITORS_ALLOW_LOOPBACK a sandbox target resolving to 127.0.0.1 is refused at connect time; the server sees nothing', async () => {
    const dnsKey = (await api.issueKey({ environment: 'test', template: 'dns_editor', domains: [zone] })).secret;
    const plan = await post(
      `/v1/domains/${zone}/dns/plans`,
      { changes: [{ action: 'create', name: 'local', type: 'A', ttl: 60, values: ['127.0.0.1'] }] },
      dnsKey,
    );
    expect((await post(`/v1/domains/${zone}/dns/plans/${plan.body.id}/apply`, {}, dnsKey)).status).to.equal(200);
    const key = (await api.issueKey({ environment: 'test', template: 'monitoring', domains: [zone] })).secret;
    const m = await post(
      '/v1/monitors',
      { kind: 'http', domain: zone, url: `http://local.${zone}:${peer.port}/up`, interval_seconds: 10 },
      key,
    );
    expect(m.status).to.equal(201);
    await new Worker(api.system).monitors();
    const r = (await api.call(`/v1/monitors/${m.body.id}/results`, { headers: bearer(key) })).body.data[0];
    expect(r.ok).to.equal(false);
    expect(r.reason).to.match(/^target refused: local\.domivka-demo\.com\.ua resolves to 127\.0\.0\.1/);
    expect(peer.hits.size).to.equal(0);
    // …and loopback nameservers are refused at creation.
    expectErrorShape(await post('/v1/monitors', { kind: 'dns', domain: zone, nameservers: ['127.0.0.1'] }, key), 422, 'validation_failed');
  });

  it('a sandbox target whose AAAA is IPv4-compatible loopback (::7f00:1) is refused at connect time like 127.0.0.1', async () => {
    const dnsKey = (await api.issueKey({ environment: 'test', template: 'dns_editor', domains: [zone] })).secret;
    const plan = await post(
      `/v1/domains/${zone}/dns/plans`,
      { changes: [{ action: 'create', name: 'compat', type: 'AAAA', ttl: 60, values: ['::7f00:1'] }] },
      dnsKey,
    );
    expect((await post(`/v1/domains/${zone}/dns/plans/${plan.body.id}/apply`, {}, dnsKey)).status).to.equal(200);
    const key = (await api.issueKey({ environment: 'test', template: 'monitoring', domains: [zone] })).secret;
    const m = await post(
      '/v1/monitors',
      { kind: 'http', domain: zone, url: `http://compat.${zone}:${peer.port}/up`, interval_seconds: 10 },
      key,
    );
    expect(m.status).to.equal(201);
    await new Worker(api.system).monitors();
    const r = (await api.call(`/v1/monitors/${m.body.id}/results`, { headers: bearer(key) })).body.data[0];
    expect(r.ok).to.equal(false);
    expect(r.reason, r.reason).to.match(/^target refused: compat\.domivka-demo\.com\.ua resolves to ::(7f00:1|127\.0\.0\.1)/);
    expect(peer.hits.size).to.equal(0);
  });

  it('live (through the use case: this build answers live keys 503 at the HTTP edge): intervals of at least 60 s', async () => {
    await api.system.store.domains.insert({
      id: 'dom_live1',
      accountId: api.demo.accountId,
      environment: 'live',
      name: 'domivka-live.com.ua',
      labels: [],
      status: ['ok'],
      expiresOn: '2030-01-01',
      autoRenew: true,
      transferLock: true,
      nameservers: [],
      createdAt: api.clock.now(),
    });
    const secret = (await api.issueKey({ environment: 'live', template: 'monitoring', domains: ['domivka-live.com.ua'] })).secret;
    const key = await api.system.get(TOKENS.AuthenticateKey).execute(secret, '127.0.0.1');
    const create = api.system.get(TOKENS.CreateMonitor);
    const refused = await create.execute(key, { kind: 'domain_expiry', domain: 'domivka-live.com.ua', interval_seconds: 59 }).then(
      () => null,
      (e: DomainError) => e,
    );
    expect(refused?.code).to.equal('monitor_interval_too_short');
    expect(refused?.params).to.include({ minimum: 60, environment: 'live' });
    const m = await create.execute(key, { kind: 'domain_expiry', domain: 'domivka-live.com.ua', interval_seconds: 60 });
    expect(m).to.include({ environment: 'live', interval_seconds: 60 });
    // Loopback nameservers are never allowed in live, whatever MONITORS_ALLOW_LOOPBACK says.
    const ns = await create.execute(key, { kind: 'dns', domain: 'domivka-live.com.ua', nameservers: ['127.0.0.1'] }).then(
      () => null,
      (e: DomainError) => e,
    );
    expect(ns?.details?.map((d) => d.rule)).to.deep.equal(['nameserver-public']);
    // A test key never sees the live monitor (environments never mix).
    const test = (await api.issueKey({ environment: 'test', template: 'monitoring', domains: ['domivka-live.com.ua'] })).secret;
    expectErrorShape(await api.call(`/v1/monitors/${m.id}`, { headers: bearer(test) }), 404, 'monitor_not_found');
  });

  it("MONITOR_LIMIT caps an account's monitors per environment: 409 monitor_limit_reached, nothing stored", async () => {
    const key = (await api.issueKey({ environment: 'test', template: 'monitoring', domains: [zone] })).secret;
    const count = async () => Number((await api.system.store.knex('monitors').where({ environment: 'test' }).count({ n: '*' }))[0]!.n);
    while ((await count()) < 4) expect((await post('/v1/monitors', { kind: 'domain_expiry', domain: zone }, key)).status).to.equal(201);
    expectErrorShape(await post('/v1/monitors', { kind: 'domain_expiry', domain: zone }, key), 409, 'monitor_limit_reached');
    expect(await count()).to.equal(4);
  });

  it('regression: 12 concurrent creates under MONITOR_LIMIT=4 store 4, not more (on Postgres two counts used to see the same number)', async () => {
    const key = (await api.issueKey({ environment: 'test', template: 'monitoring', domains: [zone] })).secret;
    const monitors = async () =>
      (await api.system.store.knex('monitors').where({ environment: 'test' }).select('id')).map((r: { id: string }) => r.id);
    for (const id of await monitors())
      expect(
        (await api.call(`/v1/monitors/${id}`, { method: 'DELETE', headers: { ...bearer(key), 'idempotency-key': randomUUID() } })).status,
      ).to.equal(200);
    expect(await monitors()).to.have.length(0);
    const answers = await Promise.all(Array.from({ length: 12 }, () => post('/v1/monitors', { kind: 'domain_expiry', domain: zone }, key)));
    expect(answers.map((a) => a.status).sort()).to.deep.equal([...Array(4).fill(201), ...Array(8).fill(409)]);
    expect(await monitors()).to.have.length(4);
  });
});
