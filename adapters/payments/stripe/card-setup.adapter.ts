import Stripe from 'stripe';
import type { CardSetup, CardSetupStart } from '../../../core/billing/ports/card-setup.port.js';
import { PaymentError, type SavedCard } from '../../../core/billing/ports/payments.port.js';
import type { Environment } from '../../../core/kernel/environment.js';
import { createStripeClient, validateStripeConfig, type StripePaymentsConfig } from './client.js';

/**
 * Changing the payment method with Stripe SetupIntents (API v1; docs "Save a card without payment"):
 * 1. `start` — a Customer for the account (once; its id is kept with the saved card) and a SetupIntent
 *    `usage=off_session` for cards, tagged with the account; its `client_secret` goes to Stripe.js in the
 *    browser, which collects and confirms the card (the number never reaches us).
 * 2. `complete` — reads the SetupIntent back with its PaymentMethod expanded; only a `succeeded` setup of
 *    this same account becomes the saved card (brand, last4, pm_…, cus_…). Any other status is a decline
 *    `setup_<status>`; a Stripe failure is a gateway error.
 */
export class StripeCardSetup implements CardSetup {
  private readonly stripe: Stripe;

  constructor(config: StripePaymentsConfig) {
    this.stripe = createStripeClient(validateStripeConfig(config));
  }

  async start(input: { accountId: string; environment: Environment; customerRef: string | null; email: string }): Promise<CardSetupStart> {
    try {
      const customer =
        input.customerRef ??
        (
          await this.stripe.customers.create({
            email: input.email,
            metadata: { domivka_account_id: input.accountId, domivka_environment: input.environment },
          })
        ).id;
      const si = await this.stripe.setupIntents.create({
        customer,
        usage: 'off_session',
        allowed_payment_method_types: ['card'],
        metadata: { domivka_account_id: input.accountId, domivka_environment: input.environment },
      });
      if (!si.client_secret) throw new PaymentError('gateway', 'invalid_response', `Stripe SetupIntent ${si.id} has no client_secret`);
      return { setupRef: si.id, clientSecret: si.client_secret, customerRef: customer };
    } catch (err) {
      throw gateway(err);
    }
  }

  async complete(input: { accountId: string; environment: Environment; setupRef: string }): Promise<SavedCard> {
    let si: Stripe.SetupIntent;
    try {
      si = await this.stripe.setupIntents.retrieve(input.setupRef, { expand: ['payment_method'] });
    } catch (err) {
      throw gateway(err);
    }
    if (si.metadata?.domivka_account_id !== input.accountId || si.metadata?.domivka_environment !== input.environment) {
      // A setup started for another account (or environment) is never saved here.
      throw new PaymentError('declined', 'setup_not_this_account', `SetupIntent ${si.id} was not started for this account`);
    }
    if (si.status !== 'succeeded')
      throw new PaymentError('declined', `setup_${si.status}`, `SetupIntent ${si.id} is ${si.status}, not succeeded`);
    const pm = si.payment_method;
    if (!pm || typeof pm === 'string' || !pm.card)
      throw new PaymentError('gateway', 'invalid_response', `SetupIntent ${si.id} has no card payment method`);
    const customer = typeof si.customer === 'string' ? si.customer : (si.customer?.id ?? null);
    return {
      accountId: input.accountId,
      environment: input.environment,
      brand: pm.card.brand,
      last4: pm.card.last4,
      paymentMethodRef: pm.id,
      customerRef: customer,
    };
  }
}

const gateway = (err: unknown): unknown => {
  if (err instanceof PaymentError || !(err instanceof Stripe.errors.StripeError)) return err;
  return new PaymentError('gateway', err.code ?? err.rawType ?? 'api_error', err.message || 'Stripe request failed');
};
