import { expect } from 'chai';
import type { Accounting } from '../../core/billing/accounting.js';
import { DomainError } from '../../core/kernel/errors.js';
import { TOKENS } from '../../src/tokens.js';
import { eachStore } from '../support/stores.js';
import { startApi, type TestApi } from '../support/system.js';
import { refusal } from '../support/refusal.js';

/**
 * Accounting (seed 2.3, 8; DESIGN: a charge that would pass the limit is refused whole) over the real ledger,
 * wallets and spend counters: the rules every route that moves money relies on, pinned one by one.
 */
eachStore('Accounting: charges, voids, credits and the monthly spend limit', (kind) => {
  let api: TestApi;
  let accounting: Accounting;
  let account: string;
  before(async () => {
    api = await startApi(kind);
    api.clock.set(new Date('2026-11-21T10:00:00Z'));
    accounting = api.system.get(TOKENS.Accounting);
    account = api.demo.accountId;
  });
  after(async () => api.close());

  const store = () => api.system.store;
  const balance = () => accounting.balance(account, 'test');
  const inTx = <T>(fn: () => Promise<T>) => store().uow.transaction(fn);
  const charge = (amount: number, key: { id: string; spendLimit: number | null } | null = null) =>
    inTx(() =>
      accounting.reserve({
        accountId: account,
        environment: 'test',
        amount,
        kind: 'renewal',
        domain: 'acc.example',
        description: 'test',
        key,
      }),
    );

  it('a charge is a positive whole number of kopiykas: anything else is a programming error and changes nothing', async () => {
    const before = await balance();
    for (const amount of [0, -100, 1.5, Number.NaN, 2 ** 53]) {
      let caught: unknown;
      try {
        await charge(amount);
      } catch (e) {
        caught = e;
      }
      expect(caught, String(amount)).to.be.instanceOf(Error).and.not.instanceOf(DomainError);
      expect((caught as Error).message).to.equal(`a charge must be positive kopiykas, got ${amount}`);
    }
    expect(await balance()).to.equal(before);
    const one = await charge(1, { id: 'k-one', spendLimit: null });
    expect(one).to.deep.include({
      accountId: account,
      environment: 'test',
      amount: -1,
      kind: 'renewal',
      status: 'pending',
      keyId: 'k-one',
      domain: 'acc.example',
      description: 'test',
    });
    expect(one.createdAt.toISOString()).to.equal(api.clock.now().toISOString());
    expect(await store().ledger.find(one.id)).to.deep.include({ amount: -1, status: 'pending' });
    expect(await balance()).to.equal(before - 1);
    // A key without a limit is not counted: nothing to check against.
    expect(await store().spend.spent('k-one', '2026-11')).to.equal(0);
  });

  it('the key’s monthly limit: up to it is allowed, past it the charge is refused whole saying what is left', async () => {
    const key = { id: 'k-limit', spendLimit: 1_000 };
    const before = await balance();
    await charge(700, key);
    const e = await refusal(charge(400, key));
    expect(e.code).to.equal('spend_limit_exceeded');
    expect(e.params).to.deep.equal({ key_id: 'k-limit', month: '2026-11', limit: '10.00', spent: '7.00', left: '3.00', amount: '4.00' });
    expect(await store().spend.spent('k-limit', '2026-11')).to.equal(700);
    expect(await balance()).to.equal(before - 700);
    await charge(300, key); // exactly the limit
    expect(await store().spend.spent('k-limit', '2026-11')).to.equal(1_000);
    expect((await refusal(charge(1, key))).params).to.include({ spent: '10.00', left: '0.00', amount: '0.01' });
  });

  it('the month is Kyiv’s: at 22:30 UTC on 30 November it is already December, with a new allowance', async () => {
    const start = api.clock.now();
    const key = { id: 'k-month', spendLimit: 500 };
    try {
      api.clock.set(new Date('2026-11-30T21:30:00Z')); // 23:30 in Kyiv
      await charge(500, key);
      expect((await refusal(charge(1, key))).params).to.include({ month: '2026-11' });
      api.clock.set(new Date('2026-11-30T22:30:00Z')); // 00:30 on 1 December in Kyiv
      await charge(500, key);
      expect(await store().spend.spent('k-month', '2026-11')).to.equal(500);
      expect(await store().spend.spent('k-month', '2026-12')).to.equal(500);
    } finally {
      api.clock.set(start);
    }
  });

  it('not enough balance is insufficient_funds with the balance and the amount; the spend counted is rolled back', async () => {
    const bal = await balance();
    const key = { id: 'k-poor', spendLimit: bal + 1_000_000 };
    const e = await refusal(charge(bal + 1, key));
    expect(e.code).to.equal('insufficient_funds');
    const uah = (k: number) => `${Math.floor(k / 100)}.${String(k % 100).padStart(2, '0')}`;
    expect(e.params).to.deep.equal({ balance: uah(bal), amount: uah(bal + 1) });
    expect(await balance()).to.equal(bal);
    expect(await store().spend.spent('k-poor', '2026-11')).to.equal(0);
  });

  it('a void gives back the money and the key’s spend, once; a posted or unknown entry is left alone', async () => {
    const key = { id: 'k-void', spendLimit: 10_000 };
    const before = await balance();
    const entry = await charge(2_500, key);
    expect(await balance()).to.equal(before - 2_500);
    await inTx(() => accounting.void(entry.id));
    expect(await store().ledger.find(entry.id)).to.deep.include({ status: 'voided' });
    expect(await balance()).to.equal(before);
    expect(await store().spend.spent('k-void', '2026-11')).to.equal(0);
    await inTx(() => accounting.void(entry.id));
    expect(await balance()).to.equal(before);
    expect(await store().spend.spent('k-void', '2026-11')).to.equal(0);

    const kept = await charge(1_200, key);
    await inTx(() => accounting.post(kept.id));
    await inTx(() => accounting.void(kept.id));
    expect(await store().ledger.find(kept.id)).to.deep.include({ status: 'posted' });
    expect(await balance()).to.equal(before - 1_200);
    expect(await store().spend.spent('k-void', '2026-11')).to.equal(1_200);
    await inTx(() => accounting.void('no-such-entry'));
    expect(await balance()).to.equal(before - 1_200);
  });

  it('spend released through a key comes back in the month it was counted; without a key nothing is released', async () => {
    const key = { id: 'k-release', spendLimit: 1_000 };
    await inTx(() => accounting.reserveSpend(key, 800, api.clock.now()));
    await inTx(() => accounting.reserveSpend(null, 5_000, api.clock.now()));
    await inTx(() => accounting.releaseSpend('k-release', 300, new Date('2026-11-01T00:00:00Z')));
    expect(await store().spend.spent('k-release', '2026-11')).to.equal(500);
    await inTx(() => accounting.releaseSpend(null, 300, api.clock.now()));
    expect(await store().spend.spent('k-release', '2026-11')).to.equal(500);
  });

  it('a credit stands at once: posted, positive, no domain, and in the balance', async () => {
    const before = await balance();
    const entry = await inTx(() =>
      accounting.credit({ accountId: account, environment: 'test', amount: 12_345, kind: 'grant', description: 'gift', keyId: 'k-credit' }),
    );
    expect(entry).to.deep.include({
      amount: 12_345,
      kind: 'grant',
      status: 'posted',
      keyId: 'k-credit',
      domain: null,
      description: 'gift',
    });
    expect(await store().ledger.find(entry.id)).to.deep.include({ amount: 12_345, status: 'posted' });
    expect(await balance()).to.equal(before + 12_345);
    expect(await accounting.balance(account, 'live')).to.equal(await store().wallets.balance(account, 'live'));
  });
});
