import { expect } from 'chai';
import { PaymentError, type ChargeRequest } from '../../../core/billing/ports/payments.port.js';
import { chargeOf, expectPaymentError, paymentsContract } from '../../../test/contracts/payments.contract.js';
import { MAGIC_LAST4, SandboxPayments, sandboxCard } from './index.js';

const ACCOUNT = 'acc_sandbox_payments_test';

paymentsContract('sandbox', () => ({
  payments: new SandboxPayments(),
  cards: {
    succeeding: () => sandboxCard(ACCOUNT, 'test', '4242'),
    declining: () => sandboxCard(ACCOUNT, 'test', '0002'),
    failing: () => sandboxCard(ACCOUNT, 'test', '0119'),
  },
  cleanup: async () => {},
}));

describe('sandbox payments specifics (README: magic cards)', () => {
  let payments: SandboxPayments;
  const card = (last4: string) => sandboxCard(ACCOUNT, 'test', last4);

  beforeEach(() => {
    payments = new SandboxPayments();
  });

  it('is named sandbox and documents its magic endings', () => {
    expect(payments.name).to.equal('sandbox');
    expect(MAGIC_LAST4).to.deep.equal({ succeeds: '4242', declined: '0002', insufficientFunds: '9995', gatewayFailure: '0119' });
  });

  it('sandboxCard builds a visa with pm_sandbox_<last4> and no customer', () => {
    expect(sandboxCard(ACCOUNT, 'test', '0002')).to.deep.equal({
      accountId: ACCOUNT,
      environment: 'test',
      brand: 'visa',
      last4: '0002',
      paymentMethodRef: 'pm_sandbox_0002',
      customerRef: null,
    });
    for (const bad of ['', '123', '12345', 'abcd', '42 4']) {
      expect(() => sandboxCard(ACCOUNT, 'test', bad), bad).to.throw(/last4/);
    }
  });

  it('4242 succeeds with a pi_sandbox_<random> id', async () => {
    const { providerId } = await payments.charge(chargeOf(card('4242')));
    expect(providerId).to.match(/^pi_sandbox_[0-9a-f]{24}$/);
    expect(payments.chargeCount).to.equal(1);
  });

  it('0002 is declined with card_declined', async () => {
    const err = await expectPaymentError(payments.charge(chargeOf(card('0002'))), 'declined');
    expect(err.code).to.equal('card_declined');
    expect(err.name).to.equal('PaymentError');
    expect(payments.chargeCount).to.equal(0);
  });

  it('9995 is declined with insufficient_funds', async () => {
    const err = await expectPaymentError(payments.charge(chargeOf(card('9995'))), 'declined');
    expect(err.code).to.equal('insufficient_funds');
    expect(payments.chargeCount).to.equal(0);
  });

  it('0119 is a gateway failure with processing_error', async () => {
    const err = await expectPaymentError(payments.charge(chargeOf(card('0119'))), 'gateway');
    expect(err.code).to.equal('processing_error');
    expect(payments.chargeCount).to.equal(0);
  });

  it('any other ending succeeds', async () => {
    for (const last4 of ['0000', '1111', '0003', '9999', '0118']) {
      const { providerId } = await payments.charge(chargeOf(card(last4)));
      expect(providerId, last4).to.match(/^pi_sandbox_/);
    }
    expect(payments.chargeCount).to.equal(5);
  });

  it('only last4 decides: the brand and the payment method id do not', async () => {
    const mastercard = { ...card('0002'), brand: 'mastercard', paymentMethodRef: 'pm_something_else' };
    expect((await expectPaymentError(payments.charge(chargeOf(mastercard)), 'declined')).code).to.equal('card_declined');
  });

  it('a repeated key charges once, even when the repeats run concurrently', async () => {
    const req = chargeOf(card('4242'));
    const results = await Promise.all(Array.from({ length: 20 }, () => payments.charge({ ...req })));
    expect(new Set(results.map((r) => r.providerId)).size).to.equal(1);
    expect(payments.chargeCount).to.equal(1);
  });

  it('a different card under the same key is an idempotency_error', async () => {
    const req = chargeOf(card('4242'));
    await payments.charge(req);
    const err = await expectPaymentError(payments.charge({ ...req, card: card('1111') }), 'gateway');
    expect(err.code).to.equal('idempotency_error');
    expect(payments.chargeCount).to.equal(1);
  });

  it('ids come from the injected generator when one is given', async () => {
    let n = 0;
    const fixed = new SandboxPayments({ newProviderId: () => `pi_sandbox_fixed${++n}` });
    expect(await fixed.charge(chargeOf(card('4242')))).to.deep.equal({ providerId: 'pi_sandbox_fixed1' });
    expect(await fixed.charge(chargeOf(card('4242')))).to.deep.equal({ providerId: 'pi_sandbox_fixed2' });
  });

  it('refuses a live-environment card with a plain Error (DESIGN: the environments never mix)', async () => {
    const live = sandboxCard(ACCOUNT, 'live', '4242');
    let caught: unknown;
    try {
      await payments.charge(chargeOf(live));
    } catch (e) {
      caught = e;
    }
    expect(caught).to.be.instanceOf(Error).and.not.be.instanceOf(PaymentError);
    expect(payments.chargeCount).to.equal(0);
  });

  it('refuses a currency other than UAH and an idempotency key over 255 characters', async () => {
    const bad: ChargeRequest[] = [
      { ...chargeOf(card('4242')), currency: 'USD' as unknown as 'UAH' },
      chargeOf(card('4242'), { idempotencyKey: 'k'.repeat(256) }),
    ];
    for (const req of bad) {
      let caught: unknown;
      try {
        await payments.charge(req);
      } catch (e) {
        caught = e;
      }
      expect(caught).to.be.instanceOf(Error).and.not.be.instanceOf(PaymentError);
    }
    expect((await payments.charge(chargeOf(card('4242'), { idempotencyKey: 'k'.repeat(255) }))).providerId).to.match(/^pi_sandbox_/);
  });
});
