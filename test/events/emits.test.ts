import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { DomainEvent, EventType } from '../../core/kernel/events.js';
import { TOKENS } from '../../src/tokens.js';
import { eachStore } from '../support/stores.js';
import { bearer, startApi, type TestApi } from '../support/system.js';

/**
 * Every state-changing use case appends its event through store.events.append inside the
 * transaction of the change. Each step runs twice: first with a failure injected right after the event
 * append — the request fails and neither the change nor the event is stored — then for real: the event
 * is appended inside a transaction and committed with the change.
 */
eachStore('Every state change emits its event in its own transaction', (kind) => {
  let api: TestApi;
  let seen: Array<{ event: DomainEvent; inTransaction: boolean }> = [];
  let failOn: EventType | null = null;
  let k: string;
  let cookie: string;
  before(async () => {
    api = await startApi(kind);
    const s = api.system.store;
    const original = s.events.append.bind(s.events);
    s.events.append = async (e: DomainEvent) => {
      seen.push({ event: e, inTransaction: s.uow.inTransaction() });
      await original(e);
      if (failOn === e.type) throw new Error(`injected failure after appending ${e.type}`);
    };
    cookie = await api.signIn();
    k = (
      await api.issueKey(
        {
          environment: 'test',
          rights: [
            'domain.register',
            'domain.renew',
            'domain.read',
            'billing.topup',
            'dns.edit',
            'dns.acme_challenge',
            'cert.issue',
            'sandbox.clock',
          ],
          label: 'prod',
          conditions: { cidr: '127.0.0.0/8', spend_limit: { amount: 10_000_000, currency: 'UAH' } },
        },
        cookie,
      )
    ).secret;
  });
  after(async () => api.close());

  const write = (method: string, path: string, json?: unknown, idem = randomUUID()) =>
    api.call(path, { method, headers: { ...bearer(k), 'idempotency-key': idem }, ...(json !== undefined ? { json } : {}) });
  const stored = async (type: EventType): Promise<number> =>
    Number((await api.system.store.knex('events').where({ type }).count({ n: '*' }))[0]!.n);
  const domain = async (name: string) => (await api.call(`/v1/domains/${name}`, { headers: bearer(k) })).body;
  const balance = async () => (await api.system.store.knex('ledger_entries').count({ n: '*' }))[0]!.n;

  /** Runs `act` with a failure injected after `type` is appended, then for real; checks both ways. */
  const walk = async (
    type: EventType,
    act: () => Promise<{ status: number; body?: any }>,
    state: () => Promise<unknown>,
    opts: { inject?: boolean } = {},
  ) => {
    const before = await stored(type);
    if (opts.inject !== false) {
      const s0 = JSON.stringify(await state());
      failOn = type;
      seen = [];
      const r = await act().catch((err: Error) => ({ status: 599, body: err.message }));
      failOn = null;
      expect(
        seen.map((x) => x.event.type),
        `${type} was not appended`,
      ).to.include(type);
      expect(r.status, `${type}: the injected failure must fail the request`).to.be.at.least(400);
      expect(await stored(type), `${type}: the event must roll back`).to.equal(before);
      expect(JSON.stringify(await state()), `${type}: the change must roll back with its event`).to.equal(s0);
    }
    seen = [];
    const r = await act();
    expect(r.status, `${type}: ${JSON.stringify(r.body)}`).to.be.below(300);
    const mine = seen.filter((x) => x.event.type === type);
    expect(mine.length, `${type} appended`).to.be.at.least(1);
    expect(
      mine.every((x) => x.inTransaction),
      `${type} appended outside a transaction`,
    ).to.equal(true);
    expect(await stored(type)).to.be.greaterThan(before);
    return r;
  };

  it('keys: issue and revoke (humans)', async () => {
    const count = async () => (await api.system.store.knex('api_keys').count({ n: '*' }))[0]!.n;
    const r = await walk(
      'key.issued',
      () =>
        api.call('/v1/account/keys', {
          method: 'POST',
          headers: { cookie },
          json: { environment: 'test', rights: ['domain.read'], label: 'prod' },
        }),
      count,
    );
    const id = r.body.key.id as string;
    await walk(
      'key.revoked',
      () => api.call(`/v1/account/keys/${id}`, { method: 'DELETE', headers: { cookie } }),
      async () => (await api.system.store.knex('api_keys').where({ id }).first()).revoked_at ?? null,
    );
  });

  it('domains: register, renew, switch auto-renew', async () => {
    // A phased write: the registry already holds the name after the failed attempt, so the client
    // retries with the same Idempotency-Key and the recorded checkpoint completes it.
    const idem = randomUUID();
    await walk(
      'domain.registered',
      () => write('POST', '/v1/domains', { domain: 'walk-events.com.ua', years: 1 }, idem),
      () => api.system.store.knex('domains').where({ name: 'walk-events.com.ua' }).count({ n: '*' }),
    );
    // Phased too: the charge is reserved in an earlier phase (and settled by the retry); the renewal itself rolls back.
    const idem2 = randomUUID();
    await walk(
      'domain.renewed',
      () => write('POST', '/v1/domains/domivka-demo.dev/renewals', { years: 1 }, idem2),
      async () => (await domain('domivka-demo.dev')).expires_at,
    );
    await walk(
      'domain.auto_renew_changed',
      () => write('PATCH', '/v1/domains/domivka-demo.dev', { auto_renew: false }),
      async () => (await domain('domivka-demo.dev')).auto_renew,
    );
  });

  it('billing: a top-up', async () => {
    await walk('billing.topup_succeeded', () => write('POST', '/v1/billing/topups', { amount: 10_000 }), balance);
  });

  it('DNS: plan apply, ACME challenge add and remove', async () => {
    const records = async () => (await api.call('/v1/domains/domivka-demo.dev/dns/records', { headers: bearer(k) })).body;
    const planAndApply = async () => {
      const p = await write('POST', '/v1/domains/domivka-demo.dev/dns/plans', {
        changes: [{ action: 'create', name: `w${randomUUID().slice(0, 8)}`, type: 'A', ttl: 300, values: ['192.0.2.7'] }],
      });
      expect(p.status, JSON.stringify(p.body)).to.equal(201);
      return write('POST', `/v1/domains/domivka-demo.dev/dns/plans/${p.body.id}/apply`);
    };
    await walk('dns.plan_applied', planAndApply, records);
    const challenges = () => api.system.store.knex('acme_challenges').count({ n: '*' });
    const add = await walk(
      'dns.acme_challenge_added',
      () =>
        write('POST', '/v1/domains/domivka-demo.dev/dns/acme-challenges', {
          name: '_acme-challenge.domivka-demo.dev',
          value: 'x'.repeat(43),
        }),
      challenges,
    );
    await walk(
      'dns.acme_challenge_removed',
      () => write('DELETE', `/v1/domains/domivka-demo.dev/dns/acme-challenges/${add.body.id}`),
      challenges,
    );
  });

  it('certificates: request, issue (the issuance run), revoke', async () => {
    const count = () => api.system.store.knex('certificates').count({ n: '*' });
    const r = await walk('certificate.requested', () => write('POST', '/v1/certificates', { domains: ['www.domivka-demo.dev'] }), count);
    const id = r.body.id as string;
    const status = async () => (await api.system.store.knex('certificates').where({ id }).first()).status;
    // Issuance runs in the background queue; wait for it, then check the event was appended in its transaction.
    for (let i = 0; i < 100 && (await status()) !== 'issued'; i++) await new Promise((res) => setTimeout(res, 100));
    expect(await status()).to.equal('issued');
    const issued = await api.system.store.knex('events').where({ type: 'certificate.issued', subject: `certificate:${id}` });
    expect(issued).to.have.length(1);
    await walk('certificate.revoked', () => write('POST', `/v1/certificates/${id}/revoke`, { reason: 4 }), status);
  });

  it('certificates: a failure after certificate.issued is appended leaves the certificate unissued (retried later)', async () => {
    failOn = 'certificate.issued';
    const r = await write('POST', '/v1/certificates', { domains: ['api.domivka-demo.dev'] });
    const id = r.body.id as string;
    await new Promise((res) => setTimeout(res, 1500));
    failOn = null;
    const row = await api.system.store.knex('certificates').where({ id }).first();
    expect(row.status).to.not.equal('issued');
    expect(await api.system.store.knex('events').where({ type: 'certificate.issued', subject: `certificate:${id}` })).to.have.length(0);
    await api.system.get(TOKENS.CertificateIssuance).run();
    for (let i = 0; i < 50 && (await api.system.store.knex('certificates').where({ id }).first()).status !== 'issued'; i++)
      await new Promise((res) => setTimeout(res, 100));
    expect(await api.system.store.knex('events').where({ type: 'certificate.issued', subject: `certificate:${id}` })).to.have.length(1);
  });

  it('sandbox clock and the lifecycle it drives', async () => {
    const offset = () => api.system.store.knex('sandbox_clocks').select('offset_ms');
    await walk('sandbox.clock_advanced', () => write('POST', '/v1/sandbox/clock', { advance: 'P1D' }), offset);
    // The blog domain (20 days left, auto-renew off) runs out: its status changes in the lifecycle pass.
    const s = api.system.store;
    const blog = (await s.domains.find(api.demo.accountId, 'test', 'domivka-blog.kyiv.ua'))!;
    await s.domains.update({ ...blog, autoRenew: false });
    await s
      .knex('sandbox_clocks')
      .where({ account_id: api.demo.accountId })
      .update({ offset_ms: 40 * 86_400_000 });
    const status = async () => (await s.domains.find(api.demo.accountId, 'test', 'domivka-blog.kyiv.ua'))?.status ?? null;
    await walk(
      'domain.status_changed',
      async () => {
        const r = await api.system.get(TOKENS.AdvanceLifecycle).run();
        return { status: r.moved > 0 ? 200 : 500, body: r };
      },
      status,
    );
  });

  it('webhooks: create emits webhook.created in the same transaction', async () => {
    const wk = (await api.issueKey({ environment: 'test', rights: ['webhook.manage'] }, cookie)).secret;
    const count = () => api.system.store.knex('webhooks').count({ n: '*' });
    await walk(
      'webhook.created',
      () =>
        api.call('/v1/webhooks', {
          method: 'POST',
          headers: { ...bearer(wk), 'idempotency-key': randomUUID() },
          json: { url: 'https://hooks.example.com/in', events: ['*'] },
        }),
      count,
    );
  });
});
