import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { RegistryError, type Registrar } from '../../core/domains/ports/registrar.port.js';
import { TOKENS } from '../../src/tokens.js';
import { expectErrorShape } from '../support/error-shape.js';
import { eachStore } from '../support/stores.js';
import { bearer, startApi, type TestApi } from '../support/system.js';

/**
 * Transfers in and out through the sandbox registrar (DESIGN: "Transfer in"): money reserved at the
 * request and settled once, the losing side answering after 5 days of the sandbox clock, the registry
 * outage, the race, a revoked key, and a transfer out simulated, rejected and completed.
 */
/** A class 3 key's IP restriction and a spending key's monthly limit (seed: both required). */
const LIMITS = { cidr: '127.0.0.0/8', spend_limit: { amount: 5_000_000, currency: 'UAH' } };
const NAMES = [
  'transfer-dated.com.ua',
  'transfer-ok.com.ua',
  'transfer-nope.com.ua',
  'transfer-wrong.com.ua',
  'transfer-locked-a.com.ua',
  'plain-name.com.ua',
  'transfer-cancel.com.ua',
  'transfer-owner.com.ua',
  'transfer-race.com.ua',
  'transfer-big.io',
  'transfer-signed-shop.com.ua',
  'domivka-demo.com.ua',
];

eachStore('Transfers between registrars (sandbox, time travel)', (kind) => {
  let api: TestApi;
  let key: { id: string; secret: string };
  let clockKey: string;
  /** While true, the sandbox registry is down for transfer requests (an outage). */
  let registryDown = false;
  /** While true, the connection to the registry is cut (an unknown outcome: the request is left to resume). */
  let registryCut = false;

  before(async () => {
    api = await startApi(kind, {
      wrapSandbox: (a) => ({
        ...a,
        registrar: new Proxy(a.registrar, {
          get(target, prop, receiver) {
            const v = Reflect.get(target, prop, receiver) as unknown;
            if (prop === 'requestTransfer' && typeof v === 'function')
              return (...args: unknown[]) => {
                if (registryDown) return Promise.reject(new RegistryError('unavailable', 'registry outage (test)'));
                if (registryCut) return Promise.reject(new Error('connection reset (test)'));
                return (v as (...x: unknown[]) => unknown).apply(target, args);
              };
            return typeof v === 'function' ? (v as (...x: unknown[]) => unknown).bind(target) : v;
          },
        }) as Registrar,
      }),
    });
    key = await api.issueKey({
      environment: 'test',
      rights: ['domain.register', 'domain.read', 'domain.lock'],
      domains: NAMES,
      conditions: LIMITS,
    });
    clockKey = (await api.issueKey({ environment: 'test', rights: ['sandbox.clock'] })).secret;
  });
  after(async () => api?.close());

  const post = (path: string, json: unknown, secret = key.secret, idem: string = randomUUID()) =>
    api.call(path, { method: 'POST', headers: { ...bearer(secret), 'idempotency-key': idem }, json });
  const get = (path: string, secret = key.secret) => api.call(path, { headers: bearer(secret) });
  const travel = async (advance = 'P5D') => {
    const r = await post('/v1/sandbox/clock', { advance }, clockKey);
    expect(r.status, JSON.stringify(r.body)).to.equal(200);
    return r.body;
  };
  const balance = () => api.system.store.wallets.balance(api.demo.accountId, 'test');
  const entriesFor = async (domain: string) =>
    (await api.system.store.knex('ledger_entries').where({ domain, account_id: api.demo.accountId })) as Array<{
      status: string;
      amount: unknown;
      kind: string;
    }>;
  const row = async (id: string) => api.system.store.knex('domain_transfers').where({ id }).first();
  /** Idempotency records that hold the sandbox auth code in the clear, anywhere in the row. */
  const authCodeInIdempotencyRecords = async () =>
    ((await api.system.store.knex('idempotency_keys').select()) as Array<Record<string, unknown>>).filter((r) =>
      JSON.stringify(r).includes('sandbox-auth-ok'),
    );
  const eventTypes = async (domain: string) =>
    (
      (await api.system.store
        .knex('events')
        .where({ subject: `domain:${domain}` })
        .orderBy('occurred_at')) as Array<{ type: string }>
    ).map((e) => e.type);

  it('transfer in: 202 pending, years × renewal price reserved, authInfo sealed; after 5 days the domain is ours with a zone', async () => {
    const domain = 'transfer-ok.com.ua';
    const before = await balance();
    const r = await post(`/v1/domains/${domain}/transfers`, { auth_code: 'sandbox-auth-ok', years: 2 });
    expect(r.status, JSON.stringify(r.body)).to.equal(202);
    expect(r.body).to.include({ domain, direction: 'in', status: 'pending', years: 2 });
    expect(r.body, 'no DS at the registry: nothing to warn about').to.not.have.property('warnings');
    expect(r.body.amount).to.deep.equal({ amount: 80_000, currency: 'UAH' });
    expect(await balance()).to.equal(before - 80_000);
    expect((await entriesFor(domain)).map((e) => [e.kind, e.status])).to.deep.equal([['transfer', 'pending']]);
    const stored = await row(r.body.id);
    expect(stored.auth_code, 'sealed, never in clear').to.be.a('string').and.not.include('sandbox-auth-ok');
    expect(await authCodeInIdempotencyRecords(), 'nor in the idempotency record (its request, its response)').to.deep.equal([]);
    expect((await get(`/v1/domains/${domain}/transfers/${r.body.id}`)).body.status).to.equal('pending');
    expect((await get(`/v1/domains/${domain}/transfers`)).body.items.map((t: { id: string }) => t.id)).to.deep.equal([r.body.id]);
    expect((await get(`/v1/domains/${domain}`)).status).to.equal(404);

    const moved = await travel('P4D');
    expect(moved.transfers).to.deep.include({ completed: 0 });
    expect((await get(`/v1/domains/${domain}/transfers/${r.body.id}`)).body.status).to.equal('pending');
    await travel('P1D');
    const done = (await get(`/v1/domains/${domain}/transfers/${r.body.id}`)).body;
    expect(done).to.include({ status: 'completed', expires_at: '2033-03-14', registry_status: 'serverApproved' });
    expect((await row(r.body.id)).auth_code, 'the authInfo is deleted when the transfer ends').to.equal(null);
    expect((await entriesFor(domain)).map((e) => [e.kind, e.status])).to.deep.equal([['transfer', 'posted']]);
    expect(await balance()).to.equal(before - 80_000);
    const d = await get(`/v1/domains/${domain}`);
    expect(d.status).to.equal(200);
    expect(d.body).to.include({ domain, expires_at: '2033-03-14' });
    expect(await api.system.store.zones.find(api.demo.accountId, 'test', domain)).to.not.equal(null);
    expect(await eventTypes(domain)).to.include.members(['domain.transfer_in_requested', 'domain.transfer_in_completed']);
    // The name is ours now: asking again is refused.
    const again = await post(`/v1/domains/${domain}/transfers`, { auth_code: 'sandbox-auth-ok' });
    expectErrorShape(again);
    expect([again.status, again.body.error.code]).to.deep.equal([409, 'domain_already_yours']);
  });

  it('rejected by the losing side (sandbox-auth-reject): after 5 days it is rejected and the reservation voided', async () => {
    const domain = 'transfer-nope.com.ua';
    const before = await balance();
    const r = await post(`/v1/domains/${domain}/transfers`, { auth_code: 'sandbox-auth-reject' });
    expect([r.status, r.body.status]).to.deep.equal([202, 'pending']);
    expect(await balance()).to.equal(before - 40_000);
    await travel('P5D');
    const t = (await get(`/v1/domains/${domain}/transfers/${r.body.id}`)).body;
    expect(t).to.include({ status: 'rejected', error: 'transfer_rejected' });
    expect((await entriesFor(domain)).map((e) => e.status)).to.deep.equal(['voided']);
    expect(await balance()).to.equal(before);
    expect((await get(`/v1/domains/${domain}`)).status).to.equal(404);
    expect(await eventTypes(domain)).to.include('domain.transfer_in_failed');
  });

  it('a wrong auth code is 422 transfer_auth_code_invalid; a transfer-locked- name 409 transfer_domain_locked; nothing charged', async () => {
    const before = await balance();
    const wrong = await post('/v1/domains/transfer-wrong.com.ua/transfers', { auth_code: 'guess' });
    expectErrorShape(wrong);
    expect([wrong.status, wrong.body.error.code]).to.deep.equal([422, 'transfer_auth_code_invalid']);
    const locked = await post('/v1/domains/transfer-locked-a.com.ua/transfers', { auth_code: 'sandbox-auth-ok' });
    expectErrorShape(locked);
    expect([locked.status, locked.body.error.code]).to.deep.equal([409, 'transfer_domain_locked']);
    expect(await balance()).to.equal(before);
    expect((await entriesFor('transfer-wrong.com.ua')).map((e) => e.status)).to.deep.equal(['voided']);
    const listed = (await get('/v1/domains/transfer-wrong.com.ua/transfers')).body.items;
    expect(listed.map((t: { status: string; error: string }) => [t.status, t.error])).to.deep.equal([
      ['failed', 'transfer_auth_code_invalid'],
    ]);
    // Not a transfer- name: the sandbox registry does not know it.
    const unknown = await post('/v1/domains/plain-name.com.ua/transfers', { auth_code: 'sandbox-auth-ok' });
    expect([unknown.status, unknown.body.error.code]).to.deep.equal([409, 'transfer_not_transferable']);
  });

  it('cancel: the reservation is voided once; cancelling again is 409 transfer_not_cancellable', async () => {
    const domain = 'transfer-cancel.com.ua';
    const before = await balance();
    const r = await post(`/v1/domains/${domain}/transfers`, { auth_code: 'sandbox-auth-ok' });
    const c = await post(`/v1/domains/${domain}/transfers/${r.body.id}/cancel`, {});
    expect(c.status, JSON.stringify(c.body)).to.equal(200);
    expect(c.body).to.include({ status: 'cancelled', registry_status: 'clientCancelled' });
    const again = await post(`/v1/domains/${domain}/transfers/${r.body.id}/cancel`, {});
    expectErrorShape(again);
    expect([again.status, again.body.error.code]).to.deep.equal([409, 'transfer_not_cancellable']);
    expect(await balance()).to.equal(before);
    expect((await entriesFor(domain)).map((e) => e.status)).to.deep.equal(['voided']);
    await travel('P5D');
    expect((await get(`/v1/domains/${domain}`)).status).to.equal(404);
    expect(await eventTypes(domain)).to.include('domain.transfer_in_cancelled');
    const missing = await post(`/v1/domains/${domain}/transfers/nope/cancel`, {});
    expect([missing.status, missing.body.error.code]).to.deep.equal([404, 'transfer_not_found']);
  });

  it('an owner in the console cancels a transfer in (human route); a key is refused there (human_only)', async () => {
    const domain = 'transfer-owner.com.ua';
    const r = await post(`/v1/domains/${domain}/transfers`, { auth_code: 'sandbox-auth-ok' }, key.secret);
    expect(r.status, JSON.stringify(r.body)).to.equal(202);
    const path = `/v1/account/domains/${domain}/transfers/${r.body.id}/cancel`;
    const byKey = await post(path, { environment: 'test' });
    expect(byKey.status).to.equal(403);
    const cookie = await api.signIn();
    const c = await api.call(path, { method: 'POST', headers: { cookie, 'idempotency-key': randomUUID() }, json: { environment: 'test' } });
    expect(c.status, JSON.stringify(c.body)).to.equal(200);
    expect(c.body).to.include({ status: 'cancelled' });
    expect((await entriesFor(domain)).map((e) => e.status)).to.deep.equal(['voided']);
    const events = (await api.system.store
      .knex('events')
      .where({ type: 'domain.transfer_in_cancelled', subject: `domain:${domain}` })) as Array<{
      actor: string;
    }>;
    expect(events.map((e) => e.actor)).to.deep.equal([`person:${api.demo.personId}`]);
  });

  it('two parallel requests for one name reserve once: one 202, the other 409 transfer_already_pending', async () => {
    const domain = 'transfer-race.com.ua';
    const before = await balance();
    const replies = await Promise.all([1, 2, 3].map(() => post(`/v1/domains/${domain}/transfers`, { auth_code: 'sandbox-auth-ok' })));
    const statuses = replies.map((r) => r.status).sort();
    expect(statuses, JSON.stringify(replies.map((r) => r.body))).to.deep.equal([202, 409, 409]);
    for (const r of replies.filter((x) => x.status === 409)) expect(r.body.error.code).to.equal('transfer_already_pending');
    expect(await entriesFor(domain)).to.have.length(1);
    expect(await balance()).to.equal(before - 40_000);
    await travel('P5D');
    expect((await entriesFor(domain)).map((e) => e.status)).to.deep.equal(['posted']);
    expect(await balance()).to.equal(before - 40_000);
  });

  it('a registry outage leaves the transfer pending with one reservation; the pass asks again; the key may be revoked meanwhile', async () => {
    const domain = 'transfer-outage.com.ua';
    const k = await api.issueKey({ environment: 'test', rights: ['domain.register'], domains: [domain], conditions: LIMITS });
    const before = await balance();
    registryDown = true;
    const idem = randomUUID();
    const r = await post(`/v1/domains/${domain}/transfers`, { auth_code: 'sandbox-auth-ok' }, k.secret, idem);
    expect([r.status, r.body.status, r.body.registry_status]).to.deep.equal([202, 'pending', null]);
    // The same request again (Idempotency-Key) and the worker's pass during the outage: still one reservation.
    expect((await post(`/v1/domains/${domain}/transfers`, { auth_code: 'sandbox-auth-ok' }, k.secret, idem)).body.id).to.equal(r.body.id);
    await api.system.get(TOKENS.AdvanceTransfers).run();
    expect(await entriesFor(domain)).to.have.length(1);
    expect(await balance()).to.equal(before - 40_000);
    // The key that asked is revoked: the transfer is not cancelled by it.
    const cookie = await api.signIn();
    expect((await api.call(`/v1/account/keys/${k.id}`, { method: 'DELETE', headers: { cookie } })).body.status).to.equal('revoked');
    registryDown = false;
    const report = await api.system.get(TOKENS.AdvanceTransfers).run();
    expect(report.pending).to.be.at.least(1);
    expect((await row(r.body.id)).status).to.equal('pending');
    await travel('P5D');
    expect((await row(r.body.id)).status).to.equal('completed');
    expect((await entriesFor(domain)).map((e) => e.status)).to.deep.equal(['posted']);
    expect(await balance()).to.equal(before - 40_000);
  });

  it('a request cut off at the registry keeps its auth code sealed for the completer, which finishes it; the finished record keeps no request', async () => {
    const domain = 'transfer-cut.com.ua';
    const k = await api.issueKey({ environment: 'test', rights: ['domain.register'], domains: [domain], conditions: LIMITS });
    const idem = randomUUID();
    registryCut = true;
    try {
      const r = await post(`/v1/domains/${domain}/transfers`, { auth_code: 'sandbox-auth-ok' }, k.secret, idem);
      expect(r.status, JSON.stringify(r.body)).to.equal(500);
    } finally {
      registryCut = false;
    }
    const kept = await api.system.store
      .knex('idempotency_keys')
      .where({ scope: `key:${k.id}`, key: idem })
      .first();
    expect(kept.recovery_point).to.equal('reserved');
    expect(JSON.parse(kept.request)).to.deep.include({ route: 'requestTransfer', sealed: ['auth_code'] });
    expect(await authCodeInIdempotencyRecords(), 'kept for the completer, sealed').to.deep.equal([]);

    api.clock.advance(16 * 60_000);
    expect(await api.system.completeAbandonedRequests()).to.deep.include({ completed: 1 });
    const done = await api.system.store
      .knex('idempotency_keys')
      .where({ scope: `key:${k.id}`, key: idem })
      .first();
    expect([done.response_status, done.request], 'answered; nothing left to resume').to.deep.equal([202, null]);
    expect(await authCodeInIdempotencyRecords()).to.deep.equal([]);
    const late = await post(`/v1/domains/${domain}/transfers`, { auth_code: 'sandbox-auth-ok' }, k.secret, idem);
    expect([late.status, late.headers.get('idempotent-replayed'), late.body.status]).to.deep.equal([202, 'true', 'pending']);
    expect(JSON.stringify(late.body)).to.not.include('sandbox-auth-ok');
    expect((await entriesFor(domain)).map((e) => e.status)).to.deep.equal(['pending']);
  });

  it('insufficient balance is 402 and a spend limit 402 spend_limit_exceeded; nothing reserved', async () => {
    const big = await post('/v1/domains/transfer-big.io/transfers', { auth_code: 'sandbox-auth-ok', years: 10 });
    expectErrorShape(big);
    expect([big.status, big.body.error.code]).to.deep.equal([402, 'insufficient_funds']);
    const limited = await api.issueKey({
      environment: 'test',
      rights: ['domain.register'],
      domains: ['transfer-limit.com.ua'],
      conditions: { cidr: '127.0.0.0/8', spend_limit: { amount: 10_000, currency: 'UAH' } },
    });
    const r = await post('/v1/domains/transfer-limit.com.ua/transfers', { auth_code: 'sandbox-auth-ok' }, limited.secret);
    expect([r.status, r.body.error.code]).to.deep.equal([402, 'spend_limit_exceeded']);
    expect(await entriesFor('transfer-big.io')).to.have.length(0);
    expect(await entriesFor('transfer-limit.com.ua')).to.have.length(0);
  });

  it('transfer out: simulated, owners told, rejected by a domain.lock key; again, it leaves the account after 5 days', async () => {
    const domain = 'transfer-ok.com.ua'; // transferred in above, unlocked
    const locked = await post('/v1/sandbox/transfer-out', { domain: 'domivka-demo.com.ua' });
    expectErrorShape(locked);
    expect([locked.status, locked.body.error.code]).to.deep.equal([409, 'transfer_domain_locked']);

    const out = await post('/v1/sandbox/transfer-out', { domain });
    expect(out.status, JSON.stringify(out.body)).to.equal(202);
    expect(out.body).to.include({ direction: 'out', status: 'pending' });
    expect((await get(`/v1/domains/${domain}`)).body.status).to.include('pendingTransfer');
    expect(await eventTypes(domain)).to.include('domain.transfer_requested');
    const notices = (await api.system.store.knex('notices').where({ kind: 'domain.transfer_requested' })) as Array<{ domain: string }>;
    expect(notices.filter((n) => n.domain === domain).length, 'every owner is told').to.be.at.least(1);

    const rej = await post(`/v1/domains/${domain}/transfer-out/reject`, {});
    expect(rej.status, JSON.stringify(rej.body)).to.equal(200);
    expect(rej.body).to.include({ status: 'rejected', registry_status: 'clientRejected' });
    expect((await get(`/v1/domains/${domain}`)).body.status).to.not.include('pendingTransfer');
    const none = await post(`/v1/domains/${domain}/transfer-out/reject`, {});
    expect([none.status, none.body.error.code]).to.deep.equal([409, 'transfer_out_not_pending']);

    expect((await post('/v1/sandbox/transfer-out', { domain })).status).to.equal(202);
    await travel('P5D');
    expect((await get(`/v1/domains/${domain}`)).status).to.equal(404);
    expect(await api.system.store.zones.find(api.demo.accountId, 'test', domain)).to.equal(null);
    expect(await eventTypes(domain)).to.include('domain.transfer_completed');
  });

  // Last: its five days of sandbox time would move the demo domains' renewals into the tests above.
  it('a name its current operator signs (the registry holds their DS): the request warns dnssec_ds_at_parent with the safe order; the DS stays after completion', async () => {
    const domain = 'transfer-signed-shop.com.ua';
    const idem = randomUUID();
    const r = await post(`/v1/domains/${domain}/transfers`, { auth_code: 'sandbox-auth-ok' }, key.secret, idem);
    expect(r.status, JSON.stringify(r.body)).to.equal(202);
    expect(r.body.warnings, JSON.stringify(r.body)).to.have.length(1);
    const w = r.body.warnings[0];
    expect(w.code).to.equal('dnssec_ds_at_parent');
    expect(w.message.en).to.contain('(tags 31589)');
    expect(w.message.en).to.contain(`POST /v1/domains/${domain}/dnssec/foreign-keys`);
    expect(w.message.uk).to.contain('(теги 31589)');
    // Answered once: a replay with the same Idempotency-Key gives the same answer, warning included; GET shows the transfer without it.
    const replay = await post(`/v1/domains/${domain}/transfers`, { auth_code: 'sandbox-auth-ok' }, key.secret, idem);
    expect([replay.status, replay.body]).to.deep.equal([202, r.body]);
    expect((await get(`/v1/domains/${domain}/transfers/${r.body.id}`)).body).to.not.have.property('warnings');
    await travel('P5D');
    expect((await get(`/v1/domains/${domain}/transfers/${r.body.id}`)).body.status).to.equal('completed');
    expect((await api.system.store.sandboxRegistry.dsOf(domain)).map((d) => d.keyTag)).to.deep.equal([31589]);
  });
  it('a transfer is dated by the account’s clock: after the earlier tests’ time travel its created_at is the sandbox’s now, not the real one', async () => {
    const clock = (await get('/v1/sandbox/clock', clockKey)).body as { now: string; offset_ms: number };
    expect(clock.offset_ms).to.be.greaterThan(0);
    const r = await post('/v1/domains/transfer-dated.com.ua/transfers', { auth_code: 'sandbox-auth-ok' });
    expect(r.status, JSON.stringify(r.body)).to.equal(202);
    const skew = Date.parse(r.body.created_at) - Date.parse(clock.now);
    expect(skew, `created_at ${r.body.created_at} against the sandbox clock ${clock.now}`).to.be.within(0, 60_000);
    const shown = (await get(`/v1/domains/transfer-dated.com.ua/transfers/${r.body.id}`)).body;
    expect(shown.created_at).to.equal(r.body.created_at);
    const cancelled = await post(`/v1/domains/transfer-dated.com.ua/transfers/${r.body.id}/cancel`, {});
    expect(cancelled.status, JSON.stringify(cancelled.body)).to.equal(200);
  });
});
