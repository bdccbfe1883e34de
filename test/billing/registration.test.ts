import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { EnvironmentAdapters } from '../../src/tokens.js';
import { eachStore } from '../support/stores.js';
import { bearer, startApi, type TestApi } from '../support/system.js';

/** registration (domain.register, class 2), charged at the price list, in atomic phases. */
let crashAfterRegistry = false;
const wrapSandbox = (a: EnvironmentAdapters): EnvironmentAdapters => ({
  ...a,
  registrar: Object.assign(Object.create(a.registrar), {
    register: async (req: Parameters<NonNullable<typeof a.registrar.register>>[0]) => {
      const r = await a.registrar.register!(req);
      if (crashAfterRegistry) {
        crashAfterRegistry = false;
        throw new Error('process killed between the registry call and the charge');
      }
      return r;
    },
  }),
});

eachStore('Registration (issue 3)', (kind) => {
  let api: TestApi;
  let key: string;
  let keyId: string;
  before(async () => {
    api = await startApi(kind, { wrapSandbox });
    const k = await api.issueKey({
      environment: 'test',
      rights: ['domain.register', 'domain.read', 'billing.read'],
      label: 'shop',
      conditions: { cidr: '127.0.0.0/8', spend_limit: { amount: 900_000, currency: 'UAH' } },
    });
    key = k.secret;
    keyId = k.id;
  });
  after(async () => api.close());

  const register = (body: unknown, idem = randomUUID(), secret = key) =>
    api.call('/v1/domains', { method: 'POST', headers: { ...bearer(secret), 'idempotency-key': idem }, json: body });
  const balance = async () => (await api.call('/v1/billing/balance', { headers: bearer(key) })).body.balance.amount as number;
  const ledgerFor = async (domain: string) => api.system.store.knex('ledger_entries').where({ domain }).orderBy('id');
  const walletMatchesLedger = async () => {
    const s = api.system.store;
    expect(await s.wallets.balance(api.demo.accountId, 'test')).to.equal(await s.ledger.sum(api.demo.accountId, 'test'));
  };

  it("registers, charges the price list, and the new domain carries the key's label", async () => {
    const before = await balance();
    const r = await register({ domain: 'new-shop.com.ua', years: 2 });
    expect(r.status, JSON.stringify(r.body)).to.equal(201);
    expect(r.body).to.include({ domain: 'new-shop.com.ua', auto_renew: true });
    expect(r.body.labels).to.deep.equal(['shop']);
    expect(r.body.charge.amount).to.deep.equal({ amount: 80_000, currency: 'UAH' });
    expect(await balance()).to.equal(before - 80_000);
    const read = await api.call('/v1/domains/new-shop.com.ua', { headers: bearer(key) });
    expect(read.status).to.equal(200);
    const [entry] = await ledgerFor('new-shop.com.ua');
    expect(entry).to.include({ status: 'posted', kind: 'registration', key_id: keyId });
    await walletMatchesLedger();
  });

  it('every owner gets a notice (what, which key, amount, when) in uk and en', async () => {
    const cookie = await api.signIn();
    const notices = await api.call('/v1/account/notices', { headers: { cookie } });
    const n = notices.body.data.find((x: any) => x.kind === 'domain.registered');
    expect(n.message.en)
      .to.contain('new-shop.com.ua')
      .and.contain(keyId)
      .and.contain('800.00 UAH')
      .and.match(/Time: \d{4}-/);
    expect(n.message.uk).to.contain('new-shop.com.ua').and.contain(keyId).and.contain('800.00 грн');
  });

  it('a taken name is 409 domain_taken with its date and a check_alternatives action (seed 7)', async () => {
    const r = await register({ domain: 'taken-shop.com.ua', years: 1 });
    expect(r.status).to.equal(409);
    expect(r.body.error.code).to.equal('domain_taken');
    expect(r.body.error.message.en).to.contain('taken-shop.com.ua').and.contain('2031-03-14');
    expect(r.body.error.message.uk).to.contain('taken-shop.com.ua').and.contain('2031-03-14');
    expect(r.body.error.actions).to.deep.equal([{ type: 'check_alternatives', href: '/v1/search?q=taken-shop' }]);
  });

  it('a registry failure charges nothing', async () => {
    const before = await balance();
    const r = await register({ domain: 'fail-shop.com.ua', years: 1 });
    expect(r.status).to.equal(502);
    expect(r.body.error.code).to.equal('registry_failure');
    expect(await balance()).to.equal(before);
    const entries = await ledgerFor('fail-shop.com.ua');
    expect(entries.map((e: any) => e.status)).to.deep.equal(['voided']);
    expect((await api.call('/v1/key', { headers: bearer(key) })).body.spend.used.amount).to.equal(80_000);
    await walletMatchesLedger();
  });

  it('not enough balance is 402 insufficient_funds with an action to top up; nothing changes', async () => {
    const rich = await api.issueKey({
      environment: 'test',
      rights: ['domain.register'],
      label: 'shop',
      conditions: { cidr: '127.0.0.0/8', spend_limit: { amount: 100_000_000, currency: 'UAH' } },
    });
    const before = await balance();
    const r = await register({ domain: 'expensive-shop.io', years: 10 }, randomUUID(), rich.secret); // 18 000 UAH > balance
    expect(r.status).to.equal(402);
    expect(r.body.error.code).to.equal('insufficient_funds');
    expect(r.body.error.actions[0]).to.deep.equal({ type: 'top_up', href: '/v1/billing/topups' });
    expect(await balance()).to.equal(before);
    expect(await ledgerFor('expensive-shop.io')).to.deep.equal([]);
  });

  it("a charge past the key's spend limit is 402 spend_limit_exceeded saying what is left", async () => {
    const r = await register({ domain: 'too-much-shop.io', years: 5 }); // 9 000 UAH; 8 200 left
    expect(r.status).to.equal(402);
    expect(r.body.error.code).to.equal('spend_limit_exceeded');
    expect(r.body.error.message.en).to.contain('8200.00 UAH is left');
    expect(r.body.error.message.uk).to.contain('лишилося 8200.00 грн');
  });

  it('the right is checked: a key without domain.register is 403; a named key cannot register other names', async () => {
    const named = await api.issueKey({
      environment: 'test',
      rights: ['domain.register'],
      domains: ['only-this.com.ua'],
      conditions: { cidr: '127.0.0.0/8', spend_limit: { amount: 100_000, currency: 'UAH' } },
    });
    const r = await register({ domain: 'something-else.com.ua', years: 1 }, randomUUID(), named.secret);
    expect(r.status).to.equal(403);
    expect(r.body.error.code).to.equal('right_missing');
    const ok = await register({ domain: 'only-this.com.ua', years: 1 }, randomUUID(), named.secret);
    expect(ok.status).to.equal(201);
    expect(ok.body.labels).to.deep.equal([]);
  });

  it('own domain again is 409 domain_already_yours; unknown TLD is 422', async () => {
    expect((await register({ domain: 'new-shop.com.ua', years: 1 })).body.error.code).to.equal('domain_already_yours');
    const r = await register({ domain: 'x-shop.xyz', years: 1 });
    expect(r.status).to.equal(422);
    expect(r.body.error.code).to.equal('tld_not_supported');
  });

  it('a crash between the registry call and the charge, then a retry with the same Idempotency-Key: one domain, one charge', async () => {
    const idem = randomUUID();
    const before = await balance();
    crashAfterRegistry = true;
    const crashed = await register({ domain: 'crash-shop.com.ua', years: 1 }, idem);
    expect(crashed.status).to.equal(500);
    // The registry has the name; our charge is pending, the domain not yet ours.
    expect(await api.system.store.sandboxRegistry.find('crash-shop.com.ua')).to.not.equal(null);
    expect((await ledgerFor('crash-shop.com.ua')).map((e: any) => e.status)).to.deep.equal(['pending']);
    const retry = await register({ domain: 'crash-shop.com.ua', years: 1 }, idem);
    expect(retry.status, JSON.stringify(retry.body)).to.equal(201);
    const again = await register({ domain: 'crash-shop.com.ua', years: 1 }, idem);
    expect(again.headers.get('idempotent-replayed')).to.equal('true');
    expect(again.body).to.deep.equal(retry.body);
    const entries = await ledgerFor('crash-shop.com.ua');
    expect(entries.map((e: any) => e.status)).to.deep.equal(['posted']);
    expect(await balance()).to.equal(before - 40_000);
    expect(
      await api.system.store
        .knex('domains')
        .where({ name: 'crash-shop.com.ua' })
        .count({ n: '*' })
        .first()
        .then((r: any) => Number(r.n)),
    ).to.equal(1);
    await walletMatchesLedger();
  });

  it('transactions are cursor pages of the ledger, newest first', async () => {
    const p1 = await api.call('/v1/billing/transactions?limit=2', { headers: bearer(key) });
    expect(p1.status).to.equal(200);
    expect(p1.body.data).to.have.length(2);
    expect(p1.body.data[0].amount.currency).to.equal('UAH');
    const p2 = await api.call(`/v1/billing/transactions?limit=200&cursor=${p1.body.next_cursor}`, { headers: bearer(key) });
    expect(p2.body.data.at(-1).kind).to.equal('grant');
  });
});
