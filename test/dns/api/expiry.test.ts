import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { Worker } from '../../../src/worker.js';
import { eachStore } from '../../support/stores.js';
import { bearer, startApi, type TestApi } from '../../support/system.js';

eachStore('DNS: plans and ACME values expire', (kind) => {
  let api: TestApi;
  let key: string;
  const zone = 'domivka-demo.dev';
  before(async () => {
    api = await startApi(kind);
    key = (await api.issueKey({ environment: 'test', rights: ['dns.edit', 'dns.acme_challenge'], domains: [zone] })).secret;
  });
  after(async () => api.close());

  const post = (path: string, json: unknown) =>
    api.call(path, { method: 'POST', headers: { ...bearer(key), 'idempotency-key': randomUUID() }, json });
  const txt = async () =>
    (await api.system.store.zones.find(api.demo.accountId, 'test', zone))!.recordSets.find(
      (s) => s.name === `_acme-challenge.${zone}` && s.type === 'TXT',
    );

  it('a plan expires after an hour: 409 plan_expired with an action to re-plan', async () => {
    const plan = await post(`/v1/domains/${zone}/dns/plans`, {
      changes: [{ action: 'create', name: 'late', type: 'A', ttl: 300, values: ['192.0.2.9'] }],
    });
    api.clock.advance(3600_000 + 1000);
    const r = await post(`/v1/domains/${zone}/dns/plans/${plan.body.id}/apply`, {});
    expect(r.status).to.equal(409);
    expect(r.body.error.code).to.equal('plan_expired');
    expect(r.body.error.actions[0]).to.deep.equal({ type: 'replan', href: `/v1/domains/${zone}/dns/plans` });
  });

  it('ACME values nobody removes are gone after 24 hours (the worker)', async () => {
    const c = await post(`/v1/domains/${zone}/dns/acme-challenges`, { name: `_acme-challenge.${zone}`, value: 'will-expire' });
    expect(c.status).to.equal(201);
    expect((await txt())!.values).to.include('will-expire');
    expect((await txt())!.ttl).to.equal(60);
    await new Worker(api.system).tick();
    expect((await txt())!.values).to.include('will-expire');
    api.clock.advance(24 * 3600_000 + 1000);
    await new Worker(api.system).tick();
    expect(await txt()).to.equal(undefined);
  });

  it('long TXT text is split into 255-octet strings, not refused', async () => {
    const long = 'v=DKIM1; k=rsa; p=' + 'A'.repeat(600);
    const plan = await post(`/v1/domains/${zone}/dns/plans`, {
      changes: [{ action: 'create', name: 'sel._domainkey', type: 'TXT', ttl: 300, values: [long] }],
    });
    expect(plan.body.valid, JSON.stringify(plan.body.checks)).to.equal(true);
    expect((await post(`/v1/domains/${zone}/dns/plans/${plan.body.id}/apply`, {})).status).to.equal(200);
    const file = (await api.call(`/v1/domains/${zone}/dns/zone`, { headers: bearer(key) })).body as string;
    const line = file.split('\n').find((l) => l.startsWith('sel._domainkey'))!;
    const strings = [...line.matchAll(/"([^"]*)"/g)].map((m) => m[1]!);
    expect(strings.length).to.equal(3);
    expect(strings.every((x) => x.length <= 255)).to.equal(true);
    expect(strings.join('')).to.equal(long);
  });
});
