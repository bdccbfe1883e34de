import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { yearlyPrice } from '../../core/domains/price-list.js';
import { TOKENS } from '../../src/tokens.js';
import { eachStore } from '../support/stores.js';
import { bearer, startApi, type TestApi } from '../support/system.js';

const DOMAIN = 'domivka-demo.dev'; // seeded: 75 days left, auto-renew on
const PRICE = yearlyPrice(DOMAIN)!;
const uah = (amount: number) => ({ amount, currency: 'UAH' });

/**
 * README "Automatic renewal": a renewal that follows from a key switching auto-renew on counts against
 * that key's spend limit while the key is valid; once it is revoked, the account's rules (the balance).
 */
eachStore('Automatic renewals count against the spend limit of the key that switched them on', (kind) => {
  let api: TestApi;
  let clock: string;

  beforeEach(async function () {
    this.timeout(60_000);
    api = await startApi(kind);
    clock = (await api.issueKey({ environment: 'test', template: 'sandbox_clock' })).secret;
    // Only this domain renews in these tests, so the balance speaks of it alone.
    await api.system.store.knex('domains').whereNot({ name: DOMAIN }).update({ auto_renew: false });
  });
  afterEach(async () => api?.close());

  const write = (method: string, path: string, secret: string, json?: unknown) =>
    api.call(path, { method, headers: { ...bearer(secret), 'idempotency-key': randomUUID() }, ...(json !== undefined ? { json } : {}) });
  /** A renewals key with this monthly limit switches auto-renew off and on again: the switch is its own. */
  const switchOnWith = async (limit: number) => {
    const key = await api.issueKey({
      environment: 'test',
      template: 'renewals',
      label: 'prod',
      conditions: { cidr: '127.0.0.0/8', spend_limit: uah(limit) },
    });
    for (const on of [false, true]) {
      const r = await write('PATCH', `/v1/domains/${DOMAIN}`, key.secret, { auto_renew: on });
      expect(r.status, JSON.stringify(r.body)).to.equal(200);
    }
    return key;
  };
  const balance = () => api.system.get(TOKENS.Accounting).balance(api.demo.accountId, 'test');
  const expiry = async () => (await api.system.store.domains.find(api.demo.accountId, 'test', DOMAIN))!.expiresOn;
  const failures = async () =>
    (await api.system.store.knex('events').where({ type: 'domain.auto_renew_failed', subject: `domain:${DOMAIN}` })).map(
      (e: { data: unknown }) => (typeof e.data === 'string' ? JSON.parse(e.data) : e.data) as { reason: string },
    );

  it('a renewal priced above what is left of the key’s limit is refused: nothing charged, the owners told', async () => {
    const key = await switchOnWith(PRICE - 1);
    const [money, until] = [await balance(), await expiry()];
    const moved = await write('POST', '/v1/sandbox/clock', clock, { advance: 'P70D' });
    expect(moved.status, JSON.stringify(moved.body)).to.equal(200);
    expect(moved.body.lifecycle.renewalFailed).to.equal(1);
    expect(await expiry()).to.equal(until);
    expect(await balance()).to.equal(money);
    expect((await failures()).map((f) => f.reason)).to.deep.equal(['spend_limit_exceeded']);
    const notices = await api.system.store.knex('notices').where({ kind: 'domain.auto_renew_failed', domain: DOMAIN });
    expect(notices.length, 'every owner').to.equal(1);
    expect(notices[0].message_en).to.include('spend limit of the key that switched automatic renewal on');
    expect((await api.call('/v1/key', { headers: bearer(key.secret) })).body.spend.used.amount).to.equal(0);
  });

  it('within the limit the renewal is made and counted against the key’s spend', async () => {
    const key = await switchOnWith(PRICE + 100);
    const [money, until] = [await balance(), await expiry()];
    const moved = await write('POST', '/v1/sandbox/clock', clock, { advance: 'P70D' });
    expect(moved.body.lifecycle.renewed, JSON.stringify(moved.body)).to.equal(1);
    expect(await expiry()).to.not.equal(until);
    expect(await balance()).to.equal(money - PRICE);
    const spend = (await api.call('/v1/key', { headers: bearer(key.secret) })).body.spend;
    expect(spend.used.amount).to.equal(PRICE);
    expect(spend.remaining.amount).to.equal(100);
  });

  it('once the key is revoked the account’s rules apply: the balance alone decides', async () => {
    const key = await switchOnWith(PRICE - 1);
    const revoke = await api.call(`/v1/account/keys/${key.id}`, { method: 'DELETE', headers: { cookie: await api.signIn() } });
    expect(revoke.status, JSON.stringify(revoke.body)).to.be.oneOf([200, 204]);
    const money = await balance();
    const moved = await write('POST', '/v1/sandbox/clock', clock, { advance: 'P70D' });
    expect(moved.body.lifecycle.renewed, JSON.stringify(moved.body)).to.equal(1);
    expect(await balance()).to.equal(money - PRICE);
    expect(await failures()).to.deep.equal([]);
  });
});
