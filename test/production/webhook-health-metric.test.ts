import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { aggregate, Metrics, type MetricsJson } from '../../adapters/metrics/index.js';
import { instrumentWebhookHealth } from '../../src/metrics.js';
import { eachStore } from '../support/stores.js';
import { bearer, startApi, type TestApi } from '../support/system.js';

/**
 * Webhook endpoint health on /metrics (issue 21, item 3): endpoints by environment and state, and the age
 * of the oldest failing streak, read from the store at scrape time with bounded labels; a process group
 * (npm run cluster: several API processes on one store) reports the figure once, not summed.
 */
eachStore('metrics: webhook endpoint health', (kind) => {
  let api: TestApi;
  let key: string;
  before(async () => {
    api = await startApi(kind, { env: { WEBHOOKS_ALLOW_LOOPBACK: '1' } });
    key = (await api.issueKey({ environment: 'test', rights: ['webhook.manage', 'domain.read'], label: 'prod' })).secret;
  });
  after(async () => api?.close());

  const create = async (path: string): Promise<string> => {
    const r = await api.call('/v1/webhooks', {
      method: 'POST',
      headers: { ...bearer(key), 'idempotency-key': randomUUID() },
      json: { url: `http://127.0.0.1:9/${path}`, events: ['*'] },
    });
    expect(r.status, JSON.stringify(r.body)).to.equal(201);
    return r.body.id as string;
  };
  const value = (text: string, series: string): number => {
    const line = text.split('\n').find((l) => l.startsWith(`${series} `));
    if (!line) throw new Error(`no ${series} in:\n${text}`);
    return Number(line.slice(series.length + 1));
  };

  it('counts healthy, failing and disabled endpoints per environment; the oldest failing streak in seconds; never an id', async () => {
    const now = Date.parse('2026-11-26T12:00:00Z');
    const healthy = await create('healthy');
    const failing = await create('failing');
    const older = await create('failing-older');
    const disabled = await create('disabled');
    const deleted = await create('deleted');
    const db = api.system.store.knex;
    await db('webhooks')
      .where({ id: failing })
      .update({ failing_since: new Date(now - 600_000).toISOString() });
    await db('webhooks')
      .where({ id: older })
      .update({ failing_since: new Date(now - 3_600_000).toISOString() });
    await db('webhooks')
      .where({ id: disabled })
      .update({ enabled: false, disabled_reason: 'gone', failing_since: new Date(now - 9e7).toISOString() });
    const del = await api.call(`/v1/webhooks/${deleted}`, {
      method: 'DELETE',
      headers: { ...bearer(key), 'idempotency-key': randomUUID() },
    });
    expect(del.status).to.equal(204);

    const metrics = new Metrics();
    instrumentWebhookHealth(api.system, metrics, () => now);
    const text = await metrics.registry.metrics();
    expect(value(text, 'domivka_webhook_endpoints{environment="test",state="healthy"}')).to.equal(1);
    expect(value(text, 'domivka_webhook_endpoints{environment="test",state="failing"}')).to.equal(2);
    expect(value(text, 'domivka_webhook_endpoints{environment="test",state="disabled"}')).to.equal(1);
    for (const state of ['healthy', 'failing', 'disabled'])
      expect(value(text, `domivka_webhook_endpoints{environment="live",state="${state}"}`)).to.equal(0);
    // The oldest streak of an endpoint still enabled (the disabled one's older streak does not count).
    expect(value(text, 'domivka_webhook_endpoint_failing_seconds_max{environment="test"}')).to.equal(3600);
    expect(value(text, 'domivka_webhook_endpoint_failing_seconds_max{environment="live"}')).to.equal(0);
    for (const id of [healthy, failing, older, disabled, deleted]) expect(text).to.not.contain(id);
    expect(text).to.not.contain('127.0.0.1:9');

    // Two API processes on one store (npm run cluster): the group's /metrics keeps one value, not the sum.
    const part = (await metrics.registry.getMetricsAsJSON()) as MetricsJson;
    const group = await aggregate([part, part]);
    expect(value(group, 'domivka_webhook_endpoints{environment="test",state="failing"}')).to.equal(2);
    expect(value(group, 'domivka_webhook_endpoint_failing_seconds_max{environment="test"}')).to.equal(3600);

    // A recovery shows at the next scrape.
    await db('webhooks').whereIn('id', [failing, older]).update({ failing_since: null });
    const after = await metrics.registry.metrics();
    expect(value(after, 'domivka_webhook_endpoints{environment="test",state="healthy"}')).to.equal(3);
    expect(value(after, 'domivka_webhook_endpoint_failing_seconds_max{environment="test"}')).to.equal(0);
  });
});
