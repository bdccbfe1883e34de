import Stripe from 'stripe';
import { PaymentError, type ChargeRequest, type ChargeResult, type Payments } from '../../../core/billing/ports/payments.port.js';
import { assertChargeable } from '../charge-request.js';
import { createStripeClient, validateStripeConfig, type StripePaymentsConfig } from './client.js';

/**
 * The live payments adapter: Stripe PaymentIntents (API v1). A top-up is one off-session PaymentIntent on
 * the account's saved payment method, created and confirmed in one request
 * (`POST /v1/payment_intents` with `off_session=true&confirm=true`), so the result is known when the call
 * returns. The port's idempotencyKey is sent as Stripe's `Idempotency-Key`: Stripe stores the first
 * response for a key (successes and errors, including 500s) and replays it, so a retry never charges twice.
 *
 * Outcomes (see README.md):
 * - `succeeded` → `{ providerId: pi.id }`;
 * - a card error (HTTP 402, StripeCardError) → `declined` with `decline_code ?? code` — except
 *   `processing_error`, which Stripe documents as "an error occurred while processing the card; try again",
 *   so it is `gateway`, like the sandbox's 0119 card;
 * - any other Stripe error (api_error, 5xx, rate limit, connection error or timeout, authentication,
 *   invalid request, idempotency_error) → `gateway` with Stripe's code or error type;
 * - any other status → `gateway` with code `payment_intent_<status>`. `processing` means the bank has
 *   not answered yet; it may still succeed. It is a gateway failure here (nothing is credited), and the
 *   message names the PaymentIntent so the charge can be reconciled (README: "processing").
 */
export class StripePayments implements Payments {
  readonly name = 'stripe';
  private readonly stripe: Stripe;

  constructor(config: StripePaymentsConfig) {
    this.stripe = createStripeClient(validateStripeConfig(config));
  }

  async charge(req: ChargeRequest): Promise<ChargeResult> {
    assertChargeable(req);
    const { card } = req;
    if (!card.customerRef) {
      // A saved (attached) PaymentMethod can only be used together with its Customer.
      throw new Error(`Stripe charges need the saved card's customer (cus_…); account ${card.accountId} has none`);
    }
    if (!card.paymentMethodRef) throw new Error(`the saved card of account ${card.accountId} has no payment method id`);

    let intent: Stripe.PaymentIntent;
    try {
      intent = await this.stripe.paymentIntents.create(
        {
          amount: req.amount,
          currency: 'uah',
          customer: card.customerRef,
          payment_method: card.paymentMethodRef,
          off_session: true,
          confirm: true,
          description: req.description,
          metadata: { domivka_account_id: card.accountId, domivka_environment: card.environment },
        },
        { idempotencyKey: req.idempotencyKey },
      );
    } catch (err) {
      throw toPaymentError(err);
    }

    if (typeof intent?.id !== 'string' || !intent.id.startsWith('pi_') || typeof intent.status !== 'string') {
      throw new PaymentError('gateway', 'invalid_response', 'Stripe answered 2xx without a PaymentIntent');
    }
    if (intent.status === 'succeeded') return { providerId: intent.id };
    throw new PaymentError(
      'gateway',
      `payment_intent_${intent.status}`,
      intent.status === 'processing'
        ? `Stripe PaymentIntent ${intent.id} is still processing; the top-up is not credited until it succeeds`
        : `Stripe PaymentIntent ${intent.id} ended in status ${intent.status}, not succeeded`,
    );
  }
}

const suffix = (err: InstanceType<typeof Stripe.errors.StripeError>): string => {
  const parts = [
    err.payment_intent?.id ? `payment_intent ${err.payment_intent.id}` : null,
    err.requestId ? `request ${err.requestId}` : null,
  ].filter((p): p is string => p !== null);
  return parts.length > 0 ? ` (Stripe ${parts.join(', ')})` : '';
};

/** Maps what the SDK throws to the port's PaymentError; anything that is not a Stripe error is a fault. */
const toPaymentError = (err: unknown): unknown => {
  if (!(err instanceof Stripe.errors.StripeError)) return err;
  const message = `${err.message || 'Stripe request failed'}${suffix(err)}`;
  if (err instanceof Stripe.errors.StripeCardError) {
    if (err.code === 'processing_error') return new PaymentError('gateway', 'processing_error', message);
    return new PaymentError('declined', err.decline_code ?? err.code ?? 'card_declined', message);
  }
  const code =
    err.code ??
    err.rawType ??
    (err instanceof Stripe.errors.StripeConnectionError
      ? 'api_connection_error'
      : err instanceof Stripe.errors.StripeRateLimitError
        ? 'rate_limit'
        : 'api_error');
  return new PaymentError('gateway', code, message);
};
