import { expect } from 'chai';
import { expectErrorShape } from '../support/error-shape.js';
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { Webhook } from 'standardwebhooks';
import { StandardWebhooksSender } from '../../adapters/net/webhooks/index.js';
import type { EventType } from '../../core/kernel/events.js';
import { System } from '../../src/system.js';
import { TOKENS } from '../../src/tokens.js';
import { eachStore } from '../support/stores.js';
import { bearer, startApi, testConfig, type TestApi } from '../support/system.js';
import { Receiver } from './support.js';
import { emitEvent } from './emit.js';

const ENV = { WEBHOOKS_ALLOW_LOOPBACK: '1', WEBHOOKS_TIMEOUT_MS: '2000' };

/** signed webhooks against a real local receiver, on both engines. */
eachStore('Webhooks: Standard Webhooks delivery, retries, 410, redeliver, rotation, SSRF, claims', (kind) => {
  let api: TestApi;
  let key: string;
  let rx: Receiver;
  before(async () => {
    api = await startApi(kind, { env: ENV });
    key = (await api.issueKey({ environment: 'test', rights: ['webhook.manage', 'billing.read', 'domain.read'], label: 'prod' })).secret;
    rx = await new Receiver((path, n) => {
      if (path.startsWith('/fail')) return { status: 500, body: 'boom' };
      if (path.startsWith('/slow')) return { status: 200, hold: true };
      if (path.startsWith('/gone')) return { status: 410, body: 'gone' };
      if (path.startsWith('/redirect')) return { status: 302, location: `http://127.0.0.1:${rx.port}/target` };
      if (path.startsWith('/flaky')) return n === 1 ? { status: 503, body: 'later' } : { status: 204 };
      return { status: 200, body: 'thanks ' + 'x'.repeat(2000) };
    }).start();
  });
  after(async () => {
    await rx.stop();
    await api.close();
  });

  const write = (method: string, path: string, json?: unknown, secret = key) =>
    api.call(path, { method, headers: { ...bearer(secret), 'idempotency-key': randomUUID() }, ...(json !== undefined ? { json } : {}) });
  const get = (path: string, secret = key) => api.call(path, { headers: bearer(secret) });
  const create = async (path: string, extra: Record<string, unknown> = {}) => {
    const r = await write('POST', '/v1/webhooks', { url: rx.url(path), events: ['*'], domains: ['domivka-demo.dev'], ...extra });
    expect(r.status, JSON.stringify(r.body)).to.equal(201);
    return r.body as { id: string; secret: string };
  };
  /** A domain's event, committed the way every use case does (emitEvent). */
  const emit = (type: EventType = 'domain.auto_renew_changed', domain = 'domivka-demo.dev') =>
    emitEvent(api, type, `domain:${domain}`, { domain, auto_renew: false });
  const pump = async () => {
    await api.system.get(TOKENS.PublishEvents).run();
    return api.system.get(TOKENS.DeliverWebhooks).runOnce();
  };
  const deliveries = async (id: string) => (await get(`/v1/webhooks/${id}/deliveries`)).body.data as any[];

  it('creates an endpoint: the whsec_ secret is shown once (not on GET, not on an idempotent replay), and that is an event', async () => {
    const idem = randomUUID();
    const body = { url: rx.url('/once'), events: ['domain.renewed'] };
    const r = await api.call('/v1/webhooks', { method: 'POST', headers: { ...bearer(key), 'idempotency-key': idem }, json: body });
    expect(r.status).to.equal(201);
    expect(r.body.secret).to.match(/^whsec_[A-Za-z0-9+/=]{32}$/);
    const again = await api.call('/v1/webhooks', { method: 'POST', headers: { ...bearer(key), 'idempotency-key': idem }, json: body });
    expect(again.headers.get('idempotent-replayed')).to.equal('true');
    expect(again.body.secret).to.equal(null);
    const one = await get(`/v1/webhooks/${r.body.id}`);
    expect(one.body).to.not.have.property('secret');
    expect(one.body.events).to.deep.equal(['domain.renewed']);
    const stored = await api.system.store.knex('webhooks').where({ id: r.body.id }).first();
    expect(stored.secret_sealed).to.not.include(r.body.secret.slice(6));
    await api.system.get(TOKENS.PublishEvents).run();
    const events = (await get('/v1/events?types=webhook.created')).body.data;
    expect(events.map((e: any) => e.data.webhook_id)).to.include(r.body.id);
    // a key without webhook.manage is refused
    const ro = await api.issueKey({ environment: 'test', rights: ['domain.read'], label: 'prod' });
    expectErrorShape(await write('POST', '/v1/webhooks', body, ro.secret), 403, 'right_missing');
    expect((await write('POST', '/v1/webhooks', { url: rx.url('/x'), events: ['no.such'] })).body.error.code).to.equal(
      'event_type_unknown',
    );
    expect((await write('DELETE', `/v1/webhooks/${r.body.id}`)).status).to.equal(204);
    expectErrorShape(await get(`/v1/webhooks/${r.body.id}`), 404, 'webhook_not_found');
  });

  it('delivers signed per Standard Webhooks: the receiver verifies with standardwebhooks; 2xx = delivered; the log has code, latency, 1 KiB of body', async () => {
    const w = await create('/ok');
    const id = await emit();
    await emit('domain.renewed', 'domivka-blog.kyiv.ua'); // another domain: not selected, never sent
    await pump();
    const got = rx.on('/ok');
    expect(got).to.have.length(1);
    const verified = new Webhook(w.secret).verify(got[0]!.body, got[0]!.headers as Record<string, string>) as any;
    expect(got[0]!.headers['webhook-id']).to.equal(id);
    expect(verified).to.include({ id, type: 'domain.auto_renew_changed', environment: 'test', domain: 'domivka-demo.dev' });
    expect(verified.data).to.deep.equal({ domain: 'domivka-demo.dev', auto_renew: false });
    expect(() =>
      new Webhook(`whsec_${Buffer.alloc(24, 7).toString('base64')}`).verify(got[0]!.body, got[0]!.headers as Record<string, string>),
    ).to.throw();
    const [d] = await deliveries(w.id);
    expect(d).to.include({ event_id: id, status: 'delivered', attempts: 1, event_type: 'domain.auto_renew_changed' });
    expect(d.attempt_log[0]).to.include({ outcome: 'succeeded', response_code: 200 });
    expect(d.attempt_log[0].latency_ms).to.be.a('number');
    expect(Buffer.byteLength(d.attempt_log[0].response_body)).to.equal(1024);
    await pump();
    expect(rx.on('/ok')).to.have.length(1); // delivered once
  });

  it('retries a 500 with exponential backoff and jitter on the Clock port, then succeeds once the endpoint recovers', async () => {
    const w = await create('/flaky');
    await emit();
    await pump();
    let [d] = await deliveries(w.id);
    expect(d).to.include({ status: 'pending', attempts: 1 });
    expect(d.attempt_log[0]).to.include({ outcome: 'failed', response_code: 503, response_body: 'later' });
    const wait = new Date(d.next_attempt_at).getTime() - api.clock.now().getTime();
    expect(wait).to.be.within(48_000, 72_000); // 1 min ± 20 %
    await pump();
    expect(rx.on('/flaky')).to.have.length(1); // not due yet
    api.clock.advance(wait + 1000);
    await pump();
    [d] = await deliveries(w.id);
    expect(d).to.include({ status: 'delivered', attempts: 2 });
    expect(rx.on('/flaky').map((r) => r.headers['webhook-id'])).to.deep.equal([d.event_id, d.event_id]);
  });

  it('a timeout is a failed attempt, retried later; the backoff grows', async () => {
    const w = await create('/slow');
    await emit();
    const t0 = Date.now();
    await pump();
    expect(Date.now() - t0).to.be.lessThan(8000);
    let [d] = await deliveries(w.id);
    expect(d.attempt_log[0].error).to.match(/^timeout/);
    const first = new Date(d.next_attempt_at).getTime() - api.clock.now().getTime();
    api.clock.advance(first + 1000);
    await pump();
    [d] = await deliveries(w.id);
    expect(d.attempts).to.equal(2);
    const second = new Date(d.next_attempt_at).getTime() - api.clock.now().getTime();
    expect(second).to.be.within(144_000, 216_000); // 3 min ± 20 %
    await write('PATCH', `/v1/webhooks/${w.id}`, { enabled: false });
  });

  it('410 Gone disables the endpoint at once: an event, a notice to owners, pending deliveries dropped', async () => {
    const w = await create('/gone');
    await emit();
    await emit();
    await pump();
    const hook = (await get(`/v1/webhooks/${w.id}`)).body;
    expect(hook).to.include({ enabled: false, disabled_reason: 'gone' });
    expect(rx.on('/gone')).to.have.length(1);
    const ds = await deliveries(w.id);
    expect(ds.map((d) => d.status).sort()).to.deep.equal(['failed', 'failed']);
    await api.system.get(TOKENS.PublishEvents).run();
    const ev = (await get('/v1/events?types=webhook.disabled')).body.data;
    expect(ev.some((e: any) => e.data.webhook_id === w.id && e.data.reason === 'gone')).to.equal(true);
    const cookie = await api.signIn();
    const notices = (await api.call('/v1/account/notices?limit=200', { headers: { cookie } })).body.data;
    expect(notices.some((n: any) => n.kind === 'webhook.disabled' && n.message.en.includes(w.id))).to.equal(true);
  });

  it('an endpoint failing for 3 days is disabled and its owners told', async () => {
    const w = await create('/fail-3d');
    await emit();
    for (let i = 0; i < 40; i++) {
      await pump();
      const h = (await get(`/v1/webhooks/${w.id}`)).body;
      if (!h.enabled) break;
      api.clock.advance(7 * 3600_000);
    }
    const h = (await get(`/v1/webhooks/${w.id}`)).body;
    expect(h).to.include({ enabled: false, disabled_reason: 'failing' });
    const [d] = await deliveries(w.id);
    expect(d.attempts).to.be.within(8, 20);
    const times = d.attempt_log.map((a: any) => new Date(a.attempted_at).getTime());
    expect(times[times.length - 1] - times[0]).to.be.at.least(3 * 86_400_000 - 7 * 3600_000);
  });

  it('redeliver sends the same event (same webhook-id) again as a new delivery', async () => {
    const w = await create('/again');
    const id = await emit();
    await pump();
    const [d] = await deliveries(w.id);
    const r = await write('POST', `/v1/webhooks/${w.id}/deliveries/${d.id}/redeliver`);
    expect(r.status).to.equal(202);
    expect(r.body).to.include({ event_id: id, redelivery_of: d.id, status: 'pending' });
    await pump();
    expect(rx.on('/again').map((x) => x.headers['webhook-id'])).to.deep.equal([id, id]);
    expect((await deliveries(w.id)).map((x) => x.status)).to.deep.equal(['delivered', 'delivered']);
    expect((await write('POST', `/v1/webhooks/${w.id}/deliveries/nope/redeliver`)).body.error.code).to.equal('delivery_not_found');
  });

  it('secret rotation: both secrets sign for 24 h (two v1 signatures), then only the new one', async () => {
    const w = await create('/rotate');
    const r = await write('POST', `/v1/webhooks/${w.id}/rotate-secret`);
    expect(r.status).to.equal(200);
    const fresh = r.body.secret as string;
    expect(fresh)
      .to.match(/^whsec_/)
      .and.not.equal(w.secret);
    await emit();
    await pump();
    const [a] = rx.on('/rotate');
    expect((a!.headers['webhook-signature'] as string).split(' ')).to.have.length(2);
    expect(() => new Webhook(w.secret).verify(a!.body, a!.headers as Record<string, string>)).to.not.throw();
    expect(() => new Webhook(fresh).verify(a!.body, a!.headers as Record<string, string>)).to.not.throw();
    api.clock.advance(24 * 3600_000 + 60_000);
    await emit();
    await pump();
    const b = rx.on('/rotate')[1]!;
    expect((b.headers['webhook-signature'] as string).split(' ')).to.have.length(1);
    expect(() => new Webhook(fresh).verify(b.body, b.headers as Record<string, string>)).to.not.throw();
    expect(() => new Webhook(w.secret).verify(b.body, b.headers as Record<string, string>)).to.throw();
  });

  it('a redirect is not followed: the 302 is a failed attempt and the target is never hit', async () => {
    const w = await create('/redirect');
    await emit();
    await pump();
    expect(rx.on('/target')).to.have.length(0);
    const [d] = await deliveries(w.id);
    expect(d.attempt_log[0]).to.include({ outcome: 'failed', response_code: 302 });
    await write('PATCH', `/v1/webhooks/${w.id}`, { enabled: false });
  });

  it('SSRF: private, metadata and non-https URLs are refused at creation even with the sandbox loopback opening', async () => {
    for (const url of [
      'http://10.0.0.1/h',
      'http://169.254.169.254/latest',
      'http://example.com/h',
      'https://192.168.1.1/',
      'http://[fd00:ec2::254]/',
      'ftp://example.com/',
    ]) {
      const r = await write('POST', '/v1/webhooks', { url, events: ['*'] });
      expect(r.status, url).to.equal(422);
      expect(r.body.error.code).to.equal('webhook_url_refused');
    }
    // No address at all: asked for, not "The URL  cannot be…".
    const empty = await write('POST', '/v1/webhooks', { url: '', events: ['*'] });
    expect(empty.status).to.equal(422);
    expect(empty.body.error.message.en).to.match(/^Enter the webhook endpoint's address: a public https:\/\/ address/);
    expect(empty.body.error.message.uk).to.match(/^Вкажіть адресу вебхука/);
  });

  it('SSRF in live (and in the sandbox without WEBHOOKS_ALLOW_LOOPBACK): loopback, private, metadata, names resolving to loopback, rebinding — refused, nothing reaches the receiver', async () => {
    const strict = new StandardWebhooksSender({ allowLoopback: false, timeoutMs: 1000 });
    const before = rx.received.length;
    const urls = [
      'http://127.0.0.1/',
      'http://[::1]/',
      'http://10.0.0.1/',
      'http://169.254.169.254/',
      `http://localhost:${rx.port}/ok`,
      `https://localhost:${rx.port}/ok`,
      rx.url('/ok'),
    ];
    for (const env of ['live', 'test'] as const) {
      for (const url of urls) {
        expect(strict.refuse(url, env), `${env} ${url}`).to.be.a('string');
        const out = await strict.send({
          url,
          environment: env,
          messageId: 'msg_1',
          payload: '{}',
          secrets: ['whsec_' + Buffer.alloc(24, 1).toString('base64')],
        });
        expect(out, url).to.include({ kind: 'error', error: 'refused' });
      }
    }
    // A public-looking name that resolves to loopback when connecting (DNS rebinding) is refused then.
    const rebinding = new StandardWebhooksSender({
      allowLoopback: false,
      timeoutMs: 1000,
      resolve: (_h, _o, cb) => cb(null, [{ address: '127.0.0.1', family: 4 }]),
    });
    expect(rebinding.refuse(`https://hooks.example.com:${rx.port}/ok`, 'live')).to.equal(null);
    const out = await rebinding.send({
      url: `https://hooks.example.com:${rx.port}/ok`,
      environment: 'live',
      messageId: 'm',
      payload: '{}',
      secrets: ['whsec_' + Buffer.alloc(24, 1).toString('base64')],
    });
    expect(out).to.include({ kind: 'error', error: 'refused' });
    expect(rx.received.length).to.equal(before);
    // The loopback opening is the test environment's only: a live key's endpoint is judged strictly.
    const open = new StandardWebhooksSender({ allowLoopback: true });
    expect(open.refuse(rx.url('/ok'), 'test')).to.equal(null);
    expect(open.refuse(rx.url('/ok'), 'live')).to.be.a('string');
    strict.close();
    rebinding.close();
    open.close();
  });

  it("two workers (two processes' worth of pools on one store) never send one attempt twice", async () => {
    const w = await create('/race');
    const ids = new Set<string>();
    for (let i = 0; i < 40; i++) ids.add(await emit());
    await api.system.get(TOKENS.PublishEvents).run();
    const other = new System(testConfig(api.store, ENV), { clock: api.clock, logger: pino({ level: 'silent' }) });
    try {
      const a = api.system.get(TOKENS.DeliverWebhooks);
      const b = other.get(TOKENS.DeliverWebhooks);
      const runs = await Promise.all([a.runOnce(10), b.runOnce(10), a.runOnce(10), b.runOnce(10), a.runOnce(10), b.runOnce(10)]);
      expect(runs.reduce((n, r) => n + r.attempted, 0)).to.be.at.least(40);
      while ((await a.runOnce(100)).attempted > 0);
    } finally {
      await other.close();
    }
    const seen = rx.on('/race').map((r) => r.headers['webhook-id'] as string);
    if (seen.length !== 40)
      console.log(
        JSON.stringify(
          (await deliveries(w.id)).filter((d) => d.status !== 'delivered'),
          null,
          1,
        ),
        await api.system.store.knex('webhook_deliveries').where({ webhook_id: w.id }).whereNot({ status: 'delivered' }),
      );
    expect(seen).to.have.length(40);
    expect(new Set(seen)).to.deep.equal(ids);
    const bad = (await deliveries(w.id)).filter((d) => !(d.status === 'delivered' && d.attempts === 1));
    expect(bad, JSON.stringify(bad)).to.have.length(0);
  });

  it('group commit of successes: an attempt whose lease was lost meanwhile is sent but not recorded; the holder of the lease records it', async () => {
    const w = await create('/lease');
    const ids = [await emit(), await emit(), await emit()];
    await api.system.get(TOKENS.PublishEvents).run();
    const deliver = api.system.get(TOKENS.DeliverWebhooks);
    const first = await deliver.claim(100);
    const mine = first.deliveries.filter((d) => d.webhookId === w.id);
    expect(mine).to.have.length(3);
    api.clock.advance(61_000); // the first lease runs out; another worker claims them
    const second = await deliver.claim(100);
    expect(second.deliveries.filter((d) => d.webhookId === w.id)).to.have.length(3);
    const ctx = await deliver.prepare(mine);
    // The three successes land in one group commit; none holds its lease any more.
    expect(await Promise.all(mine.map((d) => deliver.attempt(d, first.token, ctx)))).to.deep.equal([false, false, false]);
    expect(rx.on('/lease')).to.have.length(3);
    let rows = await api.system.store.knex('webhook_deliveries').where({ webhook_id: w.id });
    expect(rows.map((r) => [r.status, Number(r.attempts), r.lease_token])).to.deep.equal(rows.map(() => ['pending', 0, second.token]));
    expect(await api.system.store.knex('webhook_attempts').where({ webhook_id: w.id })).to.have.length(0);
    const ctx2 = await deliver.prepare(mine);
    expect(
      await Promise.all(second.deliveries.filter((d) => d.webhookId === w.id).map((d) => deliver.attempt(d, second.token, ctx2))),
    ).to.deep.equal([true, true, true]);
    rows = await api.system.store.knex('webhook_deliveries').where({ webhook_id: w.id });
    expect(rows.map((r) => [r.status, Number(r.attempts), r.lease_token])).to.deep.equal(rows.map(() => ['delivered', 1, null]));
    const log = await api.system.store.knex('webhook_attempts').where({ webhook_id: w.id });
    expect(log.map((a) => [a.outcome, Number(a.number), Number(a.response_code)])).to.deep.equal(log.map(() => ['succeeded', 1, 200]));
    expect(new Set(rx.on('/lease').map((r) => r.headers['webhook-id']))).to.deep.equal(new Set(ids));
  });
});
