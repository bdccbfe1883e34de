import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { addDays } from '../../core/kernel/dates.js';
import { System } from '../../src/system.js';
import { TOKENS } from '../../src/tokens.js';
import { eachStore } from '../support/stores.js';
import { bearer, startApi, testConfig, type TestApi } from '../support/system.js';

/** the lifecycle on the sandbox clock — automatic renewal, expiry, redemption, release. */
eachStore('Domain lifecycle and sandbox time travel', (kind) => {
  let api: TestApi;
  let key: string;
  before(async () => {
    api = await startApi(kind);
    // Moving the clock needs its own right (sandbox.clock); reading it, any test key.
    key = (await api.issueKey({ environment: 'test', rights: ['domain.read', 'billing.read', 'sandbox.clock'], label: 'prod' })).secret;
  });
  after(async () => api.close());

  const travel = (advance: string, secret = key) =>
    api.call('/v1/sandbox/clock', { method: 'POST', headers: { ...bearer(secret), 'idempotency-key': randomUUID() }, json: { advance } });
  const domain = async (name: string) => (await api.call(`/v1/domains/${name}`, { headers: bearer(key) })).body;
  const balance = async () => (await api.call('/v1/billing/balance', { headers: bearer(key) })).body.balance.amount as number;

  it('a live key gets 403 sandbox_only; a bad duration is 422', async () => {
    const live = await api.issueKey({ environment: 'live', rights: ['domain.read'], label: 'prod' });
    const r = await travel('P1D', live.secret);
    expect(r.status).to.equal(403);
    expect(r.body.error.code).to.equal('sandbox_only');
    for (const r of [await travel('P1M'), await travel('P0D')]) {
      expect(r.status).to.equal(422);
      expect(r.body.error.code).to.equal('validation_failed');
    }
  });

  it('moving the clock needs sandbox.clock: a read-only test key gets 403 right_missing and time stays; any test key reads it', async () => {
    const reader = (await api.issueKey({ environment: 'test', template: 'read_only', label: 'prod' })).secret;
    const before = await api.call('/v1/sandbox/clock', { headers: bearer(reader) });
    expect(before.status, JSON.stringify(before.body)).to.equal(200);
    expect(before.body.offset_ms).to.be.a('number');
    const refused = await travel('P30D', reader);
    expect(refused.status).to.equal(403);
    expect(refused.body.error.code).to.equal('right_missing');
    expect(refused.body.error.message.en).to.include('sandbox.clock');
    expect((await api.call('/v1/sandbox/clock', { headers: bearer(reader) })).body.offset_ms).to.equal(before.body.offset_ms);
    const moved = await travel('PT1M');
    expect(moved.status, JSON.stringify(moved.body)).to.equal(200);
    const after = await api.call('/v1/sandbox/clock', { headers: bearer(reader) });
    expect(after.body.offset_ms).to.equal(before.body.offset_ms + 60_000);
    expect(after.body.now).to.equal(moved.body.now);
  });

  it('a live key can never hold sandbox.clock (422 right_test_only), and a live key cannot read the sandbox clock', async () => {
    const cookie = await api.signIn();
    const r = await api.call('/v1/account/keys', {
      method: 'POST',
      headers: { cookie },
      json: { environment: 'live', rights: ['domain.read', 'sandbox.clock'], label: 'prod' },
    });
    expect(r.status, JSON.stringify(r.body)).to.equal(422);
    expect(r.body.error.code).to.equal('right_test_only');
    expect(r.body.error.message.en).to.include('sandbox.clock');
    const t = await api.call('/v1/account/keys', {
      method: 'POST',
      headers: { cookie },
      json: { environment: 'live', template: 'sandbox_clock' },
    });
    expect(t.body.error.code).to.equal('right_test_only');
    const live = await api.issueKey({ environment: 'live', rights: ['domain.read'], label: 'prod' });
    const read = await api.call('/v1/sandbox/clock', { headers: bearer(live.secret) });
    expect(read.status).to.equal(403);
    expect(read.body.error.code).to.equal('sandbox_only');
  });

  it('automatic renewal happens shortly before expiry when the balance allows; owners are told', async () => {
    const d0 = await domain('domivka-demo.dev'); // expires in 75 days, auto_renew on
    const before = await balance();
    const r = await travel('P70D');
    expect(r.status, JSON.stringify(r.body)).to.equal(200);
    expect(r.body.lifecycle.renewed).to.be.at.least(1);
    const d1 = await domain('domivka-demo.dev');
    expect(d1.expires_at).to.equal(`${Number(d0.expires_at.slice(0, 4)) + 1}${d0.expires_at.slice(4)}`);
    expect(await balance()).to.equal(before - 65_000 - 30_000); // .dev and the blog's kyiv.ua (20 days left) both renewed
    const cookie = await api.signIn();
    const kinds = (await api.call('/v1/account/notices?limit=200', { headers: { cookie } })).body.data.map((n: any) => n.kind);
    expect(kinds).to.include('domain.auto_renewed');
  });

  it('without auto_renew: expiry → autoRenewPeriod → redemptionPeriod → pendingDelete → released', async () => {
    const s = api.system.store;
    const d = (await s.domains.find(api.demo.accountId, 'test', 'domivka-demo.com.ua'))!;
    await s.domains.update({ ...d, autoRenew: false });
    const offsetNow = new Date(Date.now() + (await s.sandboxClocks.offset(api.demo.accountId)));
    const days = Math.ceil((new Date(`${d.expiresOn}T12:00:00Z`).getTime() - offsetNow.getTime()) / 86_400_000);
    await travel(`P${days + 1}D`);
    expect((await domain('domivka-demo.com.ua')).status).to.include('autoRenewPeriod');
    await travel('P45D');
    expect((await domain('domivka-demo.com.ua')).status).to.include('redemptionPeriod');
    // A renewal in redemption is a restore: the renewal plus the restore fee.
    await travel('P30D');
    const pd = await domain('domivka-demo.com.ua');
    expect(pd.status).to.include('pendingDelete');
    await travel('P5D');
    // Released: it left the account (a label-scoped key cannot even tell it existed: 403, not 404).
    const gone = await api.call('/v1/domains/domivka-demo.com.ua', { headers: bearer(key) });
    expect(gone.status).to.equal(403);
    expect(gone.body.error.code).to.equal('right_missing');
    expect((await api.call('/v1/domains', { headers: bearer(key) })).body.data.map((x: any) => x.domain)).not.to.include(
      'domivka-demo.com.ua',
    );
    expect(await s.domains.find(api.demo.accountId, 'test', 'domivka-demo.com.ua')).to.equal(null);
    const cookie = await api.signIn();
    const kinds = (await api.call('/v1/account/notices?limit=200', { headers: { cookie } })).body.data.map((n: any) => n.kind);
    expect(kinds).to.include.members(['domain.status_changed', 'domain.released']);
  });

  it('a failed automatic renewal (balance too low) is a notice, once per expiry', async () => {
    const s = api.system.store;
    const bal = await s.wallets.balance(api.demo.accountId, 'test');
    await s.uow.transaction(async () => {
      await s.wallets.debit(api.demo.accountId, 'test', bal);
      await s.ledger.append({
        id: randomUUID(),
        accountId: api.demo.accountId,
        environment: 'test',
        amount: -bal,
        kind: 'refund',
        status: 'posted',
        keyId: null,
        domain: null,
        description: 'test: empty the balance',
        createdAt: new Date(),
      });
    });
    const d = (await s.domains.find(api.demo.accountId, 'test', 'domivka-demo.dev'))!;
    const offsetNow = new Date(Date.now() + (await s.sandboxClocks.offset(api.demo.accountId)));
    const days = Math.ceil((new Date(`${d.expiresOn}T12:00:00Z`).getTime() - offsetNow.getTime()) / 86_400_000) - 3;
    const r = await travel(`P${days}D`);
    expect(r.body.lifecycle.renewalFailed).to.equal(2); // .dev, and the blog's kyiv.ua that expires before it
    const again = await travel('PT1H');
    expect(again.body.lifecycle.renewalFailed).to.equal(0);
    const cookie = await api.signIn();
    const failed = (await api.call('/v1/account/notices?limit=200', { headers: { cookie } })).body.data.filter(
      (n: any) => n.kind === 'domain.auto_renew_failed' && n.domain === 'domivka-demo.dev',
    );
    expect(failed).to.have.length(1);
    expect(failed[0].message.en).to.contain('domivka-demo.dev').and.contain('balance is too low');
  });
});

