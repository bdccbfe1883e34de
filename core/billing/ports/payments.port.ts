import type { Environments } from '../../kernel/environments.port.js';
import type { Environment } from '../../kernel/environment.js';

/**
 * The payments port: charge the account's saved card off-session (top-ups). One sandbox adapter with
 * documented magic cards, one live adapter for a real provider (Stripe PaymentIntents).
 */
export interface SavedCard {
  readonly accountId: string;
  readonly environment: Environment;
  readonly brand: string;
  readonly last4: string;
  /** The provider's payment method id (Stripe: pm_…; sandbox: pm_sandbox_<last4>). */
  readonly paymentMethodRef: string;
  /** The provider's customer id (Stripe: cus_…), if the provider needs one. */
  readonly customerRef: string | null;
}

export interface ChargeRequest {
  /** Kopiykas, > 0. */
  readonly amount: number;
  readonly currency: 'UAH';
  readonly card: SavedCard;
  /** Passed to the provider as its idempotency key: a retry never charges twice. */
  readonly idempotencyKey: string;
  readonly description: string;
}

export interface ChargeResult {
  /** The provider's id of the charge (Stripe: pi_…). */
  readonly providerId: string;
}

/** A refusal: `declined` (the card said no; nothing was charged) or `gateway` (the provider failed). */
export class PaymentError extends Error {
  constructor(
    readonly reason: 'declined' | 'gateway',
    /** The provider's code, e.g. card_declined / insufficient_funds / processing_error. */
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'PaymentError';
  }
}

export interface Payments {
  readonly name: string;
  charge(req: ChargeRequest): Promise<ChargeResult>;
}

export interface SavedCards {
  find(accountId: string, environment: Environment): Promise<SavedCard | null>;
  /** Human-only in the API (a later issue: changing the payment method is one of the six). */
  save(card: SavedCard): Promise<void>;
}

/** The payment provider of each environment. */
export type PaymentEnvironments = Environments<{ readonly payments: Payments }>;
