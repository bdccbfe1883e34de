import { randomBytes } from 'node:crypto';
import type { Environment } from '../../../core/kernel/environment.js';
import {
  PaymentError,
  type ChargeRequest,
  type ChargeResult,
  type Payments,
  type SavedCard,
} from '../../../core/billing/ports/payments.port.js';
import { assertChargeable } from '../charge-request.js';

/**
 * The sandbox payments adapter ("Balance and top-ups"). Deterministic magic cards by the saved
 * card's last4 — the same endings as Stripe's test cards (4000 0000 0000 0002, …9995, …0119), so an
 * integrator who knows one knows the other:
 * - `0002` is declined (`card_declined`), `9995` is declined (`insufficient_funds`);
 * - `0119` fails at the "gateway" (`processing_error`);
 * - `4242` and any other ending succeed.
 * Nothing outside the process changes. Like Stripe (docs: "Idempotent requests"), the first outcome for an
 * idempotency key — success or refusal — is kept and replayed for the same key; the same key with other
 * parameters is refused (`idempotency_error`). The memory lasts as long as the process.
 */
export const MAGIC_LAST4 = {
  succeeds: '4242',
  declined: '0002',
  insufficientFunds: '9995',
  gatewayFailure: '0119',
} as const;

/** A saved card for the sandbox: the magic is in `last4`. */
export const sandboxCard = (accountId: string, environment: Environment, last4: string): SavedCard => {
  if (!/^\d{4}$/.test(last4)) throw new Error(`sandboxCard: last4 must be four digits, got ${JSON.stringify(last4)}`);
  return { accountId, environment, brand: 'visa', last4, paymentMethodRef: `pm_sandbox_${last4}`, customerRef: null };
};

type Outcome =
  | { readonly ok: true; readonly providerId: string }
  | { readonly ok: false; readonly reason: PaymentError['reason']; readonly code: string; readonly message: string };

interface Remembered {
  readonly fingerprint: string;
  readonly outcome: Outcome;
}

export interface SandboxPaymentsOptions {
  /** The provider id of a new charge; default `pi_sandbox_<24 hex>`. */
  readonly newProviderId?: () => string;
}

export class SandboxPayments implements Payments {
  readonly name = 'sandbox';
  private readonly byKey = new Map<string, Remembered>();
  private readonly newProviderId: () => string;

  constructor(options: SandboxPaymentsOptions = {}) {
    this.newProviderId = options.newProviderId ?? (() => `pi_sandbox_${randomBytes(12).toString('hex')}`);
  }

  /** How many charges succeeded (replays excluded): what a provider's dashboard would list. */
  get chargeCount(): number {
    let n = 0;
    for (const r of this.byKey.values()) if (r.outcome.ok) n += 1;
    return n;
  }

  async charge(req: ChargeRequest): Promise<ChargeResult> {
    // Everything below runs without an await, so two concurrent calls with one key cannot both charge.
    assertChargeable(req);
    if (req.card.environment !== 'test') {
      // DESIGN: the two environments never mix; a live card reaching the sandbox is a wiring fault.
      throw new Error(`the sandbox charges only test-environment cards, got a ${req.card.environment} card`);
    }
    const fingerprint = JSON.stringify([
      req.amount,
      req.currency,
      req.card.accountId,
      req.card.environment,
      req.card.paymentMethodRef,
      req.card.customerRef,
      req.description,
    ]);
    let remembered = this.byKey.get(req.idempotencyKey);
    if (remembered && remembered.fingerprint !== fingerprint) {
      // Stripe answers a reused key with other parameters with an idempotency_error and charges nothing.
      throw new PaymentError(
        'gateway',
        'idempotency_error',
        `idempotency key ${req.idempotencyKey} was already used for a different charge`,
      );
    }
    if (!remembered) {
      remembered = { fingerprint, outcome: this.decide(req.card) };
      this.byKey.set(req.idempotencyKey, remembered);
    }
    const { outcome } = remembered;
    if (!outcome.ok) throw new PaymentError(outcome.reason, outcome.code, outcome.message);
    return { providerId: outcome.providerId };
  }

  private decide(card: SavedCard): Outcome {
    switch (card.last4) {
      case MAGIC_LAST4.declined:
        return { ok: false, reason: 'declined', code: 'card_declined', message: 'Your card was declined. (sandbox card ending 0002)' };
      case MAGIC_LAST4.insufficientFunds:
        return {
          ok: false,
          reason: 'declined',
          code: 'insufficient_funds',
          message: 'Your card has insufficient funds. (sandbox card ending 9995)',
        };
      case MAGIC_LAST4.gatewayFailure:
        return {
          ok: false,
          reason: 'gateway',
          code: 'processing_error',
          message: 'An error occurred while processing your card. Try again later. (sandbox card ending 0119)',
        };
      default:
        return { ok: true, providerId: this.newProviderId() };
    }
  }
}
