import type { Route } from '../route.js';
import { domainParam, domainView, i18n, money, page, pageQuery } from '../schemas.js';
import type { UseCases } from './use-cases.js';

const charged = {
  ...domainView,
  properties: {
    ...(domainView.properties as object),
    charge: { type: 'object', properties: { amount: money, ledger_entry_id: { type: 'string' } } },
  },
};

const transaction = {
  type: 'object',
  properties: {
    id: { type: 'string' }, amount: money, kind: { type: 'string', enum: ['grant', 'topup', 'registration', 'renewal', 'restore', 'refund'] },
    status: { type: 'string', enum: ['pending', 'posted', 'voided'] }, domain: { type: ['string', 'null'] }, key_id: { type: ['string', 'null'] },
    description: { type: 'string' }, created_at: { type: 'string', format: 'date-time' },
  },
};

/** Issue 3: registration, renewal, the balance, top-ups, notices for keys, sandbox time travel. */
export const moneyRoutes = (uc: UseCases): Route[] => [
  {
    id: 'registerDomain', method: 'POST', path: '/v1/domains', tag: 'Domains', writes: true, phased: true,
    summary: 'Register a domain and charge the balance at the price list (domain.register, class 2)',
    description: 'A key whose domain.register policy selects a label may register any name; the new domain carries that label. A taken name is 409 domain_taken with the date it is registered until.',
    access: { kind: 'key', rights: (i) => [{ right: 'domain.register', domain: (i.body as { domain: string }).domain }] },
    body: {
      type: 'object', additionalProperties: false, required: ['domain', 'years'],
      properties: {
        domain: { type: 'string', minLength: 1, maxLength: 253 },
        years: { type: 'integer', minimum: 1, maximum: 10 },
        auto_renew: { type: 'boolean', description: 'Default true.' },
      },
    },
    responses: { 201: { description: 'Registered and charged', schema: charged } },
    errors: ['domain_taken', 'domain_already_yours', 'tld_not_supported', 'insufficient_funds', 'spend_limit_exceeded', 'registry_failure', 'domain_invalid'],
    handle: async (i) => {
      const r = await uc.registerDomain.execute(i.key!, i.body as { domain: string; years: number; auto_renew?: boolean }, i.checkpoints!);
      return { status: 201, headers: { Location: `/v1/domains/${r.domain}` }, body: r };
    },
  },
  {
    id: 'renewDomain', method: 'POST', path: '/v1/domains/{domain}/renewals', tag: 'Domains', writes: true, phased: true,
    summary: 'Renew a domain (domain.renew, class 2); in redemptionPeriod this restores it for a fee',
    access: { kind: 'key', right: 'domain.renew', domainParam: 'domain' },
    params: domainParam,
    body: { type: 'object', additionalProperties: false, required: ['years'], properties: { years: { type: 'integer', minimum: 1, maximum: 10 } } },
    responses: { 201: { description: 'Renewed and charged', schema: charged } },
    errors: ['domain_not_found', 'domain_not_renewable', 'insufficient_funds', 'spend_limit_exceeded', 'registry_failure', 'operation_in_progress'],
    handle: async (i) => ({
      status: 201,
      body: await uc.renewDomain.execute({ kind: 'key', key: i.key! }, { domain: i.params.domain!, years: (i.body as { years: number }).years }, i.checkpoints!),
    }),
  },
  {
    id: 'updateDomain', method: 'PATCH', path: '/v1/domains/{domain}', tag: 'Domains', writes: true,
    summary: 'Switch automatic renewal on or off (domain.renew, class 2)',
    access: { kind: 'key', right: 'domain.renew', domainParam: 'domain' },
    params: domainParam,
    body: { type: 'object', additionalProperties: false, required: ['auto_renew'], properties: { auto_renew: { type: 'boolean' } } },
    responses: { 200: { description: 'The domain', schema: domainView } },
    errors: ['domain_not_found'],
    handle: async (i) => ({ status: 200, body: await uc.setAutoRenew.execute(i.key!, i.params.domain!, (i.body as { auto_renew: boolean }).auto_renew) }),
  },
  {
    id: 'getBalance', method: 'GET', path: '/v1/billing/balance', tag: 'Billing', writes: false,
    summary: 'The balance (billing.read)',
    access: { kind: 'key', right: 'billing.read' },
    responses: { 200: { description: 'The balance', schema: { type: 'object', required: ['balance'], properties: { balance: money } } } },
    handle: async (i) => ({ status: 200, body: await uc.readBilling.balance(i.key!) }),
  },
  {
    id: 'listTransactions', method: 'GET', path: '/v1/billing/transactions', tag: 'Billing', writes: false,
    summary: 'The ledger, newest first (billing.read): charges are pending until the registry confirms, voided if it refuses',
    access: { kind: 'key', right: 'billing.read' },
    query: pageQuery(),
    responses: { 200: { description: 'A page of transactions', schema: page(transaction) } },
    errors: ['cursor_invalid'],
    handle: async (i) => ({ status: 200, body: await uc.readBilling.transactions(i.key!, { cursor: i.query.cursor as string | undefined, limit: i.query.limit as number | undefined }) }),
  },
  {
    id: 'topUp', method: 'POST', path: '/v1/billing/topups', tag: 'Billing', writes: true, phased: true,
    summary: "Top up the balance from the account's saved card (billing.topup, class 2)",
    description: 'Amount in kopiykas, 10 000 (100 UAH) to 50 000 000 (500 000 UAH). Counts towards the key\'s monthly spend limit. Sandbox cards: see README.',
    access: { kind: 'key', right: 'billing.topup' },
    body: { type: 'object', additionalProperties: false, required: ['amount'], properties: { amount: { type: 'integer', minimum: 10_000, maximum: 50_000_000, description: 'Kopiykas.' } } },
    responses: {
      201: {
        description: 'Charged and credited',
        schema: { type: 'object', properties: { id: { type: 'string' }, amount: money, status: { type: 'string' }, card: { type: 'object' }, balance: money, created_at: { type: 'string' } } },
      },
    },
    errors: ['card_declined', 'payment_failed', 'no_saved_card', 'spend_limit_exceeded'],
    handle: async (i) => ({ status: 201, body: await uc.topUp.execute(i.key!, (i.body as { amount: number }).amount, i.checkpoints!) }),
  },
  {
    id: 'listNotices', method: 'GET', path: '/v1/notices', tag: 'Notices', writes: false,
    summary: 'Notices the key may see: about domains it may read, and billing ones with billing.read',
    access: { kind: 'key' },
    query: pageQuery(),
    responses: {
      200: {
        description: 'A page of notices, newest first',
        schema: page({ type: 'object', properties: { id: { type: 'string' }, kind: { type: 'string' }, domain: { type: ['string', 'null'] }, message: i18n, created_at: { type: 'string' } } }),
      },
    },
    errors: ['cursor_invalid'],
    handle: async (i) => ({ status: 200, body: await uc.listKeyNotices.execute(i.key!, { cursor: i.query.cursor as string | undefined, limit: i.query.limit as number | undefined }) }),
  },
  {
    id: 'advanceSandboxClock', method: 'POST', path: '/v1/sandbox/clock', tag: 'Sandbox', writes: true,
    summary: "Move this account's sandbox time forward (any test key); the lifecycle runs at once",
    description: 'ISO 8601 duration in days, hours or minutes (P30D, PT12H), at most 3 years. Moves the domain lifecycle of the test environment; key validity, idempotency and the spend month follow real time.',
    access: { kind: 'key', sandboxOnly: true },
    body: { type: 'object', additionalProperties: false, required: ['advance'], properties: { advance: { type: 'string', maxLength: 20 } } },
    responses: {
      200: {
        description: 'The new sandbox time and what the lifecycle did',
        schema: { type: 'object', properties: { now: { type: 'string', format: 'date-time' }, offset_ms: { type: 'integer' }, lifecycle: { type: 'object' } } },
      },
    },
    errors: ['sandbox_only'],
    handle: async (i) => ({ status: 200, body: await uc.advanceSandboxClock.execute(i.key!, (i.body as { advance: string }).advance) }),
  },
];
