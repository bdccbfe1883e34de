import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { TOKENS } from '../../src/tokens.js';
import { eachStore } from '../support/stores.js';
import { bearer, startApi, type TestApi } from '../support/system.js';

eachStore('Renewal, spend limits, top-ups (issue 3)', (kind) => {
  let api: TestApi;
  before(async () => {
    api = await startApi(kind);
  });
  after(async () => api.close());

  const write = (method: string, path: string, secret: string, json: unknown) =>
    api.call(path, { method, headers: { ...bearer(secret), 'idempotency-key': randomUUID() }, json });
  const moneyKey = async (rights: string[], limitKopiykas: number, extra: Record<string, unknown> = {}) =>
    api.issueKey({
      environment: 'test',
      rights,
      domains: ['domivka-demo.com.ua', 'domivka-demo.dev'],
      conditions: { cidr: '127.0.0.0/8', spend_limit: { amount: limitKopiykas, currency: 'UAH' } },
      ...extra,
    });

  it('renews: the expiry moves by the years bought, the price is charged, owners are told', async () => {
    const k = await moneyKey(['domain.renew', 'domain.read'], 1_000_000);
    const before = (await api.call('/v1/domains/domivka-demo.dev', { headers: bearer(k.secret) })).body.expires_at as string;
    const r = await write('POST', '/v1/domains/domivka-demo.dev/renewals', k.secret, { years: 2 });
    expect(r.status, JSON.stringify(r.body)).to.equal(201);
    expect(r.body.expires_at).to.equal(`${Number(before.slice(0, 4)) + 2}${before.slice(4)}`);
    expect(r.body.charge.amount).to.deep.equal({ amount: 130_000, currency: 'UAH' });
    const cookie = await api.signIn();
    const n = (await api.call('/v1/account/notices', { headers: { cookie } })).body.data[0];
    expect(n.kind).to.equal('domain.renewed');
    expect(n.message.en).to.contain(k.id).and.contain('1300.00 UAH');
  });

  it('50 concurrent renewals against a limit that allows exactly 3: exactly 3 succeed', async function () {
    this.timeout(120_000);
    const k = await moneyKey(['domain.renew'], 120_000); // com.ua renews at 400 UAH a year: 3 × 400 = 1200
    const balanceBefore = await api.system.store.wallets.balance(api.demo.accountId, 'test');
    const results = await Promise.all(
      Array.from({ length: 50 }, () => write('POST', '/v1/domains/domivka-demo.com.ua/renewals', k.secret, { years: 1 })),
    );
    const ok = results.filter((r) => r.status === 201);
    const refused = results.filter((r) => r.status === 402);
    expect(ok, results.map((r) => `${r.status}:${r.body?.error?.code ?? ''}`).join(' ')).to.have.length(3);
    expect(refused).to.have.length(47);
    for (const r of refused) expect(r.body.error.code).to.equal('spend_limit_exceeded');
    // Serialised, not refused: the three renewals moved the expiry three times, one after another.
    expect(new Set(ok.map((r) => r.body.expires_at)).size).to.equal(3);
    const me = await api.call('/v1/key', { headers: bearer(k.secret) });
    expect(me.body.spend.used.amount).to.equal(120_000);
    expect(me.body.spend.remaining.amount).to.equal(0);
    const s = api.system.store;
    expect(await s.wallets.balance(api.demo.accountId, 'test')).to.equal(balanceBefore - 120_000);
    expect(await s.wallets.balance(api.demo.accountId, 'test')).to.equal(await s.ledger.sum(api.demo.accountId, 'test'));
    const registry = await s.sandboxRegistry.find('domivka-demo.com.ua');
    const ours = await s.domains.find(api.demo.accountId, 'test', 'domivka-demo.com.ua');
    expect(registry!.registeredUntil).to.equal(ours!.expiresOn);
  });

  it("regression: a renewal reads the current expiry from the store, not from a cached copy another process's renewal has not yet dropped (was 502 registry_failure)", async () => {
    const k = await moneyKey(['domain.renew', 'domain.read'], 1_000_000);
    const s = api.system.store;
    const name = 'domivka-demo.dev';
    const cached = (await s.domains.find(api.demo.accountId, 'test', name))!.expiresOn!;
    // Another process renews: the row and the registry move a year on, and this process has not heard yet
    // (the change feed's drop is on its way; here it never comes, as the rows are written behind our back).
    const moved = `${Number(cached.slice(0, 4)) + 1}${cached.slice(4)}`;
    await s.knex('domains').where({ name, environment: 'test' }).update({ expires_on: moved });
    await s.knex('sandbox_registry').where({ domain: name }).update({ registered_until: moved });
    expect((await s.domains.find(api.demo.accountId, 'test', name))!.expiresOn, 'this process still has the old copy').to.equal(cached);
    const r = await write('POST', `/v1/domains/${name}/renewals`, k.secret, { years: 1 });
    expect(r.status, JSON.stringify(r.body)).to.equal(201);
    expect(r.body.expires_at).to.equal(`${Number(moved.slice(0, 4)) + 1}${moved.slice(4)}`);
    expect((await s.sandboxRegistry.find(name))!.registeredUntil).to.equal(r.body.expires_at);
  });

  it('regression: automatic renewal switched off while a renewal waits on the registry stays off (the renewal wrote back the row it read before the call)', async () => {
    const k = await moneyKey(['domain.renew', 'domain.read'], 1_000_000);
    const name = 'domivka-demo.dev';
    const s = api.system.store;
    await s.knex('domains').where({ name, environment: 'test' }).update({ auto_renew: true });
    const registrar = api.system.get(TOKENS.Environments).get('test').registrar as { renew: (req: unknown) => Promise<unknown> };
    const original = registrar.renew;
    // The owner's PATCH lands while the registry is working on the renewal.
    registrar.renew = async (req: unknown) => {
      const off = await write('PATCH', `/v1/domains/${name}`, k.secret, { auto_renew: false });
      expect(off.status, JSON.stringify(off.body)).to.equal(200);
      return original.call(registrar, req);
    };
    try {
      const r = await write('POST', `/v1/domains/${name}/renewals`, k.secret, { years: 1 });
      expect(r.status, JSON.stringify(r.body)).to.equal(201);
      expect(r.body.auto_renew, 'the renewal answers the row as stored').to.equal(false);
    } finally {
      registrar.renew = original;
    }
    expect((await s.domains.find(api.demo.accountId, 'test', name))!.autoRenew).to.equal(false);
    await s.knex('domains').where({ name, environment: 'test' }).update({ auto_renew: true });
  });

  it('PATCH switches automatic renewal (domain.renew)', async () => {
    const k = await moneyKey(['domain.renew'], 100_000);
    const r = await write('PATCH', '/v1/domains/domivka-demo.dev', k.secret, { auto_renew: false });
    expect(r.status).to.equal(200);
    expect(r.body.auto_renew).to.equal(false);
    const ro = await api.issueKey({ environment: 'test', rights: ['domain.read'], domains: ['domivka-demo.dev'] });
    const denied = await write('PATCH', '/v1/domains/domivka-demo.dev', ro.secret, { auto_renew: true });
    expect(denied.status).to.equal(403);
    expect(denied.body.error.code).to.equal('right_missing');
  });

  it('tops up from the saved card; the spend limit counts top-ups', async () => {
    const k = await api.issueKey({
      environment: 'test',
      template: 'billing',
      conditions: { cidr: '127.0.0.0/8', spend_limit: { amount: 150_000, currency: 'UAH' } },
    });
    const before = (await api.call('/v1/billing/balance', { headers: bearer(k.secret) })).body.balance.amount;
    const r = await write('POST', '/v1/billing/topups', k.secret, { amount: 100_000 });
    expect(r.status, JSON.stringify(r.body)).to.equal(201);
    expect(r.body).to.deep.include({
      status: 'succeeded',
      amount: { amount: 100_000, currency: 'UAH' },
      card: { brand: 'visa', last4: '4242' },
    });
    expect(r.body.balance.amount).to.equal(before + 100_000);
    const over = await write('POST', '/v1/billing/topups', k.secret, { amount: 60_000 });
    expect(over.status).to.equal(402);
    expect(over.body.error.code).to.equal('spend_limit_exceeded');
    expect(over.body.error.message.en).to.contain('500.00 UAH is left');
    const tx = await api.call('/v1/billing/transactions?limit=1', { headers: bearer(k.secret) });
    expect(tx.body.data[0]).to.include({ kind: 'topup', status: 'posted', key_id: k.id });
  });

  it('a declined card is 402 card_declined and changes nothing; a gateway failure is 502', async () => {
    const k = await api.issueKey({
      environment: 'test',
      template: 'billing',
      conditions: { cidr: '127.0.0.0/8', spend_limit: { amount: 10_000_000, currency: 'UAH' } },
    });
    const s = api.system.store;
    const before = await s.wallets.balance(api.demo.accountId, 'test');
    await s.savedCards.save({
      accountId: api.demo.accountId,
      environment: 'test',
      brand: 'visa',
      last4: '0002',
      paymentMethodRef: 'pm_sandbox_0002',
      customerRef: null,
    });
    const declined = await write('POST', '/v1/billing/topups', k.secret, { amount: 50_000 });
    expect(declined.status).to.equal(402);
    expect(declined.body.error.code).to.equal('card_declined');
    expect(declined.body.error.message.en).to.contain('0002');
    await s.savedCards.save({
      accountId: api.demo.accountId,
      environment: 'test',
      brand: 'visa',
      last4: '0119',
      paymentMethodRef: 'pm_sandbox_0119',
      customerRef: null,
    });
    const failed = await write('POST', '/v1/billing/topups', k.secret, { amount: 50_000 });
    expect(failed.status).to.equal(502);
    expect(failed.body.error.code).to.equal('payment_failed');
    expect(await s.wallets.balance(api.demo.accountId, 'test')).to.equal(before);
    expect((await api.call('/v1/key', { headers: bearer(k.secret) })).body.spend.used.amount).to.equal(0);
    await s.savedCards.save({
      accountId: api.demo.accountId,
      environment: 'test',
      brand: 'visa',
      last4: '4242',
      paymentMethodRef: 'pm_sandbox_4242',
      customerRef: null,
    });
    const tooSmall = await write('POST', '/v1/billing/topups', k.secret, { amount: 500 });
    expect(tooSmall.status).to.equal(422);
    expect(tooSmall.body.error.code).to.equal('validation_failed');
  });

  it('keys see notices about domains they may read, and billing ones only with billing.read', async () => {
    const dev = await api.issueKey({ environment: 'test', rights: ['domain.read'], domains: ['domivka-demo.dev'] });
    const seen = (await api.call('/v1/notices?limit=200', { headers: bearer(dev.secret) })).body.data;
    expect(seen.length).to.be.greaterThan(0);
    expect(seen.every((n: any) => n.domain === 'domivka-demo.dev')).to.equal(true);
    const billing = await api.issueKey({ environment: 'test', rights: ['billing.read'] });
    const b = (await api.call('/v1/notices?limit=200', { headers: bearer(billing.secret) })).body.data;
    expect(b.length).to.be.greaterThan(0);
    expect(b.every((n: any) => n.kind.startsWith('billing.'))).to.equal(true);
    // One entry per notice, however many owners received it.
    expect(new Set(b.map((n: any) => n.id)).size).to.equal(b.length);
  });
});
