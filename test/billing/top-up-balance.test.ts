import { expect } from 'chai';
import type { ChargeRequest } from '../../core/billing/ports/payments.port.js';
import type { TopUpView } from '../../core/billing/top-up-balance.use-case.js';
import type { ApiKey } from '../../core/kernel/caller.js';
import type { Checkpoint, Checkpoints } from '../../core/kernel/checkpoints.port.js';
import { sandboxCard } from '../../adapters/payments/sandbox/sandbox.adapter.js';
import type { EnvironmentAdapters } from '../../src/tokens.js';
import { TOKENS } from '../../src/tokens.js';
import { kyivMonth } from '../../core/kernel/dates.js';
import { apiKeyFixture } from '../support/api-key.js';
import { refusal } from '../support/refusal.js';
import { eachStore } from '../support/stores.js';
import { startApi, type TestApi } from '../support/system.js';

/**
 * TopUpBalance's phases as stored (billing.topup): the pending row the charge is made under, what the card
 * processor is asked, the row, ledger entry and event each outcome leaves, and the recovery points a retry
 * resumes from. The HTTP tests (renewal-and-topups) see the answers; these see what is written.
 */
interface Charged {
  readonly request: ChargeRequest;
  /** The top-up's row as the charge was being made. */
  readonly row: unknown;
}
let onCharge: (req: ChargeRequest) => Promise<void> = async () => {};
const charges: Charged[] = [];

const wrapSandbox = (a: EnvironmentAdapters): EnvironmentAdapters => ({
  ...a,
  payments: Object.assign(Object.create(a.payments), {
    charge: async (req: ChargeRequest) => {
      await onCharge(req);
      return a.payments.charge(req);
    },
  }),
});

