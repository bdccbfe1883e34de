import { PaymentError, type ChargeRequest, type ChargeResult, type Payments } from '../../../core/billing/ports/payments.port.js';

/**
 * The live environment's payments when no provider is configured (no STRIPE_SECRET_KEY): every top-up
 * is refused as a gateway failure with a clear reason, and nothing is charged. The balance of a live
 * account can still be credited by an operator through the ledger (README: "Live environment").
 */
export class UnconfiguredPayments implements Payments {
  readonly name = 'unconfigured';

  async charge(_req: ChargeRequest): Promise<ChargeResult> {
    throw new PaymentError('gateway', 'payments_not_configured', 'live top-ups are not configured on this server (set STRIPE_SECRET_KEY)');
  }
}
