import type { ReadBilling } from '../../../core/billing/read-billing.use-case.js';
import type { TopUpBalance } from '../../../core/billing/top-up-balance.use-case.js';
import type { ChangePaymentMethod } from '../../../core/billing/change-payment-method.use-case.js';
import { route, type Route } from '../route.js';
import { schema } from '../schema-type.js';
import { money, page, pageQuery } from '../schemas.js';
import { environment, envBody, REAUTH, str, TAG } from './human-only.js';
import { TOPUP_MAX, TOPUP_MIN } from '../../../core/billing/top-up.js';

/** Billing (/v1/billing, /v1/account/payment-method): the balance and ledger, top-ups, the saved card (humans). */
export interface BillingUseCases {
  readonly readBilling: Pick<ReadBilling, 'balance' | 'transactions'>;
  readonly topUp: Pick<TopUpBalance, 'execute'>;
  readonly changePaymentMethod: Pick<ChangePaymentMethod, 'current' | 'saveSandboxCard' | 'startSetup' | 'completeSetup'>;
}

const transaction = schema({
  type: 'object',
  properties: {
    id: { type: 'string' },
    amount: money,
    kind: { type: 'string', enum: ['grant', 'topup', 'registration', 'renewal', 'restore', 'transfer', 'refund'] },
    status: { type: 'string', enum: ['pending', 'posted', 'voided'] },
    domain: { type: ['string', 'null'] },
    key_id: { type: ['string', 'null'] },
    description: { type: 'string' },
    created_at: { type: 'string', format: 'date-time' },
  },
});
const cardView = schema({ type: 'object', properties: { environment, brand: { type: 'string' }, last4: { type: 'string' } } });
const idParam = schema({
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', minLength: 1, maxLength: 100, pattern: '^[0-9A-Za-z_.@+-]+$' } },
});

export const billingRoutes = (uc: BillingUseCases): Route[] => [
  route({
    id: 'getBalance',
    method: 'GET',
    path: '/v1/billing/balance',
    tag: 'Billing',
    writes: false,
    summary: 'The balance (billing.read)',
    access: { kind: 'key', right: 'billing.read' },
    responses: { 200: { description: 'The balance', schema: { type: 'object', required: ['balance'], properties: { balance: money } } } },
    handle: async (i) => ({ status: 200, body: await uc.readBilling.balance(i.key) }),
  }),
  route({
    id: 'listTransactions',
    method: 'GET',
    path: '/v1/billing/transactions',
    tag: 'Billing',
    writes: false,
    summary: 'The ledger, newest first (billing.read): charges are pending until the registry confirms, voided if it refuses',
    access: { kind: 'key', right: 'billing.read' },
    query: pageQuery({}),
    responses: { 200: { description: 'A page of transactions', schema: page(transaction) } },
    errors: ['cursor_invalid'],
    handle: async (i) => ({
      status: 200,
      body: await uc.readBilling.transactions(i.key, { cursor: i.query.cursor, limit: i.query.limit }),
    }),
  }),
  route({
    id: 'topUp',
    method: 'POST',
    path: '/v1/billing/topups',
    tag: 'Billing',
    writes: true,
    phased: true,
    summary: "Top up the balance from the account's saved card (billing.topup, class 2)",
    description:
      "Amount in kopiykas, 10 000 (100 UAH) to 50 000 000 (500 000 UAH). Counts towards the key's monthly spend limit. Sandbox cards: see README.",
    access: { kind: 'key', right: 'billing.topup' },
    body: {
      type: 'object',
      additionalProperties: false,
      required: ['amount'],
      properties: { amount: { type: 'integer', minimum: TOPUP_MIN, maximum: TOPUP_MAX, description: 'Kopiykas.' } },
    },
    responses: {
      201: {
        description: 'Charged and credited',
        schema: {
          type: 'object',
          properties: {
            id: { type: 'string' },
            amount: money,
            status: { type: 'string' },
            card: { type: 'object', properties: { brand: { type: 'string' }, last4: { type: 'string' } }, additionalProperties: true },
            balance: money,
            created_at: { type: 'string' },
          },
        },
      },
    },
    errors: ['card_declined', 'payment_failed', 'no_saved_card', 'spend_limit_exceeded'],
    handle: async (i) => ({ status: 201, body: await uc.topUp.execute(i.key, i.body.amount, i.checkpoints) }),
  }),
  route({
    id: 'getPaymentMethod',
    method: 'GET',
    path: '/v1/account/payment-method',
    tag: TAG,
    writes: false,
    summary: 'The saved card of an environment (brand and last four digits)',
    access: { kind: 'human', session: true, console: '/console/billing' },
    query: { type: 'object', additionalProperties: false, required: ['environment'], properties: { environment } },
    responses: {
      200: { description: 'The card, or null', schema: { type: 'object', properties: { card: { oneOf: [cardView, { type: 'null' }] } } } },
    },
    handle: async (i) => ({ status: 200, body: { card: await uc.changePaymentMethod.current(i.human, i.query.environment) } }),
  }),
  route({
    id: 'saveSandboxCard',
    method: 'PUT',
    path: '/v1/account/payment-method',
    tag: TAG,
    writes: true,
    secretFields: ['card_number'],
    summary: "Change the test environment's card to a sandbox card number (owners, signed in again)",
    access: { kind: 'human', session: true, console: '/console/billing' },
    body: {
      type: 'object',
      additionalProperties: false,
      required: ['environment', 'card_number'],
      properties: { environment: { type: 'string', enum: ['test'] }, card_number: str(23) },
    },
    responses: { 200: { description: 'Saved', schema: cardView } },
    errors: [...REAUTH, 'card_invalid'],
    handle: async (i) => ({ status: 200, body: await uc.changePaymentMethod.saveSandboxCard(i.human, i.body.card_number) }),
  }),
  route({
    id: 'startCardSetup',
    method: 'POST',
    path: '/v1/account/payment-method/setups',
    tag: TAG,
    writes: true,
    phased: true,
    summary: 'Start saving a live card (Stripe SetupIntent): confirm it in the browser with client_secret, then complete it',
    access: { kind: 'human', session: true, console: '/console/billing' },
    body: envBody({}, []),
    responses: {
      201: {
        description: 'Started',
        schema: { type: 'object', properties: { setup_id: { type: 'string' }, client_secret: { type: 'string' } } },
      },
    },
    errors: [...REAUTH, 'card_setup_unavailable', 'payment_failed'],
    handle: async (i) => ({
      status: 201,
      headers: { 'Cache-Control': 'no-store' },
      body: await uc.changePaymentMethod.startSetup(i.human, i.body.environment),
    }),
  }),
  route({
    id: 'completeCardSetup',
    method: 'POST',
    path: '/v1/account/payment-method/setups/{id}/complete',
    tag: TAG,
    writes: true,
    phased: true,
    summary: 'Save the card of a confirmed setup as the payment method',
    access: { kind: 'human', session: true, console: '/console/billing' },
    params: idParam,
    body: envBody({}, []),
    responses: { 200: { description: 'Saved', schema: cardView } },
    errors: [...REAUTH, 'card_setup_unavailable', 'card_declined', 'payment_failed'],
    handle: async (i) => ({ status: 200, body: await uc.changePaymentMethod.completeSetup(i.human, i.body.environment, i.params.id) }),
  }),
];