eachStore('Two workers on one store', (kind) => {
  let api: TestApi;
  before(async () => {
    api = await startApi(kind);
  });
  after(async () => api.close());

  it('each due domain is renewed once, whichever worker claims it', async function () {
    this.timeout(60_000);
    const s = api.system.store;
    await s.uow.transaction(() =>
      api.system
        .get(TOKENS.Accounting)
        .credit({ accountId: api.demo.accountId, environment: 'test', amount: 2_000_000, kind: 'grant', keyId: null, description: 'test' }),
    );
    // Forty domains due for automatic renewal, real clock.
    for (let i = 0; i < 40; i++) {
      const name = `auto-${i}-${randomUUID().slice(0, 6)}.com.ua`;
      const expiresOn = addDays(new Date().toISOString().slice(0, 10), 3);
      await s.domains.insert({
        id: randomUUID(),
        accountId: api.demo.accountId,
        environment: 'test',
        name,
        labels: [],
        status: ['ok'],
        expiresOn,
        autoRenew: true,
        transferLock: false,
        nameservers: [],
        createdAt: new Date(),
      });
      await s.sandboxRegistry.put({ domain: name, registeredUntil: expiresOn, status: ['ok'], nameservers: [], transferCode: 'x' });
    }
    const second = new System(testConfig(api.store), { logger: pino({ level: 'silent' }) });
    const runs =
      kind.engine === 'postgres'
        ? await Promise.all([api.system.get(TOKENS.AdvanceLifecycle).run(), second.get(TOKENS.AdvanceLifecycle).run()])
        : [await api.system.get(TOKENS.AdvanceLifecycle).run(), await second.get(TOKENS.AdvanceLifecycle).run()];
    await second.close();
    expect(runs[0]!.renewed + runs[1]!.renewed).to.equal(40);
    const renewals = await s
      .knex('ledger_entries')
      .where({ kind: 'renewal' })
      .andWhere('domain', 'like', 'auto-%')
      .count({ n: '*' })
      .first();
    expect(Number(renewals!.n)).to.equal(40);
  });
});
