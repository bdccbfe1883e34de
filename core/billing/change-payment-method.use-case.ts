import type { RecordingDeps } from '../kernel/recording-deps.js';
import { requireOwner, requireRecentSignIn } from '../kernel/human-guards.js';
import type { HumanContext } from '../kernel/person.js';
import type { Environment } from '../kernel/environment.js';
import { DomainError } from '../kernel/errors.js';
import type { CardSetup } from './ports/card-setup.port.js';
import { PaymentError, type SavedCard, type SavedCards } from './ports/payments.port.js';

export interface CardView {
  environment: Environment;
  brand: string;
  last4: string;
}
const viewCard = (c: SavedCard): CardView => ({ environment: c.environment, brand: c.brand, last4: c.last4 });

/** Luhn check (ISO/IEC 7812-1): a mistyped card number is caught before it is saved. */
const luhn = (digits: string): boolean => {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return sum % 10 === 0;
};

const brandOf = (digits: string): string =>
  digits.startsWith('4')
    ? 'visa'
    : /^5[1-5]/.test(digits) || /^2[2-7]/.test(digits)
      ? 'mastercard'
      : /^3[47]/.test(digits)
        ? 'amex'
        : 'card';

/** What ChangePaymentMethod is built from (one object, named, instead of positions). */
export interface ChangePaymentMethodDeps extends RecordingDeps {
  readonly cards: SavedCards;
  readonly setups: (environment: Environment) => CardSetup | null;
}

/**
 * Change the payment method — a human-only action (seed A6): an owner, signed in again within 5 minutes.
 * Test environment: a sandbox card number (Stripe's test numbers; the ending picks the outcome of later
 * charges, adapters/payments/sandbox). Live: the provider's card setup (Stripe SetupIntent), started and
 * completed here; the card number never passes through us.
 */
export class ChangePaymentMethod {
  constructor(private readonly deps: ChangePaymentMethodDeps) {}

  async current(human: HumanContext, environment: Environment): Promise<CardView | null> {
    const c = await this.deps.cards.find(human.actor.accountId, environment);
    return c ? viewCard(c) : null;
  }

  /** Test environment only: save a sandbox card by its number. */
  async saveSandboxCard(human: HumanContext, cardNumber: string): Promise<CardView> {
    this.guard(human);
    const digits = cardNumber.replace(/[\s-]/g, '');
    if (!/^\d{12,19}$/.test(digits) || !luhn(digits)) throw new DomainError('card_invalid');
    const card: SavedCard = {
      accountId: human.actor.accountId,
      environment: 'test',
      brand: brandOf(digits),
      last4: digits.slice(-4),
      paymentMethodRef: `pm_sandbox_${digits.slice(-4)}`,
      customerRef: null,
    };
    await this.save(human, card);
    return viewCard(card);
  }

  async startSetup(human: HumanContext, environment: Environment): Promise<{ setup_id: string; client_secret: string }> {
    this.guard(human);
    const setup = this.deps.setups(environment);
    if (!setup) throw new DomainError('card_setup_unavailable', { environment });
    const existing = await this.deps.cards.find(human.actor.accountId, environment);
    const s = await this.paying(() =>
      setup.start({ accountId: human.actor.accountId, environment, customerRef: existing?.customerRef ?? null, email: human.person.email }),
    );
    return { setup_id: s.setupRef, client_secret: s.clientSecret };
  }

  async completeSetup(human: HumanContext, environment: Environment, setupRef: string): Promise<CardView> {
    this.guard(human);
    const setup = this.deps.setups(environment);
    if (!setup) throw new DomainError('card_setup_unavailable', { environment });
    const card = await this.paying(() => setup.complete({ accountId: human.actor.accountId, environment, setupRef }));
    await this.save(human, card);
    return viewCard(card);
  }

  private guard(human: HumanContext): void {
    requireOwner(human.actor, 'payment_method');
    requireRecentSignIn(human.session, this.deps.clock.now());
  }

  private async paying<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof PaymentError)
        throw new DomainError(err.reason === 'declined' ? 'card_declined' : 'payment_failed', { card: '(SetupIntent)', reason: err.code });
      throw err;
    }
  }

  private async save(human: HumanContext, card: SavedCard): Promise<void> {
    const at = this.deps.clock.now();
    await this.deps.uow.transaction(async () => {
      await this.deps.cards.save(card);
      await this.deps.events.record(
        'account.payment_method_changed',
        {
          accountId: card.accountId,
          environment: card.environment,
          subject: `account:${card.accountId}`,
          actor: `person:${human.person.id}`,
          occurredAt: at,
        },
        { brand: card.brand, last4: card.last4, actor_email: human.person.email },
      );
    });
  }
}
