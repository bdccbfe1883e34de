import { expect } from 'chai';
import { PaymentError, type ChargeRequest, type Payments, type SavedCard } from '../../core/billing/ports/payments.port.js';

/**
 * The payments port's contract (STYLE 5). Every payments adapter runs it: the sandbox always, live
 * adapters (Stripe, …) against nock fixtures of the provider's documented API. The adapter's test supplies
 * the cards, because only the adapter knows which saved cards succeed, are declined or make its provider
 * fail.
 *
 * Idempotency follows Stripe's documented semantics (docs: "Idempotent requests"): the first outcome for a
 * key — a charge or a refusal — is kept and every repeat with that key gets it again; the same key with
 * other parameters is refused. So a retry never charges twice, and a new attempt needs a new key.
 */
export interface PaymentCards {
  /** A saved card whose charges succeed. */
  succeeding(): SavedCard;
  /** A saved card the issuer declines (nothing is charged). */
  declining(): SavedCard;
  /** A saved card whose charges fail at the provider (an outage, not the card's fault). */
  failing(): SavedCard;
}

export interface PaymentsSubject {
  readonly payments: Payments;
  readonly cards: PaymentCards;
  cleanup(): Promise<void>;
}

export type MakePaymentsSubject = () => PaymentsSubject | Promise<PaymentsSubject>;

let keyCounter = 0;
/** An idempotency key no other test uses (Stripe allows up to 255 characters). */
export const newIdempotencyKey = (what = 'charge'): string => `contract-${what}-${process.pid}-${Date.now().toString(36)}-${++keyCounter}`;

/** A top-up charge of `amount` kopiykas (default 250.00 UAH). */
export const chargeOf = (card: SavedCard, overrides: Partial<ChargeRequest> = {}): ChargeRequest => ({
  amount: 25_000,
  currency: 'UAH',
  card,
  idempotencyKey: newIdempotencyKey(),
  description: 'Domivka balance top-up (payments contract)',
  ...overrides,
});

const settle = async (p: Promise<unknown>): Promise<unknown> => {
  try {
    await p;
  } catch (e) {
    return e;
  }
  return undefined;
};

/** Awaits a promise that must reject with a PaymentError of the given reason; returns the error. */
export const expectPaymentError = async (p: Promise<unknown>, reason: PaymentError['reason']): Promise<PaymentError> => {
  const caught = await settle(p);
  expect(caught, `expected PaymentError '${reason}', got ${caught === undefined ? 'no error' : String(caught)}`).to.be.instanceOf(
    PaymentError,
  );
  const err = caught as PaymentError;
  expect(err.reason, err.message).to.equal(reason);
  expect(err.code, "a PaymentError carries the provider's code").to.be.a('string').and.not.equal('');
  expect(err.message, 'a PaymentError explains itself').to.be.a('string').and.not.equal('');
  return err;
};

export const paymentsContract = (name: string, makeSubject: MakePaymentsSubject): void => {
  describe(`payments contract: ${name}`, () => {
    let subject: PaymentsSubject;
    let payments: Payments;

    before(async () => {
      subject = await makeSubject();
      payments = subject.payments;
    });
    after(async () => {
      await subject?.cleanup();
    });

    it('has a name', () => {
      expect(payments.name).to.be.a('string').and.not.equal('');
    });

    describe('a succeeding card', () => {
      it("is charged and the provider's id of the charge is returned", async () => {
        const result = await payments.charge(chargeOf(subject.cards.succeeding()));
        expect(Object.keys(result)).to.deep.equal(['providerId']);
        expect(result.providerId).to.be.a('string').and.have.length.at.least(4);
      });

      it('two charges with two keys are two charges with two ids', async () => {
        const card = subject.cards.succeeding();
        const a = await payments.charge(chargeOf(card));
        const b = await payments.charge(chargeOf(card));
        expect(a.providerId).to.not.equal(b.providerId);
      });

      it('takes the smallest amount, 1 kopiyka', async () => {
        const result = await payments.charge(chargeOf(subject.cards.succeeding(), { amount: 1 }));
        expect(result.providerId).to.be.a('string').and.not.equal('');
      });
    });

    describe('idempotency (a retry never charges twice)', () => {
      it('the same idempotencyKey twice returns the same providerId', async () => {
        const req = chargeOf(subject.cards.succeeding());
        const first = await payments.charge(req);
        const again = await payments.charge({ ...req });
        expect(again).to.deep.equal(first);
        // A third time, after another charge in between, still replays.
        await payments.charge(chargeOf(subject.cards.succeeding()));
        expect(await payments.charge({ ...req })).to.deep.equal(first);
      });

      it('the same idempotencyKey after a decline replays the decline', async () => {
        const req = chargeOf(subject.cards.declining());
        const first = await expectPaymentError(payments.charge(req), 'declined');
        const again = await expectPaymentError(payments.charge({ ...req }), 'declined');
        expect(again.code).to.equal(first.code);
      });

      it('the same idempotencyKey for a different amount is refused (idempotency_error), not charged', async () => {
        const req = chargeOf(subject.cards.succeeding());
        const first = await payments.charge(req);
        const err = await expectPaymentError(payments.charge({ ...req, amount: req.amount + 100 }), 'gateway');
        expect(err.code).to.equal('idempotency_error');
        expect(await payments.charge({ ...req }), 'the first charge is untouched').to.deep.equal(first);
      });
    });

    describe('refusals', () => {
      it("a declined card is a PaymentError with reason declined and the provider's code", async () => {
        await expectPaymentError(payments.charge(chargeOf(subject.cards.declining())), 'declined');
      });

      it('a provider failure is a PaymentError with reason gateway', async () => {
        await expectPaymentError(payments.charge(chargeOf(subject.cards.failing())), 'gateway');
      });
    });

    describe('the amount is a positive integer of kopiykas (checked before the provider is called)', () => {
      for (const amount of [0, -100, 12.5, 0.5, Number.NaN, Number.POSITIVE_INFINITY, Number.MAX_SAFE_INTEGER + 2]) {
        it(`refuses ${String(amount)} with a plain Error`, async () => {
          const req = chargeOf(subject.cards.succeeding(), { amount });
          const caught = await settle(payments.charge(req));
          expect(caught, 'a bad amount is refused').to.be.instanceOf(Error);
          expect(caught, 'a programming fault, not a provider refusal').to.not.be.instanceOf(PaymentError);
          expect((caught as Error).message).to.match(/amount/);
          // The provider never saw it: the key is still free for a well-formed charge.
          const ok = await payments.charge({ ...req, amount: 100 });
          expect(ok.providerId).to.be.a('string').and.not.equal('');
        });
      }

      it('refuses an amount given as a string', async () => {
        const req = chargeOf(subject.cards.succeeding(), { amount: '100' as unknown as number });
        const caught = await settle(payments.charge(req));
        expect(caught).to.be.instanceOf(Error).and.not.be.instanceOf(PaymentError);
      });

      it('refuses an empty idempotencyKey with a plain Error', async () => {
        const caught = await settle(payments.charge(chargeOf(subject.cards.succeeding(), { idempotencyKey: '' })));
        expect(caught).to.be.instanceOf(Error).and.not.be.instanceOf(PaymentError);
      });
    });
  });
};
