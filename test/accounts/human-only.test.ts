import { expect } from 'chai';
import { isHumanOnly } from '../../adapters/http/route.js';
import { eachStore } from '../support/stores.js';
import { bearer, startApi, type TestApi } from '../support/system.js';

/**
 * Seed A6: managing people and keys (and the other human-only actions) is never open to a key.
 * Every route declared human-only refuses every kind of key — valid, live, class 3, revoked,
 * expired, malformed — with 403 human_only and an action pointing to the console.
 */
eachStore('Human-only routes refuse every key (seed A6)', (kind) => {
  let api: TestApi;
  const keys: Record<string, string> = {};
  before(async () => {
    api = await startApi(kind);
    const owner = await api.signIn();
    keys['test class 0'] = (await api.issueKey({ environment: 'test', template: 'read_only', label: 'prod' }, owner)).secret;
    keys['live class 1'] = (await api.issueKey({ environment: 'live', rights: ['dns.edit'], label: 'prod' }, owner)).secret;
    keys['test class 2'] = (
      await api.issueKey(
        {
          environment: 'test',
          template: 'registrar',
          label: 'prod',
          conditions: { cidr: '127.0.0.0/8', spend_limit: { amount: 100000, currency: 'UAH' } },
        },
        owner,
      )
    ).secret;
    keys['test class 3 (every right)'] = (
      await api.issueKey(
        {
          environment: 'test',
          rights: [
            'domain.read',
            'dns.edit',
            'cert.issue',
            'monitor.edit',
            'webhook.manage',
            'billing.topup',
            'domain.register',
            'domain.renew',
            'domain.nameservers',
            'domain.lock',
            'domain.labels',
          ],
          label: 'prod',
          conditions: { cidr: '127.0.0.0/8', spend_limit: { amount: 100000, currency: 'UAH' } },
        },
        owner,
      )
    ).secret;
    const revoked = await api.issueKey({ environment: 'test', rights: ['domain.read'], label: 'prod' }, owner);
    await api.call(`/v1/account/keys/${revoked.id}`, { method: 'DELETE', headers: { cookie: owner } });
    keys.revoked = revoked.secret;
    keys.malformed = 'dmk_test_not-a-key';
  });
  after(async () => api.close());

  it('every human-only route, for every kind of key, answers 403 human_only with a console action', async () => {
    const routes = api.system.http().routes.filter(isHumanOnly);
    expect(routes.length).to.be.at.least(8);
    for (const route of routes) {
      const path = route.path.replace('{id}', 'AAAAAAAAAAAA');
      for (const [name, secret] of Object.entries(keys)) {
        const r = await api.call(path, {
          method: route.method,
          headers: bearer(secret),
          ...(route.method === 'GET' || route.method === 'DELETE' ? {} : { json: {} }),
        });
        expect(r.status, `${route.method} ${path} with ${name}`).to.equal(403);
        expect(r.body.error.code).to.equal('human_only');
        expect(r.body.error.actions[0].type).to.equal('open_console');
        expect(r.body.error.actions[0].href).to.match(/^\/console/);
      }
    }
  });

  it('a key plus a valid session cookie is still refused', async () => {
    const cookie = await api.signIn();
    const r = await api.call('/v1/account/keys', { headers: { ...bearer(keys['test class 0']!), cookie } });
    expect(r.status).to.equal(403);
    expect(r.body.error.code).to.equal('human_only');
  });

  it('keyed routes do not accept a session instead of a key', async () => {
    const cookie = await api.signIn();
    const r = await api.call('/v1/domains', { headers: { cookie } });
    expect(r.status).to.equal(401);
    expect(r.body.error.code).to.equal('unauthenticated');
  });
});
