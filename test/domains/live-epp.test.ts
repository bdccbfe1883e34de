import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { addYears } from '../../core/kernel/dates.js';
import { TOKENS } from '../../src/tokens.js';
import { Worker } from '../../src/worker.js';
import { EppTestServer, makeEppCerts, TAKEN_UNTIL, TRANSFER_AUTH, type EppCerts } from '../support/epp-server.js';
import { eachStore } from '../support/stores.js';
import { bearer, startApi, type TestApi } from '../support/system.js';

/**
 * LIVE_REGISTRAR=epp pointed at the local EPP test registry lets a dmk_live_ key register,
 * renew and read a domain end to end through the HTTP API. The live balance is credited through the
 * billing core (Accounting.credit, a grant), as an operator would.
 */
eachStore('Live environment on EPP (LIVE_REGISTRAR=epp)', (kind) => {
  let certs: EppCerts;
  let server: EppTestServer;
  let api: TestApi;
  let key: string;

  before(async function () {
    this.timeout(60_000);
    certs = makeEppCerts();
    server = await new EppTestServer({ certs }).start();
    api = await startApi(kind, {
      env: {
        LIVE_REGISTRAR: 'epp',
        EPP_HOST: '127.0.0.1',
        EPP_PORT: String(server.port),
        EPP_CLIENT_ID: server.clientId,
        EPP_PASSWORD: server.password,
        EPP_CERT: certs.files.clientCert,
        EPP_KEY: certs.files.clientKey,
        EPP_CA: certs.files.ca,
      },
    });
    const issued = await api.issueKey({
      environment: 'live',
      rights: ['domain.register', 'domain.renew', 'domain.read', 'billing.read'],
      label: 'shop',
      conditions: { cidr: '127.0.0.0/8', spend_limit: { amount: 1_000_000, currency: 'UAH' } },
    });
    key = issued.secret;
    expect(key.startsWith('dmk_live_')).to.equal(true);
    await api.system.get(TOKENS.Accounting).credit({
      accountId: api.demo.accountId,
      environment: 'live',
      amount: 500_000,
      kind: 'grant',
      description: 'Test credit for the live environment',
      keyId: null,
    });
  });
  after(async () => {
    await api?.close();
    await server?.stop();
    certs?.cleanup();
    expect(server.schemaErrors, server.schemaErrors.join('\n\n')).to.deep.equal([]);
  });

  const post = (path: string, json: unknown) =>
    api.call(path, { method: 'POST', headers: { ...bearer(key), 'idempotency-key': randomUUID() }, json });

  it('registers, renews and reads a domain at the EPP registry with a live key', async function () {
    this.timeout(60_000);
    const today = new Date().toISOString().slice(0, 10);
    const reg = await post('/v1/domains', { domain: 'live-epp.com.ua', years: 1 });
    expect(reg.status, JSON.stringify(reg.body)).to.equal(201);
    expect(reg.body.expires_at).to.equal(addYears(today, 1));
    expect(server.domains.get('live-epp.com.ua')!.clID).to.equal(server.clientId);

    const renew = await post('/v1/domains/live-epp.com.ua/renewals', { years: 2 });
    expect(renew.status, JSON.stringify(renew.body)).to.equal(201);
    expect(renew.body.expires_at ?? renew.body.domain?.expires_at).to.equal(addYears(today, 3));
    expect(server.domains.get('live-epp.com.ua')!.exDate.slice(0, 10)).to.equal(addYears(today, 3));

    const read = await api.call('/v1/domains/live-epp.com.ua', { headers: bearer(key) });
    expect(read.status).to.equal(200);
    expect(read.body.expires_at).to.equal(addYears(today, 3));

    const balance = await api.call('/v1/billing/balance', { headers: bearer(key) });
    expect(balance.body.balance.amount).to.equal(500_000 - 40_000 * 3);
    // The test environment is untouched: the sandbox registry never saw the name.
    expect(await api.system.store.sandboxRegistry.find('live-epp.com.ua')).to.equal(null);
  });

  it('registry messages (EPP poll) become DomainEvents of the holding account; the worker acks them', async function () {
    this.timeout(60_000);
    const reg = await post('/v1/domains', { domain: 'polled-live.com.ua', years: 1 });
    expect(reg.status, JSON.stringify(reg.body)).to.equal(201);
    server.requestTransfer('polled-live.com.ua');
    server.deleteByRegistry('polled-live.com.ua');
    server.requestTransfer('live-epp.com.ua', 'thirdreg');
    const report = await new Worker(api.system).tick();
    expect(report).to.have.property('idempotencyPurged');
    expect(server.messages, 'every message acknowledged').to.deep.equal([]);
    const rows: Array<{ type: string; account_id: string; subject: string; data: string; actor: string }> = await api.system.store
      .knex('events')
      .whereIn('type', ['domain.transfer_requested', 'domain.deleted_by_registry'])
      .orderBy('seq');
    expect(rows.map((r) => [r.type, r.subject])).to.deep.equal([
      ['domain.transfer_requested', 'domain:polled-live.com.ua'],
      ['domain.deleted_by_registry', 'domain:polled-live.com.ua'],
      ['domain.transfer_requested', 'domain:live-epp.com.ua'],
    ]);
    for (const r of rows) expect(r).to.include({ account_id: api.demo.accountId, actor: 'registry' });
    expect(JSON.parse(rows[2]!.data)).to.include({ requested_by: 'thirdreg', status: 'pending' });
  });

  it('transfer in over EPP: op="request" with the authInfo, 202 pending; the registry approves, the poll message (reID ours) brings the domain in and posts the charge', async function () {
    this.timeout(60_000);
    const before = (await api.call('/v1/billing/balance', { headers: bearer(key) })).body.balance.amount;
    const wrong = await post('/v1/domains/transfer-shop-live.com.ua/transfers', { auth_code: 'not-it' });
    expect([wrong.status, wrong.body.error.code]).to.deep.equal([422, 'transfer_auth_code_invalid']);
    const r = await post('/v1/domains/transfer-shop-live.com.ua/transfers', { auth_code: TRANSFER_AUTH });
    expect(r.status, JSON.stringify(r.body)).to.equal(202);
    expect(r.body).to.include({ status: 'pending', registry_status: 'pending', direction: 'in' });
    expect(server.domains.get('transfer-shop-live.com.ua')!.transfer).to.include({ status: 'pending', reID: server.clientId });
    expect((await api.call('/v1/billing/balance', { headers: bearer(key) })).body.balance.amount).to.equal(before - 40_000);
    server.finishTransfer('transfer-shop-live.com.ua');
    await api.system.get(TOKENS.ProcessRegistryMessages).run();
    expect(server.messages, 'the message was acknowledged').to.deep.equal([]);
    const t = await api.call(`/v1/domains/transfer-shop-live.com.ua/transfers/${r.body.id}`, { headers: bearer(key) });
    expect(t.body).to.include({ status: 'completed', expires_at: addYears(TAKEN_UNTIL, 1) });
    const d = await api.call('/v1/domains/transfer-shop-live.com.ua', { headers: bearer(key) });
    expect(d.status, JSON.stringify(d.body)).to.equal(200);
    expect(d.body.labels).to.deep.equal(['shop']);
    expect((await api.call('/v1/billing/balance', { headers: bearer(key) })).body.balance.amount).to.equal(before - 40_000);
  });

  it('transfer out over EPP: the poll message (acID ours) marks pendingTransfer and tells the owners; a domain.lock key rejects it at the registry', async function () {
    this.timeout(60_000);
    const lockKey = (
      await api.issueKey({
        environment: 'live',
        rights: ['domain.lock', 'domain.read'],
        label: 'shop',
        conditions: { cidr: '127.0.0.0/8' },
      })
    ).secret;
    server.requestTransfer('transfer-shop-live.com.ua', 'thirdreg');
    await api.system.get(TOKENS.ProcessRegistryMessages).run();
    const d = await api.call('/v1/domains/transfer-shop-live.com.ua', { headers: bearer(lockKey) });
    expect(d.body.status).to.include('pendingTransfer');
    const notices = await api.system.store
      .knex('notices')
      .where({ kind: 'domain.transfer_requested', domain: 'transfer-shop-live.com.ua' });
    expect(notices.length).to.be.at.least(1);
    const rej = await api.call('/v1/domains/transfer-shop-live.com.ua/transfer-out/reject', {
      method: 'POST',
      headers: { ...bearer(lockKey), 'idempotency-key': randomUUID() },
      json: {},
    });
    expect(rej.status, JSON.stringify(rej.body)).to.equal(200);
    expect(server.domains.get('transfer-shop-live.com.ua')!.transfer).to.include({ status: 'clientRejected' });
    expect(server.domains.get('transfer-shop-live.com.ua')!.clID).to.equal(server.clientId);
  });

  it('a name the EPP registry holds for someone else is 409 domain_taken with its date; nothing is charged', async () => {
    const before = (await api.call('/v1/billing/balance', { headers: bearer(key) })).body.balance.amount;
    const r = await post('/v1/domains', { domain: 'taken-live.com.ua', years: 1 });
    expect(r.status).to.equal(409);
    expect(r.body.error.code).to.equal('domain_taken');
    expect((await api.call('/v1/billing/balance', { headers: bearer(key) })).body.balance.amount).to.equal(before);
  });

  it('a registry policy refusal (EPP 2306) is 422 registry_parameter_rejected and voids the charge', async () => {
    const before = (await api.call('/v1/billing/balance', { headers: bearer(key) })).body.balance.amount;
    server.failNext('create', 2306);
    const r = await post('/v1/domains', { domain: 'refused-live.com.ua', years: 1 });
    expect(r.status, JSON.stringify(r.body)).to.equal(422);
    expect(r.body.error.code).to.equal('registry_parameter_rejected');
    expect(JSON.stringify(r.body)).to.not.match(/at .*\.ts/);
    expect((await api.call('/v1/billing/balance', { headers: bearer(key) })).body.balance.amount).to.equal(before);
  });

  it('a registry outage (EPP 2400) is 502 registry_failure', async () => {
    server.failNext('create', 2400);
    const r = await post('/v1/domains', { domain: 'outage-live.com.ua', years: 1 });
    expect(r.status).to.equal(502);
    expect(r.body.error.code).to.equal('registry_failure');
  });
});
