import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { TOKENS } from '../../src/tokens.js';
import { up as rewriteOldEvents } from '../../adapters/sql/migrations/20261126130000_event_url_parts.js';
import { eachStore } from '../support/stores.js';
import { bearer, startApi, type TestApi } from '../support/system.js';

/**
 * Events reach keys with other rights than the one that set a URL (billing.read reads account events,
 * any read right on a domain reads its monitors' events), and a URL's path or query string is often a
 * secret. Webhook events carry the endpoint's host only; monitor events an HTTP URL without its query.
 */
eachStore('Events carry no secret parts of URLs', (kind) => {
  let api: TestApi;
  let cookie: string;
  before(async () => {
    api = await startApi(kind);
    cookie = await api.signIn();
  });
  after(async () => api.close());

  const write = (key: string, method: string, path: string, json: unknown) =>
    api.call(path, { method, headers: { ...bearer(key), 'idempotency-key': randomUUID() }, json });

  it('webhook events: host only, for a billing.read key and for a full key alike', async () => {
    const wk = (await api.issueKey({ environment: 'test', rights: ['webhook.manage'] }, cookie)).secret;
    const created = await write(wk, 'POST', '/v1/webhooks', { url: 'https://hooks.example.com/secret/path?token=x', events: ['*'] });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    const id = created.body.id as string;
    const updated = await write(wk, 'PATCH', `/v1/webhooks/${id}`, { url: 'https://hooks.example.com:8443/secret/path2?token=y' });
    expect(updated.status, JSON.stringify(updated.body)).to.equal(200);

    await api.system.get(TOKENS.PublishEvents).run();
    const billing = (await api.issueKey({ environment: 'test', rights: ['billing.read'] }, cookie)).secret;
    const full = (
      await api.issueKey(
        {
          environment: 'test',
          rights: ['billing.read', 'webhook.manage', 'domain.read', 'dns.read', 'monitor.read'],
          domains: ['domivka-demo.com.ua'],
        },
        cookie,
      )
    ).secret;
    for (const key of [billing, full, wk]) {
      const r = await api.call('/v1/events?types=webhook.created,webhook.updated', { headers: bearer(key) });
      expect(r.status, JSON.stringify(r.body)).to.equal(200);
      const byType = Object.fromEntries(r.body.data.map((e: any) => [e.type, e.data]));
      expect(byType['webhook.created']).to.include({ host: 'hooks.example.com' });
      expect(byType['webhook.updated']).to.include({ host: 'hooks.example.com:8443' });
      const text = JSON.stringify(r.body);
      expect(text).to.not.contain('secret');
      expect(text).to.not.contain('/secret/path');
      expect(text).to.not.contain('token=');
      expect(text).to.not.contain('"url"');
    }
  });

  it('monitor events: an HTTP URL without its query string, also for a key that only reads the domain', async () => {
    const zone = 'domivka-demo.com.ua';
    const editor = (await api.issueKey({ environment: 'test', template: 'monitoring', domains: [zone] }, cookie)).secret;
    const m = await write(editor, 'POST', '/v1/monitors', {
      kind: 'http',
      domain: zone,
      url: `https://www.${zone}/health?token=x`,
      interval_seconds: 60,
    });
    expect(m.status, JSON.stringify(m.body)).to.equal(201);
    await api.system.get(TOKENS.PublishEvents).run();
    const reader = (await api.issueKey({ environment: 'test', rights: ['domain.read'], domains: [zone] }, cookie)).secret;
    const r = await api.call('/v1/events?types=monitor.created', { headers: bearer(reader) });
    expect(r.status).to.equal(200);
    const ev = r.body.data.find((e: any) => e.type === 'monitor.created');
    expect(ev, JSON.stringify(r.body)).to.not.equal(undefined);
    expect(ev.data).to.include({ url: `https://www.${zone}/health` });
    expect(JSON.stringify(r.body)).to.not.contain('token=');
  });

  it('events recorded in the old shape are rewritten by the migration', async () => {
    const s = api.system.store;
    const old = { id: randomUUID(), accountId: 'acc_old', environment: 'test' as const, actor: 'system:test', occurredAt: new Date() };
    await s.events.append({
      ...old,
      type: 'webhook.disabled',
      subject: 'webhook:wh_old',
      data: { webhook_id: 'wh_old', url: 'https://hooks.example.com/secret/path?token=x', reason: 'gone' },
    } as never);
    await rewriteOldEvents(s.knex);
    const row = await s.knex('events').where({ id: old.id }).first();
    expect(JSON.parse(row.data)).to.deep.equal({ webhook_id: 'wh_old', host: 'hooks.example.com', reason: 'gone' });
  });
});
