import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { expectErrorShape } from '../support/error-shape.js';
import { eachStore } from '../support/stores.js';
import { bearer, startApi, type TestApi } from '../support/system.js';

/** The IPv6 forms that carry an IPv4 address (the SSRF guard judges them by that address). */
const forms = (v4: string): string[] => {
  const [a, b, c, d] = v4.split('.').map(Number) as [number, number, number, number];
  const hex = (x: number, y: number) => ((x << 8) | y).toString(16);
  const inv = (x: number, y: number) => (~((x << 8) | y) & 0xffff).toString(16);
  return [
    `::${v4}`,
    `::${hex(a, b)}:${hex(c, d)}`,
    `::ffff:${v4}`,
    `::ffff:0:${v4}`,
    `64:ff9b::${v4}`,
    `64:ff9b:1::${v4}`,
    `2002:${hex(a, b)}:${hex(c, d)}::1`,
    `2001:0:4136:e378:8000:63bf:${inv(a, b)}:${inv(c, d)}`,
  ];
};

/** Webhook and monitor creation refuse every IPv6 literal that embeds a non-public IPv4 address. */
eachStore('SSRF: IPv6 forms embedding IPv4 through the webhook and monitor routes', (kind) => {
  let api: TestApi;
  let key: string;
  before(async () => {
    api = await startApi(kind); // no WEBHOOKS_ALLOW_LOOPBACK: loopback is refused as in live
    key = (
      await api.issueKey({
        environment: 'test',
        rights: ['webhook.manage', 'monitor.edit', 'domain.read'],
        domains: ['domivka-demo.com.ua'],
      })
    ).secret;
  });
  after(async () => api?.close());
  const post = (path: string, json: unknown) =>
    api.call(path, { method: 'POST', headers: { ...bearer(key), 'idempotency-key': randomUUID() }, json });

  it('POST /v1/webhooks: every form embedding 127.0.0.1, 10.0.0.1, 169.254.169.254, 192.168.1.1 → 422 webhook_url_refused; 8.8.8.8 → 201', async () => {
    for (const inner of ['127.0.0.1', '10.0.0.1', '169.254.169.254', '192.168.1.1']) {
      for (const address of forms(inner)) {
        const r = await post('/v1/webhooks', { url: `https://[${address}]/hook`, events: ['*'] });
        expectErrorShape(r, 422, 'webhook_url_refused');
      }
    }
    for (const address of forms('8.8.8.8')) {
      const r = await post('/v1/webhooks', { url: `https://[${address}]/hook`, events: ['*'] });
      expect(r.status, `${address}: ${JSON.stringify(r.body)}`).to.equal(201);
    }
  });

  it('POST /v1/monitors: an http target at any of these literals → 422 validation_failed (targets are names in the domain)', async () => {
    for (const inner of ['127.0.0.1', '10.0.0.1', '169.254.169.254', '192.168.1.1', '8.8.8.8']) {
      for (const address of forms(inner)) {
        const r = await post('/v1/monitors', { kind: 'http', domain: 'domivka-demo.com.ua', url: `http://[${address}]/up` });
        expectErrorShape(r, 422, 'validation_failed');
      }
    }
  });
});
