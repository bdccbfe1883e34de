import type { ChargeRequest } from '../../core/billing/ports/payments.port.js';

/**
 * Checks shared by every payments adapter (STYLE 4: shared pieces move up a level; adapters never import
 * each other). A malformed request is a programming fault, so it is a plain Error thrown before the
 * provider is called — never a PaymentError, which means "the provider said no / failed".
 */

/** Stripe's limit (docs, "Idempotent requests": keys are up to 255 characters long). */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

export const assertChargeable = (req: ChargeRequest): void => {
  // DESIGN "Money": integer kopiykas, never floats; a charge of nothing or less is no charge.
  if (typeof req.amount !== 'number' || !Number.isSafeInteger(req.amount) || req.amount <= 0) {
    throw new Error(`charge amount must be a positive integer number of kopiykas, got ${String(req.amount)}`);
  }
  if (req.currency !== 'UAH') throw new Error(`charge currency must be UAH, got ${String(req.currency)}`);
  if (typeof req.idempotencyKey !== 'string' || req.idempotencyKey.length === 0 || req.idempotencyKey.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    throw new Error(`charge idempotencyKey must be 1–${MAX_IDEMPOTENCY_KEY_LENGTH} characters`);
  }
};
