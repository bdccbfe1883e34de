import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pino from 'pino';
import { RunMonitorChecks } from '../../core/monitoring/run-monitor-checks.use-case.js';
import { System } from '../../src/system.js';
import { TOKENS } from '../../src/tokens.js';
import { Worker } from '../../src/worker.js';
import { freePort } from '../dns/server/tools.js';
import { expectErrorShape } from '../support/error-shape.js';
import { eachStore } from '../support/stores.js';
import { bearer, startApi, testConfig, type TestApi } from '../support/system.js';
import { startHttpPeer, startTlsPeer, type HttpPeer } from './peers.js';
import { reqArgs } from '../support/openssl-req.js';

const run = promisify(execFile);
const DAY = 24 * 3600_000;
const zone = 'domivka-demo.com.ua';
const other = 'domivka-demo.dev';

/** Issue 11, monitoring: against a local HTTP server, a TLS server with a sandbox-CA certificate and our own DNS. */
eachStore('monitoring through the API', (kind) => {
  let api: TestApi;
  let peer: HttpPeer;
  let editor: string;
  let reader: string;
  let otherEditor: string;
  let wwwA: string[];

  before(async function () {
    this.timeout(120_000);
    const dnsPort = await freePort();
    api = await startApi(kind, {
      dns: true,
      dnsPort,
      env: { DNS_PORT: String(dnsPort), MONITORS_ALLOW_LOOPBACK: '1', MONITOR_CHECK_TIMEOUT_MS: '2000' },
    });
    peer = await startHttpPeer();
    editor = (await api.issueKey({ environment: 'test', template: 'monitoring', domains: [zone] })).secret;
    reader = (await api.issueKey({ environment: 'test', template: 'read_only', domains: [zone] })).secret;
    otherEditor = (await api.issueKey({ environment: 'test', template: 'monitoring', domains: [other] })).secret;
    // app.<zone> and tls.<zone> point at 127.0.0.1 in our own DNS: sandbox targets resolve there.
    const dnsKey = (await api.issueKey({ environment: 'test', template: 'dns_editor', domains: [zone] })).secret;
    const plan = await post(
      `/v1/domains/${zone}/dns/plans`,
      {
        changes: ['app', 'tls', 'badtls'].map((name) => ({ action: 'create', name, type: 'A', ttl: 60, values: ['127.0.0.1'] })),
      },
      dnsKey,
    );
    expect(plan.status, JSON.stringify(plan.body)).to.equal(201);
    const applied = await post(`/v1/domains/${zone}/dns/plans/${plan.body.id}/apply`, {}, dnsKey);
    expect(applied.status, JSON.stringify(applied.body)).to.equal(200);
    const records = await api.call(`/v1/domains/${zone}/dns/records?limit=200`, { headers: bearer(dnsKey) });
    wwwA = records.body.data.find((r: { name: string; type: string }) => r.name === `www.${zone}` && r.type === 'A').values;
  });
  after(async () => {
    await peer?.close();
    await api?.close();
  });

  const post = (path: string, json: unknown, secret = editor) =>
    api.call(path, { method: 'POST', headers: { ...bearer(secret), 'idempotency-key': randomUUID() }, json });
  const patch = (path: string, json: unknown, secret = editor) =>
    api.call(path, { method: 'PATCH', headers: { ...bearer(secret), 'idempotency-key': randomUUID() }, json });
  const del = (path: string, secret = editor) =>
    api.call(path, { method: 'DELETE', headers: { ...bearer(secret), 'idempotency-key': randomUUID() } });
  const get = (path: string, secret = editor) => api.call(path, { headers: bearer(secret) });
  const pass = () => new Worker(api.system).monitors();
  const create = async (body: Record<string, unknown>, secret = editor) => {
    const r = await post('/v1/monitors', { domain: zone, interval_seconds: 10, ...body }, secret);
    expect(r.status, JSON.stringify(r.body)).to.equal(201);
    return r.body;
  };
  /** Moves the clock past every monitor's interval and runs one worker pass. */
  const nextPass = async () => {
    api.clock.advance(11_000);
    return pass();
  };
  const latest = async (id: string) => (await get(`/v1/monitors/${id}/results?limit=1`)).body.data[0];
  const events = async (type: string, monitorId: string) =>
    (
      await api.system.store
        .knex('events')
        .where({ type, subject: `monitor:${monitorId}` })
        .orderBy('id')
    ).map((e: { data: string }) => JSON.parse(e.data));
  const notices = async (kindName: string, monitorId: string) =>
    (await api.system.store.knex('notices').where({ kind: kindName })).filter(
      (n: { data: string }) => JSON.parse(n.data).monitor_id === monitorId,
    );

  describe('http monitors against a local server', () => {
    it('creates (201, pending), checks on the worker pass, and reads the monitor and its results', async () => {
      const m = await create({ kind: 'http', url: `http://app.${zone}:${peer.port}/up`, body_contains: 'hello' });
      expect(m).to.include({ kind: 'http', domain: zone, state: 'pending', expected_status: 200, interval_seconds: 10, enabled: true });
      expect(m.id).to.match(/^mon_/);
      const report = await pass();
      expect((report.checks as { checked: number }).checked).to.be.greaterThan(0);
      const got = await get(`/v1/monitors/${m.id}`);
      expect(got.body.state).to.equal('ok');
      const r = await latest(m.id);
      expect(r).to.include({ ok: true, reason: null });
      expect(r.latency_ms).to.be.a('number');
      expect(r.detail.status).to.equal(200);
      expect((await events('monitor.created', m.id))[0]).to.include({ domain: zone, kind: 'http' });
    });

    it('failure and recovery: an incident, monitor.check_failed / check_recovered in the event log, notices to the owners', async () => {
      peer.mode = 'up';
      const m = await create({ kind: 'http', url: `http://app.${zone}:${peer.port}/toggle` });
      await pass();
      expect((await get(`/v1/monitors/${m.id}`)).body.state).to.equal('ok');
      peer.mode = 'down';
      await nextPass();
      const failing = await get(`/v1/monitors/${m.id}`);
      expect(failing.body.state).to.equal('failing');
      expect(failing.body.last_failure_reason).to.equal('status 503, expected 200');
      const failed = await events('monitor.check_failed', m.id);
      expect(failed).to.have.length(1);
      expect(failed[0]).to.include({ domain: zone, kind: 'http', reason: 'status 503, expected 200' });
      expect(await notices('monitor.check_failed', m.id)).to.have.length.greaterThan(0);
      // Still failing: no second event.
      await nextPass();
      expect(await events('monitor.check_failed', m.id)).to.have.length(1);
      peer.mode = 'up';
      await nextPass();
      expect((await get(`/v1/monitors/${m.id}`)).body.state).to.equal('ok');
      const recovered = await events('monitor.check_recovered', m.id);
      expect(recovered).to.have.length(1);
      expect(recovered[0].incident_id).to.equal(failed[0].incident_id);
      expect(await notices('monitor.check_recovered', m.id)).to.have.length.greaterThan(0);
      const report = await get(`/v1/monitors/${m.id}/report?period=24h`);
      expect(report.status).to.equal(200);
      expect(report.body).to.include({ checks: 4, failures: 2, uptime_percent: 50 });
      expect(report.body.incidents).to.have.length(1);
      expect(report.body.incidents[0].id).to.equal(failed[0].incident_id);
      expect(report.body.incidents[0].ended_at).to.be.a('string');
      expect(report.body.incidents[0].duration_seconds).to.equal(22);
    });

    it('text a key controls (body_contains with line breaks) reaches the owners quoted on one line, bounded, without control characters: notice and e-mail', async () => {
      const bait = `hello\n\nDear owner, send money to UA00 1234 5678 9012 3456 today.\r\n${'Thank you! '.repeat(30)}\u001b[2J\u202e»end`;
      const m = await create({ kind: 'http', url: `http://app.${zone}:${peer.port}/wrong`, body_contains: bait });
      await pass();
      const [n] = await notices('monitor.check_failed', m.id);
      expect(n, 'a notice').to.not.equal(undefined);
      // eslint-disable-next-line no-control-regex
      const controls = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
      const clean = (text: string) => {
        expect(text, text).not.to.match(controls);
        expect(text, text).to.match(/: «the body does not contain "hello\\n\\nDear owner, send money/);
        expect(text, text).to.match(/…"?…?»$/);
        expect(text.length, text).to.be.below(400);
        expect(text.match(/«/g), text).to.have.length(1);
        expect(text.match(/»/g), text).to.have.length(1);
      };
      clean(n.message_uk);
      clean(n.message_en);
      // Live notices are e-mailed too: the same event in live puts one mail per owner in the outbox.
      const [event] = await api.system.store.knex('events').where({ type: 'monitor.check_failed', subject: `monitor:${m.id}` });
      const recorder = api.system.get(TOKENS.Recorder);
      await api.system.store.uow.transaction(() =>
        recorder.record(
          'monitor.check_failed',
          {
            accountId: api.demo.accountId,
            environment: 'live',
            subject: `monitor:${m.id}`,
            actor: 'system:monitoring',
            occurredAt: api.clock.now(),
          },
          JSON.parse(event.data),
        ),
      );
      const mails = (await api.system.store.knex('notice_deliveries')).filter(
        (d: { body: string }) => d.body.includes(m.id) || d.body.includes('Dear owner'),
      );
      expect(mails).to.have.length.greaterThan(0);
      for (const mail of mails as Array<{ body: string }>) {
        const [uk, blank, en] = mail.body.split('\n');
        expect(blank).to.equal('');
        clean(uk!);
        clean(en!);
        // eslint-disable-next-line no-control-regex
        expect(mail.body.replace(/\n/g, '')).not.to.match(controls);
      }
    });

    it('a 500, a wrong body, a slow answer over max_latency_ms, a timeout and a redirect each fail with their reason', async () => {
      peer.slowMs = 400;
      const cases: Array<[Record<string, unknown>, RegExp]> = [
        [{ url: `http://app.${zone}:${peer.port}/fail` }, /^status 500, expected 200$/],
        [{ url: `http://app.${zone}:${peer.port}/wrong`, body_contains: 'hello monitoring' }, /body does not contain "hello monitoring"/],
        [{ url: `http://app.${zone}:${peer.port}/slow`, max_latency_ms: 100 }, /^answered in \d+ ms, over 100 ms$/],
        [{ url: `http://app.${zone}:${peer.port}/redirect` }, /^status 302, expected 200$/],
        [{ url: `http://nowhere.${zone}:${peer.port}/up` }, /connection failed: ENOTFOUND/],
      ];
      const ids = [];
      for (const [body] of cases) ids.push((await create({ kind: 'http', ...body })).id);
      const slow = await create({ kind: 'http', url: `http://app.${zone}:${peer.port}/slower` }); // over the 2 s check timeout
      await pass();
      for (const [i, [, reason]] of cases.entries()) {
        const r = await latest(ids[i]);
        expect(r.ok, JSON.stringify(r)).to.equal(false);
        expect(r.reason).to.match(reason);
      }
      expect((await latest(slow.id)).reason).to.match(/no complete answer within 2000 ms/);
      // The expected status may be a 3xx: a redirect is the answer, never followed.
      const r302 = await create({ kind: 'http', url: `http://app.${zone}:${peer.port}/redirect`, expected_status: 302 });
      await pass();
      expect((await latest(r302.id)).ok).to.equal(true);
      for (const id of [...ids, slow.id, r302.id]) expect((await del(`/v1/monitors/${id}`)).status).to.equal(200);
    });

    it('PATCH changes fields and emits monitor.updated; DELETE removes it with its results and emits monitor.deleted', async () => {
      const m = await create({ kind: 'http', url: `http://app.${zone}:${peer.port}/fail` });
      await pass();
      const p = await patch(`/v1/monitors/${m.id}`, { url: `http://app.${zone}:${peer.port}/up`, interval_seconds: 60, enabled: false });
      expect(p.status, JSON.stringify(p.body)).to.equal(200);
      expect(p.body).to.include({ url: `http://app.${zone}:${peer.port}/up`, interval_seconds: 60, enabled: false, next_check_at: null });
      expect((await events('monitor.updated', m.id))[0]).to.include({ interval_seconds: 60, enabled: false });
      // Paused: no check runs.
      const before = (await get(`/v1/monitors/${m.id}/results`)).body.data.length;
      api.clock.advance(120_000);
      await pass();
      expect((await get(`/v1/monitors/${m.id}/results`)).body.data).to.have.length(before);
      expectErrorShape(await patch(`/v1/monitors/${m.id}`, { kind: 'tls' }), 422, 'validation_failed');
      expect((await del(`/v1/monitors/${m.id}`)).body).to.deep.equal({ id: m.id, deleted: true });
      expect(await events('monitor.deleted', m.id)).to.have.length(1);
      expectErrorShape(await get(`/v1/monitors/${m.id}`), 404, 'monitor_not_found');
      expect(await api.system.store.knex('monitor_results').where({ monitor_id: m.id })).to.have.length(0);
    });
  });

  describe('tls monitors against a local TLS server', () => {
    let chain: string;
    let key: string;
    before(async function () {
      this.timeout(60_000);
      const certKey = (await api.issueKey({ environment: 'test', template: 'certificates', domains: [zone] })).secret;
      const r = await post('/v1/certificates', { domains: [`tls.${zone}`] }, certKey);
      expect(r.status).to.equal(202);
      await api.system.get(TOKENS.IssuanceQueue).drain();
      chain = (await get(`/v1/certificates/${r.body.id}/chain`, certKey)).body;
      key = (await get(`/v1/certificates/${r.body.id}/private-key`, certKey)).body;
    });

    it('a certificate from our sandbox CA verifies (chain, name, days left); too few days left, a foreign chain or a wrong name fail', async () => {
      const tls = await startTlsPeer(chain, key);
      const dir = mkdtempSync(join(tmpdir(), 'selfsigned-'));
      await run(
        'openssl',
        reqArgs({
          x509: true,
          key: 'ec:P-256',
          keyout: join(dir, 'k.pem'),
          out: join(dir, 'c.pem'),
          days: 30,
          subj: `/CN=tls.${zone}`,
          san: `DNS:tls.${zone}`,
        }),
      );
      const self = await startTlsPeer(readFileSync(join(dir, 'c.pem'), 'utf8'), readFileSync(join(dir, 'k.pem'), 'utf8'));
      try {
        const good = await create({ kind: 'tls', host: `tls.${zone}`, port: tls.port, min_days_valid: 14 });
        const soon = await create({ kind: 'tls', host: `tls.${zone}`, port: tls.port, min_days_valid: 100 });
        const foreign = await create({ kind: 'tls', host: `tls.${zone}`, port: self.port });
        const wrongName = await create({ kind: 'tls', host: `badtls.${zone}`, port: tls.port });
        await pass();
        const ok = await latest(good.id);
        expect(ok.ok, JSON.stringify(ok)).to.equal(true);
        expect(ok.detail.days_left).to.be.within(88, 90);
        expect(ok.detail.issuer).to.match(/Domivka Sandbox/);
        expect((await latest(soon.id)).reason).to.match(/^the certificate expires in \d+ days \(fewer than 100\)$/);
        expect((await latest(foreign.id)).reason).to.match(/chain does not verify/);
        expect((await latest(wrongName.id)).reason).to.match(/does not cover badtls\./);
        // The sandbox clock moves certificate times: 80 days on, fewer than 14 are left.
        await api.system.get(TOKENS.Store).sandboxClocks.advance(api.demo.accountId, 80 * DAY);
        await nextPass();
        expect((await get(`/v1/monitors/${good.id}`)).body.state).to.equal('failing');
      } finally {
        await tls.close();
        await self.close();
      }
    });
  });

  describe('dns monitors against our own DNS server', () => {
    it('resolves from our server and the listed nameservers; expected values, a wrong value and a missing name', async () => {
      const ours = `127.0.0.1:${api.dnsPort}`;
      const good = await create({ kind: 'dns', name: 'www', type: 'A', expected: wwwA, nameservers: [ours] });
      expect(good).to.include({ name: `www.${zone}`, type: 'A' });
      const anyValue = await create({ kind: 'dns', name: '@', type: 'MX' });
      const wrong = await create({ kind: 'dns', name: `www.${zone}.`, type: 'A', expected: ['192.0.2.99'] });
      const missing = await create({ kind: 'dns', name: 'no-such-name', type: 'A' });
      await pass();
      const r = await latest(good.id);
      expect(r.ok, JSON.stringify(r)).to.equal(true);
      expect(r.detail.servers).to.have.length(1); // our own server, listed again, is asked once
      expect((await latest(anyValue.id)).ok).to.equal(true);
      expect((await latest(wrong.id)).reason).to.match(/expected 192\.0\.2\.99/);
      expect((await latest(missing.id)).reason).to.match(/NXDOMAIN/);
    });
  });

  describe('domain_expiry monitors from our own data', () => {
    it('passes with the expiry far enough, fails within min_days_valid', async () => {
      const d = (await get(`/v1/domains/${zone}`, reader)).body;
      // Measured on the account's clock (the sandbox clock may have been moved on by an earlier test).
      const accountNow = await api.system.get(TOKENS.AccountTime).now(api.demo.accountId, 'test');
      const days = Math.floor((Date.parse(`${d.expires_at}T00:00:00Z`) - accountNow.getTime()) / DAY);
      const fine = await create({ kind: 'domain_expiry', min_days_valid: 30 });
      const close = await create({ kind: 'domain_expiry', min_days_valid: days + 1 });
      await pass();
      expect(await latest(fine.id)).to.include({ ok: true });
      expect((await latest(fine.id)).detail).to.include({ expires_at: d.expires_at, days_left: days });
      expect((await latest(close.id)).reason).to.equal(`${zone} expires on ${d.expires_at}, in ${days} days (fewer than ${days + 1})`);
    });
  });

  describe('scope: right + domain, like everything else', () => {
    it('a key without the domain cannot create, see, change or delete its monitors; a read-only key reads but cannot create', async () => {
      const m = await create({ kind: 'domain_expiry' });
      expectErrorShape(await post('/v1/monitors', { kind: 'domain_expiry', domain: zone }, otherEditor), 403, 'right_missing');
      expectErrorShape(await get(`/v1/monitors/${m.id}`, otherEditor), 404, 'monitor_not_found');
      expectErrorShape(await get(`/v1/monitors/${m.id}/results`, otherEditor), 404, 'monitor_not_found');
      expectErrorShape(await get(`/v1/monitors/${m.id}/report`, otherEditor), 404, 'monitor_not_found');
      expectErrorShape(await patch(`/v1/monitors/${m.id}`, { min_days_valid: 5 }, otherEditor), 404, 'monitor_not_found');
      expectErrorShape(await del(`/v1/monitors/${m.id}`, otherEditor), 404, 'monitor_not_found');
      const list = await get('/v1/monitors', otherEditor);
      expect(list.status).to.equal(200);
      expect(list.body.data.map((x: { domain: string }) => x.domain)).to.not.include(zone);
      const own = await create({ kind: 'domain_expiry', domain: other }, otherEditor);
      expect((await get('/v1/monitors', otherEditor)).body.data.map((x: { id: string }) => x.id)).to.deep.equal([own.id]);
      // Read-only: sees, cannot write.
      expect((await get(`/v1/monitors/${m.id}`, reader)).status).to.equal(200);
      expect((await get(`/v1/monitors?domain=${zone}`, reader)).body.data.map((x: { id: string }) => x.id)).to.include(m.id);
      expectErrorShape(await post('/v1/monitors', { kind: 'domain_expiry', domain: zone }, reader), 403, 'right_missing');
      expectErrorShape(await patch(`/v1/monitors/${m.id}`, { min_days_valid: 5 }, reader), 403, 'right_missing');
      // A domain not in the account.
      const stranger = (await api.issueKey({ environment: 'test', template: 'monitoring', domains: ['not-ours.com.ua'] })).secret;
      expectErrorShape(await post('/v1/monitors', { kind: 'domain_expiry', domain: 'not-ours.com.ua' }, stranger), 404, 'domain_not_found');
    });

    it("targets stay inside the monitor's domain: other domains and IP literals are refused", async () => {
      for (const body of [
        { kind: 'http', url: `http://www.${other}/` },
        { kind: 'http', url: 'http://127.0.0.1/' },
        { kind: 'http', url: `http://evil-${zone}/` },
        { kind: 'tls', host: 'example.com' },
        { kind: 'dns', name: `www.${other}.`, type: 'A' },
      ]) {
        const r = await post('/v1/monitors', { domain: zone, ...body });
        expectErrorShape(r, 422, 'validation_failed');
        expect(r.body.error.details.map((d: { rule: string }) => d.rule).join(), JSON.stringify(body)).to.match(
          /target-in-domain|url-host-name|name-syntax/,
        );
      }
    });
  });

  describe("validation in the seed's error shape", () => {
    it('names every problem in details (schema, kind rules, nameservers) and the interval minimum', async () => {
      expectErrorShape(await post('/v1/monitors', { kind: 'ping', domain: zone }), 422, 'validation_failed');
      const noUrl = await post('/v1/monitors', { kind: 'http', domain: zone, port: 443 });
      expectErrorShape(noUrl, 422, 'validation_failed');
      expect(noUrl.body.error.details.map((d: { field: string }) => d.field)).to.include.members(['/body/port', '/body/url']);
      const ns = await post('/v1/monitors', { kind: 'dns', domain: zone, nameservers: ['10.0.0.1', 'ns1.example.net'] });
      expectErrorShape(ns, 422, 'validation_failed');
      // 10.0.0.1 is private; a name is not an address (MONITORS_ALLOW_LOOPBACK opens loopback only).
      expect(ns.body.error.details.map((d: { rule: string }) => d.rule)).to.deep.equal(['nameserver-public', 'nameserver-address']);
      const short = await post('/v1/monitors', { kind: 'domain_expiry', domain: zone, interval_seconds: 9 });
      expectErrorShape(short, 422, 'monitor_interval_too_short');
      expect(short.body.error.message.en).to.match(/10 to 86400 s in the test environment/);
      expect((await post('/v1/monitors', { kind: 'domain_expiry', domain: zone, interval_seconds: 10 })).status).to.equal(201);
      expectErrorShape(await get('/v1/monitors/mon_x/report?period=1y'), 422, 'validation_failed');
      const noKey = await api.call('/v1/monitors', {
        method: 'POST',
        headers: bearer(editor),
        json: { kind: 'domain_expiry', domain: zone },
      });
      expectErrorShape(noKey, 400, 'idempotency_key_required');
    });
  });

  describe('results and the report', () => {
    it('computes uptime %, p50/p95 latency and incidents from known results; results page by cursor within from/to', async () => {
      const m = await create({ kind: 'http', url: `http://app.${zone}:${peer.port}/up`, enabled: false });
      const repo = api.system.store.monitors;
      const now = api.clock.now().getTime();
      // 20 results over the last 20 hours: latencies 10, 20, …, 200 ms; the 5th and 6th failed.
      for (let i = 1; i <= 20; i++) {
        await repo.insertResult({
          id: `r${String(i).padStart(3, '0')}`,
          monitorId: m.id,
          checkedAt: new Date(now - (21 - i) * 3600_000),
          ok: i !== 5 && i !== 6,
          latencyMs: i * 10,
          reason: i === 5 || i === 6 ? 'status 500, expected 200' : null,
          detail: {},
        });
      }
      // One older result (3 days ago) counts in 7d only; an incident from hour 16 to hour 14 before now.
      await repo.insertResult({
        id: 'r000',
        monitorId: m.id,
        checkedAt: new Date(now - 3 * DAY),
        ok: false,
        latencyMs: null,
        reason: 'timeout',
        detail: {},
      });
      await repo.insertIncident({
        id: 'inc1',
        monitorId: m.id,
        startedAt: new Date(now - 16 * 3600_000),
        endedAt: new Date(now - 14 * 3600_000),
        reason: 'status 500, expected 200',
      });
      await repo.insertIncident({
        id: 'inc0',
        monitorId: m.id,
        startedAt: new Date(now - 3 * DAY),
        endedAt: new Date(now - 3 * DAY + 60_000),
        reason: 'timeout',
      });
      const day = (await get(`/v1/monitors/${m.id}/report?period=24h`)).body;
      expect(day).to.include({ monitor_id: m.id, period: '24h', checks: 20, failures: 2, uptime_percent: 90 });
      expect(day.latency_ms).to.deep.equal({ p50: 100, p95: 190 });
      expect(day.incidents).to.deep.equal([
        {
          id: 'inc1',
          started_at: new Date(now - 16 * 3600_000).toISOString(),
          ended_at: new Date(now - 14 * 3600_000).toISOString(),
          duration_seconds: 7200,
          reason: 'status 500, expected 200',
        },
      ]);
      const week = (await get(`/v1/monitors/${m.id}/report?period=7d`)).body;
      expect(week).to.include({ checks: 21, failures: 3, uptime_percent: 85.714 });
      expect(week.incidents.map((i: { id: string }) => i.id)).to.deep.equal(['inc0', 'inc1']);
      // Results: newest first, cursor pages, from/to.
      const p1 = await get(`/v1/monitors/${m.id}/results?limit=8`);
      expect(p1.body.data.map((r: { id: string }) => r.id)).to.deep.equal(['r020', 'r019', 'r018', 'r017', 'r016', 'r015', 'r014', 'r013']);
      const p2 = await get(`/v1/monitors/${m.id}/results?limit=8&cursor=${p1.body.next_cursor}`);
      expect(p2.body.data[0].id).to.equal('r012');
      const window = await get(
        `/v1/monitors/${m.id}/results?from=${new Date(now - 16 * 3600_000).toISOString()}&to=${new Date(now - 14 * 3600_000).toISOString()}`,
      );
      expect(window.body.data.map((r: { id: string }) => r.id)).to.deep.equal(['r006', 'r005']);
      expect(window.body.next_cursor).to.equal(null);
      expectErrorShape(await get(`/v1/monitors/${m.id}/results?from=yesterday`), 422, 'validation_failed');
      // Retention: the worker prunes results older than 30 days.
      await repo.insertResult({
        id: 'rold',
        monitorId: m.id,
        checkedAt: new Date(now - 31 * DAY),
        ok: true,
        latencyMs: 5,
        reason: null,
        detail: {},
      });
      const { pruned } = await pass();
      expect(pruned).to.equal(1);
      expect(await api.system.store.knex('monitor_results').where({ id: 'rold' })).to.have.length(0);
    });
  });

  describe('scheduling', () => {
    it('two workers never run one due check twice', async () => {
      // Pause every earlier monitor so only these run.
      await api.system.store.knex('monitors').update({ enabled: false });
      const ids: string[] = [];
      for (let i = 0; i < 12; i++) ids.push((await create({ kind: 'http', url: `http://app.${zone}:${peer.port}/count/${i}` })).id);
      // Postgres: a second worker with its own connection pool (FOR UPDATE SKIP LOCKED). SQLite: one writer
      // per file, so a second worker in this process shares the store (the conditional update decides).
      const second =
        kind.engine === 'postgres'
          ? new System(testConfig(api.store, { DNS_PORT: String(api.dnsPort), MONITORS_ALLOW_LOOPBACK: '1' }), {
              clock: api.clock,
              logger: pino({ level: 'silent' }),
            })
          : null;
      const s = api.system.store;
      const worker2 = second
        ? second.get(TOKENS.RunMonitorChecks)
        : new RunMonitorChecks({
            monitors: s.monitors,
            domains: s.domains,
            probesFor: api.system.get(TOKENS.MonitorProbes),
            accountTime: api.system.get(TOKENS.AccountTime),
            events: api.system.get(TOKENS.Recorder),
            uow: s.uow,
            random: api.system.get(TOKENS.Random),
            clock: api.clock,
            options: { timeoutMs: 2000, batch: 5 },
          });
      try {
        for (let round = 0; round < 3; round++) {
          if (round > 0) api.clock.advance(11_000);
          const [a, b] = await Promise.all([api.system.get(TOKENS.RunMonitorChecks).run(), worker2.run()]);
          expect(a.checked + b.checked, JSON.stringify({ a, b })).to.equal(12);
        }
        for (let i = 0; i < 12; i++) expect(peer.hits.get(`/count/${i}`), `/count/${i}`).to.equal(3);
        for (const id of ids) expect(await api.system.store.knex('monitor_results').where({ monitor_id: id })).to.have.length(3);
      } finally {
        await second?.close();
      }
    });

    it('two worker processes on one store split the due checks: each runs once', async function () {
      this.timeout(120_000); // two cold tsx processes on a loaded machine
      await api.system.store.knex('monitors').update({ enabled: false });
      for (let i = 0; i < 12; i++) await create({ kind: 'http', url: `http://app.${zone}:${peer.port}/proc/${i}` });
      // The children run on the real clock: make these due now.
      await api.system.store
        .knex('monitors')
        .where({ enabled: true })
        .update({ next_check_at: new Date(Date.now() - 1000).toISOString() });
      const script = join(import.meta.dirname, 'run-checks-process.ts');
      const args = [api.store.url, api.store.schema ?? '-', String(api.dnsPort)];
      const [a, b] = await Promise.all([0, 1].map(() => run(process.execPath, ['--import', 'tsx', script, ...args], { timeout: 60_000 })));
      const counts = [a!, b!].map((r) => JSON.parse(r.stdout.trim()).checked as number);
      expect(counts[0]! + counts[1]!, JSON.stringify(counts)).to.equal(12);
      for (let i = 0; i < 12; i++) expect(peer.hits.get(`/proc/${i}`), `/proc/${i}`).to.equal(1);
    });
  });
});
