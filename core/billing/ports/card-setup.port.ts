import type { Environment } from '../../kernel/environment.js';
import type { SavedCard } from './payments.port.js';

/**
 * Saving a new card without charging it (Stripe: a SetupIntent). The browser confirms the SetupIntent with
 * the provider's own page or library using `clientSecret`; then `complete` reads the confirmed payment
 * method back. Changing the payment method is a human-only action (seed A6).
 */
export interface CardSetupStart {
  /** Provider id of the setup (Stripe: seti_…). */
  readonly setupRef: string;
  /** Handed to the provider's browser library; never stored. */
  readonly clientSecret: string;
  readonly customerRef: string;
}

export interface CardSetup {
  start(input: { accountId: string; environment: Environment; customerRef: string | null; email: string }): Promise<CardSetupStart>;
  /** The saved card once the setup succeeded; PaymentError('declined', 'setup_<status>') otherwise. */
  complete(input: { accountId: string; environment: Environment; setupRef: string }): Promise<SavedCard>;
}
