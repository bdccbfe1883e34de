import { token } from './token.js';
import type { Accounting } from '../../core/billing/accounting.js';
import type { ReadBilling } from '../../core/billing/read-billing.use-case.js';
import type { TopUpBalance } from '../../core/billing/top-up-balance.use-case.js';
import type { ChangePaymentMethod } from '../../core/billing/change-payment-method.use-case.js';
import type { CardSetup } from '../../core/billing/ports/card-setup.port.js';

/** Injection tokens of the billing capability (src/ binds them by explicit token; core/ has no decorators). */
export const BILLING_TOKENS = {
  Accounting: token<Accounting>('Accounting'),
  TopUpBalance: token<TopUpBalance>('TopUpBalance'),
  ReadBilling: token<ReadBilling>('ReadBilling'),
  ChangePaymentMethod: token<ChangePaymentMethod>('ChangePaymentMethod'),
  /** The live card setup (Stripe SetupIntents), bound with the live adapter set. */
  LiveCardSetup: token<CardSetup>('LiveCardSetup'),
} as const;