eachStore('TopUpBalance: what each outcome stores (billing.topup)', (kind) => {
  let api: TestApi;
  let key: ApiKey;
  before(async () => {
    api = await startApi(kind, { wrapSandbox });
    const issued = await api.issueKey({
      environment: 'test',
      template: 'billing',
      conditions: { cidr: '127.0.0.0/8', spend_limit: { amount: 10_000_000, currency: 'UAH' } },
    });
    key = (await api.system.store.keys.findById(issued.id))!;
    onCharge = async (request) => {
      const id = request.idempotencyKey;
      charges.push({ request, row: id ? await api.system.store.topUps.find(id) : null });
    };
  });
  after(async () => {
    onCharge = async () => {};
    await api.close();
  });
  beforeEach(() => {
    charges.length = 0;
  });

  const useCard = (last4: string) => api.system.store.savedCards.save(sandboxCard(api.demo.accountId, 'test', last4));
  /** Checkpoints that resume from `last` and record each point reached, each phase one transaction. */
  const checkpoints = (last: Checkpoint | null = null) => {
    const reached: Checkpoint[] = [];
    const cp: Checkpoints = {
      last,
      reach: (point, fn) =>
        api.system.store.uow.transaction(async () => {
          const data = await fn();
          reached.push({ point, data });
          return data;
        }),
    };
    return { cp, reached };
  };
  const topUp = () => api.system.get(TOKENS.TopUpBalance);
  const eventsOf = async (topUpId: string) =>
    (await api.system.store.knex('events').where({ subject: `topup:${topUpId}` })).map((e: any) => ({
      type: e.type,
      account: e.account_id,
      environment: e.environment,
      actor: e.actor,
      data: typeof e.data === 'string' ? JSON.parse(e.data) : e.data,
    }));
  const monthSpend = () => api.system.store.spend.spent(key.id, kyivMonth(api.system.get(TOKENS.Clock).now()).month);
  const spent = async () => (await api.system.store.knex('ledger_entries').where({ key_id: key.id })).length;

  it('a top-up that succeeds: charged under a pending row, then the row succeeded, the credit described and the event recorded', async () => {
    await useCard('4242');
    const spendBefore = await monthSpend();
    const { cp, reached } = checkpoints();
    const view = await topUp().execute(key, 25_000, cp);
    expect(await monthSpend(), 'the spend limit counts the top-up').to.equal(spendBefore + 25_000);

    expect(reached.map((r) => r.point)).to.deep.equal(['reserved', 'credited']);
    const reserved = reached[0]!.data as { topUpId: string; at: string; card: { last4: string } };
    expect(reserved.topUpId).to.equal(view.id);
    expect(reserved.at).to.equal(view.created_at);
    expect(reserved.card).to.include({ brand: 'visa', last4: '4242' });
    expect((reached[1]!.data as { result: TopUpView }).result).to.deep.equal(view);

    expect(charges).to.have.length(1);
    const charge = charges[0]!;
    expect(charge.request).to.include({
      amount: 25_000,
      currency: 'UAH',
      idempotencyKey: view.id,
      description: `Domivka balance top-up ${view.id}`,
    });
    expect(charge.request.card.last4).to.equal('4242');
    expect(charge.row, 'the row the charge is made under').to.include({
      id: view.id,
      accountId: api.demo.accountId,
      environment: 'test',
      keyId: key.id,
      amount: 25_000,
      status: 'pending',
      providerId: null,
      failureCode: null,
    });

    const row = await api.system.store.topUps.find(view.id);
    expect(row).to.include({ status: 'succeeded', failureCode: null });
    expect(row!.providerId).to.match(/^pi_sandbox_[0-9a-f]{24}$/);
    expect(view).to.deep.include({
      status: 'succeeded',
      amount: { amount: 25_000, currency: 'UAH' },
      card: { brand: 'visa', last4: '4242' },
    });

    const credit = await api.system.store
      .knex('ledger_entries')
      .where({ key_id: key.id, kind: 'topup' })
      .orderBy('created_at', 'desc')
      .first();
    expect(credit).to.include({ description: 'Top-up from visa •••• 4242', account_id: api.demo.accountId });
    expect(Number(credit.amount)).to.equal(25_000);

    expect(await eventsOf(view.id)).to.deep.equal([
      {
        type: 'billing.topup_succeeded',
        account: api.demo.accountId,
        environment: 'test',
        actor: `key:${key.id}`,
        data: { amount: 25_000, provider_id: row!.providerId, card: { brand: 'visa', last4: '4242' } },
      },
    ]);
  });

  it('a retry past the credit answers what was credited, charging nothing and writing nothing', async () => {
    await useCard('4242');
    const before = await spent();
    const answered = { id: 'earlier', status: 'succeeded' } as unknown as TopUpView;
    const { cp, reached } = checkpoints({ point: 'credited', data: { result: answered } });
    expect(await topUp().execute(key, 25_000, cp)).to.equal(answered);
    expect(charges, 'no charge').to.have.length(0);
    expect(reached).to.deep.equal([]);
    expect(await spent()).to.equal(before);
  });

  it('a declined card: the row is declined with the code, the spend comes back, a failure event is recorded, and 402 names the card', async () => {
    await useCard('0002');
    const spendBefore = await monthSpend();
    const { cp, reached } = checkpoints();
    const e = await refusal(topUp().execute(key, 30_000, cp));
    expect(await monthSpend()).to.equal(spendBefore);
    expect(e.code).to.equal('card_declined');
    expect(e.params).to.deep.equal({ card: 'visa •••• 0002', reason: 'card_declined' });
    expect(reached.map((r) => r.point)).to.deep.equal(['reserved', 'voided']);
    expect(reached[1]!.data).to.deep.equal({});
    const id = (reached[0]!.data as { topUpId: string }).topUpId;
    expect(await api.system.store.topUps.find(id)).to.include({
      status: 'declined',
      providerId: null,
      failureCode: 'card_declined',
      amount: 30_000,
    });
    expect(await eventsOf(id)).to.deep.equal([
      {
        type: 'billing.topup_failed',
        account: api.demo.accountId,
        environment: 'test',
        actor: `key:${key.id}`,
        data: { amount: 30_000, reason: 'declined', code: 'card_declined' },
      },
    ]);
  });

  it('a gateway failure: the row is failed (not declined) with the code, and 502 payment_failed carries it', async () => {
    await useCard('0119');
    const { cp, reached } = checkpoints();
    const e = await refusal(topUp().execute(key, 30_000, cp));
    expect(e.code).to.equal('payment_failed');
    expect(e.params).to.deep.equal({ code: 'processing_error' });
    expect(reached.map((r) => r.point)).to.deep.equal(['reserved', 'voided']);
    const id = (reached[0]!.data as { topUpId: string }).topUpId;
    expect(await api.system.store.topUps.find(id)).to.include({ status: 'failed', providerId: null, failureCode: 'processing_error' });
    expect((await eventsOf(id)).map((x) => [x.type, x.data])).to.deep.equal([
      ['billing.topup_failed', { amount: 30_000, reason: 'gateway', code: 'processing_error' }],
    ]);
  });

  it('an account with no saved card is no_saved_card, before anything is reserved or charged', async () => {
    const stranger = apiKeyFixture({ accountId: 'acc-without-card', environment: 'test' });
    const { cp, reached } = checkpoints();
    const e = await refusal(topUp().execute(stranger, 25_000, cp));
    expect(e.code).to.equal('no_saved_card');
    expect(reached).to.deep.equal([]);
    expect(charges).to.have.length(0);
    expect(await api.system.store.knex('topups').where({ account_id: 'acc-without-card' })).to.deep.equal([]);
  });
});
