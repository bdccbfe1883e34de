import { actorOf, type ApiKey } from '../kernel/caller.js';
import type { EventRecorder } from '../kernel/event-log.port.js';
import type { Checkpoints } from '../kernel/checkpoints.port.js';
import type { Clock } from '../kernel/clock.port.js';
import type { PaymentEnvironments } from './ports/payments.port.js';
import { DomainError } from '../kernel/errors.js';
import { uah, type Money } from '../kernel/money.js';
import type { Random } from '../kernel/random.port.js';
import type { Accounting } from './accounting.js';
import { PaymentError, type SavedCard, type SavedCards } from './ports/payments.port.js';
import type { TopUp, TopUps } from './top-up.js';

export interface TopUpView {
  id: string;
  amount: Money;
  status: TopUp['status'];
  card: { brand: string; last4: string };
  balance: Money;
  created_at: string;
}

/** What TopUpBalance is built from (one object, named, instead of positions). */
export interface TopUpBalanceDeps {
  readonly topUps: TopUps;
  readonly cards: SavedCards;
  readonly environments: PaymentEnvironments;
  readonly accounting: Accounting;
  readonly events: EventRecorder;
  readonly random: Random;
  readonly clock: Clock;
}

/**
 * POST /v1/billing/topups (billing.topup, class 2): charges the saved card off-session. Phases:
 *   1. the spend limit is counted and a pending top-up row written (one tx);
 *   2. the card is charged, idempotent by the top-up id;
 *   3. the credit is posted (one tx).
 * A decline is 402 card_declined and changes nothing (the spend comes back); a gateway failure is 502.
 */
export class TopUpBalance {
  constructor(private readonly deps: TopUpBalanceDeps) {}

  async execute(key: ApiKey, amount: number, cp: Checkpoints): Promise<TopUpView> {
    if (cp.last?.point === 'credited') return cp.last.data.result as TopUpView;
    let pending = cp.last?.point === 'reserved' ? (cp.last.data as { topUpId: string; at: string; card?: SavedCard }) : null;
    // A resumed top-up charges the card it was started with (the provider replays that charge); the
    // saved card may have been replaced or removed since.
    const card = pending?.card ?? (await this.deps.cards.find(key.accountId, key.environment));
    if (!card) throw new DomainError('no_saved_card');
    const payments = this.deps.environments.get(key.environment).payments;
    if (!pending) {
      pending = await cp.reach('reserved', async () => {
        const now = this.deps.clock.now();
        await this.deps.accounting.reserveSpend({ id: key.id, spendLimit: key.conditions.spendLimit }, amount, now);
        const topUp: TopUp = {
          id: this.deps.random.id(),
          accountId: key.accountId,
          environment: key.environment,
          keyId: key.id,
          amount,
          status: 'pending',
          providerId: null,
          failureCode: null,
          createdAt: now,
        };
        await this.deps.topUps.insert(topUp);
        return { topUpId: topUp.id, at: now.toISOString(), card: { ...card } };
      });
    }
    const card4 = `${card.brand} •••• ${card.last4}`;
    let providerId: string;
    try {
      ({ providerId } = await payments.charge({
        amount,
        currency: 'UAH',
        card,
        idempotencyKey: pending.topUpId,
        description: `Domivka balance top-up ${pending.topUpId}`,
      }));
    } catch (err) {
      if (!(err instanceof PaymentError)) throw err; // unknown outcome: a retry asks the provider again, same key
      await cp.reach('voided', async () => {
        await this.deps.accounting.releaseSpend(key.id, amount, new Date(pending.at));
        await this.deps.topUps.update(pending.topUpId, {
          status: err.reason === 'declined' ? 'declined' : 'failed',
          providerId: null,
          failureCode: err.code,
        });
        await this.deps.events.record(
          'billing.topup_failed',
          {
            accountId: key.accountId,
            environment: key.environment,
            subject: `topup:${pending.topUpId}`,
            actor: actorOf(key),
            occurredAt: this.deps.clock.now(),
          },
          { amount, reason: err.reason, code: err.code },
        );
        return {};
      });
      if (err.reason === 'declined') throw new DomainError('card_declined', { card: card4, reason: err.code });
      throw new DomainError('payment_failed', { code: err.code });
    }
    const out = await cp.reach('credited', async () => {
      const now = this.deps.clock.now();
      await this.deps.accounting.credit({
        accountId: key.accountId,
        environment: key.environment,
        amount,
        kind: 'topup',
        keyId: key.id,
        description: `Top-up from ${card4}`,
      });
      await this.deps.topUps.update(pending.topUpId, { status: 'succeeded', providerId, failureCode: null });
      await this.deps.events.record(
        'billing.topup_succeeded',
        {
          accountId: key.accountId,
          environment: key.environment,
          subject: `topup:${pending.topUpId}`,
          actor: actorOf(key),
          occurredAt: now,
        },
        { amount, provider_id: providerId, card: { brand: card.brand, last4: card.last4 } },
      );
      const balance = await this.deps.accounting.balance(key.accountId, key.environment);
      const result: TopUpView = {
        id: pending.topUpId,
        amount: uah(amount),
        status: 'succeeded',
        card: { brand: card.brand, last4: card.last4 },
        balance: uah(balance),
        created_at: pending.at,
      };
      return { result };
    });
    return out.result;
  }
}
