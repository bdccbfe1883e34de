import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { RunMonitorChecks } from '../../core/monitoring/run-monitor-checks.use-case.js';
import type { MonitorProbes, ProbeOutcome } from '../../core/monitoring/ports/probes.port.js';
import { TOKENS } from '../../src/tokens.js';
import { eachStore } from '../support/stores.js';
import { bearer, startApi, type TestApi } from '../support/system.js';
import { Receiver } from './support.js';

const zone = 'domivka-demo.com.ua';

/**
 * Text from outside (a receiver's answer, a probe's reason) is stored whatever it holds (NUL, broken
 * UTF-16), and a store that refuses an attempt's record still gets a failed attempt with back-off: no
 * delivery is re-sent every lease period forever, no monitor is left unable to record a failure.
 */
eachStore('Foreign text in storage: webhook attempts and monitor results', (kind) => {
  let api: TestApi;
  let key: string;
  let rx: Receiver;
  before(async () => {
    api = await startApi(kind, { env: { WEBHOOKS_ALLOW_LOOPBACK: '1', WEBHOOKS_TIMEOUT_MS: '2000' } });
    key = (await api.issueKey({ environment: 'test', rights: ['webhook.manage', 'monitor.edit', 'domain.read'], domains: [zone] })).secret;
    rx = await new Receiver((path) => {
      if (path.startsWith('/nul-fail')) return { status: 500, body: 'bad\0answer \ud800 here' };
      if (path.startsWith('/nul-ok')) return { status: 200, body: 'thanks\0\0' };
      return { status: 500, body: 'no' };
    }).start();
  });
  after(async () => {
    await rx?.stop();
    await api?.close();
  });

  const post = (path: string, json: unknown) =>
    api.call(path, { method: 'POST', headers: { ...bearer(key), 'idempotency-key': randomUUID() }, json });
  const hook = async (path: string) => {
    const r = await post('/v1/webhooks', { url: rx.url(path), events: ['*'], domains: [zone] });
    expect(r.status, JSON.stringify(r.body)).to.equal(201);
    return r.body.id as string;
  };
  const emit = async () => {
    const s = api.system.store;
    await s.uow.transaction(() =>
      s.events.append({
        id: randomUUID(),
        accountId: api.demo.accountId,
        environment: 'test',
        type: 'domain.auto_renew_changed',
        subject: `domain:${zone}`,
        actor: 'test',
        occurredAt: api.clock.now(),
        data: { domain: zone, auto_renew: false },
      }),
    );
  };
  const pump = async () => {
    await api.system.get(TOKENS.PublishEvents).run();
    return api.system.get(TOKENS.DeliverWebhooks).runOnce();
  };
  const rows = async (webhookId: string) => {
    const db = api.system.store.knex;
    const deliveries = await db('webhook_deliveries').where({ webhook_id: webhookId });
    const attempts = await db('webhook_attempts').where({ webhook_id: webhookId }).orderBy('number');
    return { deliveries, attempts };
  };
  const disable = (id: string) =>
    api.call(`/v1/webhooks/${id}`, {
      method: 'PATCH',
      headers: { ...bearer(key), 'idempotency-key': randomUUID() },
      json: { enabled: false },
    });

  it('a receiver answering a body with NUL (and a broken surrogate): the attempt is recorded, the excerpt made storable, back-off applied', async () => {
    const id = await hook('/nul-fail');
    await emit();
    const sent = rx.on('/nul-fail').length;
    await pump();
    const { deliveries, attempts } = await rows(id);
    expect(deliveries).to.have.length(1);
    expect(deliveries[0]).to.include({ status: 'pending', attempts: 1 });
    expect(Date.parse(deliveries[0].next_attempt_at)).to.be.greaterThan(api.clock.now().getTime());
    expect(attempts).to.have.length(1);
    expect(attempts[0].response_body).to.equal('bad\uFFFDanswer \uFFFD here');
    // Not due again before its back-off: nothing is re-sent.
    expect((await pump()).attempted).to.equal(0);
    expect(rx.on('/nul-fail').length).to.equal(sent + 1);
    await disable(id);
  });

  it('a 2xx answer with NUL is a delivery, its excerpt stored', async () => {
    const id = await hook('/nul-ok');
    await emit();
    await pump();
    const { deliveries, attempts } = await rows(id);
    expect(deliveries[0]).to.include({ status: 'delivered', attempts: 1 });
    expect(attempts[0].response_body).to.equal('thanks\uFFFD\uFFFD');
    await disable(id);
  });

  it('a store error while recording an attempt is a failed attempt with back-off, not a re-send every lease period', async () => {
    const repo = api.system.store.webhooks;
    const id = await hook('/nul-ok');
    await emit();
    const original = repo.recordDelivered.bind(repo);
    const originalAttempt = repo.recordAttempt.bind(repo);
    let refusals = 0;
    // The store refuses the first record of this attempt (the group commit and the one-by-one record).
    repo.recordDelivered = async () => {
      refusals++;
      throw new Error('disk full');
    };
    repo.recordAttempt = async (a, next, token) => {
      if (a.outcome === 'succeeded') {
        refusals++;
        throw new Error('disk full');
      }
      return originalAttempt(a, next, token);
    };
    try {
      await pump();
    } finally {
      repo.recordDelivered = original;
      repo.recordAttempt = originalAttempt;
    }
    expect(refusals).to.be.at.least(1);
    const { deliveries, attempts } = await rows(id);
    expect(deliveries[0]).to.include({ status: 'pending', attempts: 1 });
    expect(deliveries[0].lease_token).to.equal(null);
    expect(Date.parse(deliveries[0].next_attempt_at)).to.be.greaterThan(api.clock.now().getTime() + 10_000);
    expect(attempts).to.have.length(1);
    expect(attempts[0]).to.include({ outcome: 'failed' });
    expect(attempts[0].error).to.match(/^store: the attempt could not be recorded \(disk full\)/);
    // The first back-off is 48–72 s (retryDelayMs); half a minute on, nothing is sent again.
    expect(Date.parse(deliveries[0].next_attempt_at)).to.be.at.least(api.clock.now().getTime() + 48_000);
    api.clock.advance(30_000);
    const before = rx.on('/nul-ok').length;
    await pump();
    expect(rx.on('/nul-ok').length).to.equal(before);
    await disable(id);
  });

  describe('monitor checks', () => {
    let monitorId: string;
    const checks = (outcome: ProbeOutcome) => {
      const s = api.system.store;
      const probe = { check: async () => outcome };
      return new RunMonitorChecks({
        monitors: s.monitors,
        domains: s.domains,
        probesFor: () => ({ http: probe, tls: probe, dns: probe }) as unknown as MonitorProbes,
        accountTime: api.system.get(TOKENS.AccountTime),
        events: api.system.get(TOKENS.Recorder),
        uow: s.uow,
        random: api.system.get(TOKENS.Random),
        clock: api.clock,
        options: { timeoutMs: 2000, batch: 5 },
      });
    };
    before(async () => {
      const r = await post('/v1/monitors', { kind: 'http', domain: zone, url: `http://app.${zone}/up`, interval_seconds: 10 });
      expect(r.status, JSON.stringify(r.body)).to.equal(201);
      monitorId = r.body.id;
    });
    const results = () => api.system.store.knex('monitor_results').where({ monitor_id: monitorId }).orderBy('checked_at', 'desc');

    it('a reason and a detail with NUL (a TXT value, an answer) are recorded as a failure, made storable', async () => {
      const report = await checks({ ok: false, latencyMs: 3, reason: 'expected "a\0b", got "c"', detail: { values: ['a\0b'] } }).run();
      expect(report).to.include({ checked: 1, failed: 1 });
      const [r] = await results();
      expect(r.reason).to.equal('expected "a\uFFFDb", got "c"');
      expect(JSON.parse(r.detail)).to.deep.equal({ values: ['a\uFFFDb'] });
      const m = await api.system.store.knex('monitors').where({ id: monitorId }).first();
      expect(m.state).to.equal('failing');
    });

    it('a store error while recording a check records a failed check that says so, and the monitor waits its interval', async () => {
      api.clock.advance(11_000);
      const repo = api.system.store.monitors;
      const original = repo.insertResult.bind(repo);
      let refused = 0;
      repo.insertResult = async (r) => {
        if (refused++ === 0) throw new Error('disk full');
        return original(r);
      };
      try {
        const report = await checks({ ok: true, latencyMs: 3, reason: null, detail: {} }).run();
        expect(report.checked).to.equal(1);
      } finally {
        repo.insertResult = original;
      }
      const [r] = await results();
      expect(r.reason).to.match(/^the check's result could not be stored \(disk full\)/);
      const m = await api.system.store.knex('monitors').where({ id: monitorId }).first();
      expect(m.lock_token).to.equal(null);
      expect(Date.parse(m.next_check_at)).to.be.greaterThan(api.clock.now().getTime());
      expect((await checks({ ok: true, latencyMs: 3, reason: null, detail: {} }).run()).checked).to.equal(0);
    });
  });
});
