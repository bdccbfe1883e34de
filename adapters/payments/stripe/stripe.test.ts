import { expect } from 'chai';
import { createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import nock, { useNock } from '../../../test/support/nock.js';
import type { SavedCard } from '../../../core/billing/ports/payments.port.js';
import { chargeOf, expectPaymentError, newIdempotencyKey, paymentsContract } from '../../../test/contracts/payments.contract.js';
import {
  DEFAULT_MAX_NETWORK_RETRIES,
  DEFAULT_TIMEOUT_MS,
  StripePayments,
  validateStripeConfig,
  type StripePaymentsConfig,
} from './index.js';

/**
 * The Stripe adapter against nock fixtures of Stripe's documented API v1:
 * - `POST /v1/payment_intents` (docs: "Create a PaymentIntent"), form-encoded, `Authorization: Bearer sk_…`,
 *   `Idempotency-Key` header; a PaymentIntent object in the response;
 * - errors (docs: "Errors"): `{"error": {"type", "code", "decline_code", "message", "payment_intent", …}}`,
 *   402 for card errors, 500 for api_error, 429 for rate limits;
 * - idempotency (docs: "Idempotent requests"): the status and body of the first request with a key are
 *   saved, whether it succeeded or failed (500s included), and replayed for the same key; the same key
 *   with other parameters is an `idempotency_error` (400).
 * The fixture's payment methods are Stripe's documented test PaymentMethods (`pm_card_visa`,
 * `pm_card_chargeDeclined`, …) plus `pm_fixture_*` ids for outcomes Stripe offers no test card for.
 */
const API = 'https://api.stripe.com';
const SECRET = 'sk_test_51DomivkaFixtureKey0000000000';
const CUSTOMER = 'cus_DomivkaFixture01';
const ACCOUNT = 'acc_stripe_fixture';

const stripeCard = (paymentMethodRef: string, last4 = '4242'): SavedCard => ({
  accountId: ACCOUNT,
  environment: 'live',
  brand: 'visa',
  last4,
  paymentMethodRef,
  customerRef: CUSTOMER,
});

interface SeenRequest {
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: URLSearchParams;
}

type Reply = [status: number, body: Record<string, unknown>, headers?: Record<string, string>];

let objectCounter = 0;
const stripeId = (prefix: string) => `${prefix}_3Fx${(++objectCounter).toString().padStart(6, '0')}DmVk`;

/** A PaymentIntent object as the API documents it (only the fields a reader would look at). */
const paymentIntent = (p: URLSearchParams, status: string, extra: Record<string, unknown> = {}) => ({
  id: stripeId('pi'),
  object: 'payment_intent',
  amount: Number(p.get('amount')),
  amount_capturable: 0,
  amount_received: status === 'succeeded' ? Number(p.get('amount')) : 0,
  capture_method: 'automatic_async',
  client_secret: 'pi_secret_redacted',
  confirmation_method: 'automatic',
  created: 1_795_000_000,
  currency: 'uah',
  customer: p.get('customer'),
  description: p.get('description'),
  last_payment_error: null,
  latest_charge: status === 'succeeded' ? stripeId('ch') : null,
  livemode: false,
  metadata: Object.fromEntries([...p.entries()].filter(([k]) => k.startsWith('metadata[')).map(([k, v]) => [k.slice(9, -1), v])),
  next_action: null,
  payment_method: p.get('payment_method'),
  payment_method_types: ['card'],
  status,
  ...extra,
});

const cardError = (p: URLSearchParams, code: string, declineCode: string | null, message: string): Reply => {
  const error = {
    type: 'card_error',
    code,
    ...(declineCode ? { decline_code: declineCode } : {}),
    message,
    doc_url: `https://docs.stripe.com/error-codes/${code.replace(/_/g, '-')}`,
    charge: stripeId('ch'),
    request_log_url: 'https://dashboard.stripe.com/test/logs/req_fixture',
  };
  const pi = paymentIntent(p, 'requires_payment_method', {
    last_payment_error: { ...error, payment_method: { id: p.get('payment_method') } },
  });
  return [402, { error: { ...error, payment_intent: pi } }];
};

/** What Stripe answers for each fixture payment method (a first request; replays come from the store). */
const outcome = (p: URLSearchParams): Reply => {
  switch (p.get('payment_method')) {
    case 'pm_card_visa':
      return [200, paymentIntent(p, 'succeeded')];
    case 'pm_card_chargeDeclined':
      return cardError(p, 'card_declined', 'generic_decline', 'Your card was declined.');
    case 'pm_card_chargeDeclinedInsufficientFunds':
      return cardError(p, 'card_declined', 'insufficient_funds', 'Your card has insufficient funds.');
    case 'pm_card_chargeDeclinedProcessingError':
      return cardError(p, 'processing_error', null, 'An error occurred while processing your card. Try again in a little bit.');
    case 'pm_card_authenticationRequired':
      return cardError(
        p,
        'authentication_required',
        'authentication_required',
        'Your card was declined. This transaction requires authentication.',
      );
    case 'pm_fixture_api_error':
      return [500, { error: { type: 'api_error', message: 'An unknown error occurred' } }];
    case 'pm_fixture_rate_limit':
      return [429, { error: { type: 'invalid_request_error', code: 'rate_limit', message: 'Request rate limit exceeded.' } }];
    case 'pm_fixture_processing':
      return [200, paymentIntent(p, 'processing')];
    case 'pm_fixture_requires_action':
      return [200, paymentIntent(p, 'requires_action', { next_action: { type: 'use_stripe_sdk' } })];
    default:
      return [
        400,
        {
          error: {
            type: 'invalid_request_error',
            code: 'resource_missing',
            param: 'payment_method',
            message: `No such PaymentMethod: '${p.get('payment_method')}'`,
          },
        },
      ];
  }
};

/**
 * A nock-backed stand-in for Stripe's PaymentIntents endpoint with Stripe's documented idempotency:
 * it counts the requests it sees and the PaymentIntents it creates, so a test can prove "one charge".
 */
class FakeStripe {
  readonly requests: SeenRequest[] = [];
  /** PaymentIntents created (first executions), by idempotency key. */
  readonly executions: string[] = [];
  private readonly stored = new Map<string, { params: string; reply: Reply }>();
  private readonly scope: nock.Scope;

  constructor() {
    // nock's reply callbacks get their own `this` (the interceptor), so the fake is named here.
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const fake = this;
    this.scope = nock(API, {
      reqheaders: {
        authorization: `Bearer ${SECRET}`,
        'content-type': 'application/x-www-form-urlencoded',
        'idempotency-key': (v: string) => v.length > 0 && v.length <= 255,
        'stripe-version': (v: string) => /^\d{4}-\d{2}-\d{2}/.test(v),
      },
    })
      .persist()
      // The documented create request: form fields, matched here so a wrong request finds no fixture.
      .post(
        '/v1/payment_intents',
        (body: Record<string, string>) =>
          /^[1-9]\d*$/.test(body.amount ?? '') &&
          body.currency === 'uah' &&
          body.customer === CUSTOMER &&
          typeof body.payment_method === 'string' &&
          body.payment_method.startsWith('pm_') &&
          body.off_session === 'true' &&
          body.confirm === 'true' &&
          typeof body.description === 'string' &&
          body['metadata[domivka_account_id]'] === ACCOUNT &&
          body['metadata[domivka_environment]'] === 'live',
      )
      .reply(function (_uri, rawBody) {
        const params = new URLSearchParams(String(rawBody));
        const headers = this.req.headers as SeenRequest['headers'];
        fake.requests.push({ headers, body: params });
        const key = String(headers['idempotency-key']);
        const canonical = [...params.entries()]
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([k, v]) => `${k}=${v}`)
          .join('&');
        const requestId = { 'Request-Id': `req_fixture${fake.requests.length}` };
        const saved = fake.stored.get(key);
        if (saved) {
          if (saved.params !== canonical) {
            return [
              400,
              {
                error: {
                  type: 'idempotency_error',
                  message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`,
                },
              },
              requestId,
            ];
          }
          const [status, body, h] = saved.reply;
          return [status, body, { ...h, ...requestId, 'Idempotency-Key': key, 'Idempotent-Replayed': 'true' }];
        }
        const reply = outcome(params);
        fake.executions.push(key);
        fake.stored.set(key, { params: canonical, reply });
        const [status, body, h] = reply;
        return [status, body, { ...h, ...requestId, 'Idempotency-Key': key }];
      });
  }

  /** Charges that took money: succeeded PaymentIntents created. */
  get charges(): number {
    return [...this.stored.values()].filter(({ reply }) => reply[0] === 200 && reply[1].status === 'succeeded').length;
  }

  stop(): void {
    this.scope.persist(false);
    nock.cleanAll();
  }
}

const adapter = (overrides: Partial<StripePaymentsConfig> = {}) =>
  new StripePayments({ secretKey: SECRET, maxNetworkRetries: 0, timeoutMs: 5_000, ...overrides });

const rejection = async (p: Promise<unknown>): Promise<unknown> => {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error('expected a rejection');
};

describe('Stripe payments (nock fixtures of the documented API)', () => {
  useNock();
  before(() => {
    nock.disableNetConnect();
  });
  after(() => {
    nock.cleanAll();
    nock.enableNetConnect();
  });

  let contractFake: FakeStripe | undefined;
  paymentsContract('stripe', () => {
    contractFake = new FakeStripe();
    return {
      payments: adapter(),
      cards: {
        succeeding: () => stripeCard('pm_card_visa'),
        declining: () => stripeCard('pm_card_chargeDeclined', '0002'),
        failing: () => stripeCard('pm_fixture_api_error'),
      },
      cleanup: async () => {
        // The contract's charges really reached the fixture (and no bad amount did: the matcher refuses them).
        expect(contractFake!.requests.length).to.be.above(10);
        expect(contractFake!.requests.every((r) => /^[1-9]\d*$/.test(r.body.get('amount') ?? ''))).to.equal(true);
        contractFake!.stop();
      },
    };
  });

  describe('stripe specifics', () => {
    let fake: FakeStripe;
    beforeEach(() => {
      fake = new FakeStripe();
    });
    afterEach(() => {
      fake.stop();
      nock.cleanAll();
    });

    it('sends the documented off-session PaymentIntent request', async () => {
      const req = chargeOf(stripeCard('pm_card_visa'), { amount: 50_000, description: 'Domivka top-up 500.00 UAH' });
      const { providerId } = await adapter().charge(req);
      expect(providerId).to.match(/^pi_/);
      expect(fake.requests).to.have.length(1);
      const [seen] = fake.requests;
      expect(Object.fromEntries(seen!.body)).to.deep.equal({
        amount: '50000',
        currency: 'uah',
        customer: CUSTOMER,
        payment_method: 'pm_card_visa',
        off_session: 'true',
        confirm: 'true',
        description: 'Domivka top-up 500.00 UAH',
        'metadata[domivka_account_id]': ACCOUNT,
        'metadata[domivka_environment]': 'live',
      });
      expect(seen!.headers.authorization).to.equal(`Bearer ${SECRET}`);
      expect(seen!.headers['idempotency-key']).to.equal(req.idempotencyKey);
    });

    it('the same key twice: two requests with one Idempotency-Key, one PaymentIntent, one id (Stripe replays)', async () => {
      const payments = adapter();
      const req = chargeOf(stripeCard('pm_card_visa'));
      const first = await payments.charge(req);
      const again = await payments.charge({ ...req });
      expect(again).to.deep.equal(first);
      expect(fake.requests.map((r) => r.headers['idempotency-key'])).to.deep.equal([req.idempotencyKey, req.idempotencyKey]);
      expect(fake.executions).to.deep.equal([req.idempotencyKey]);
      expect(fake.charges).to.equal(1);
    });

    it('a retry of the same key by a second adapter instance (e.g. after a restart) is still one charge', async () => {
      const req = chargeOf(stripeCard('pm_card_visa'));
      const first = await adapter().charge(req);
      expect(await adapter().charge({ ...req })).to.deep.equal(first);
      expect(fake.charges).to.equal(1);
    });

    it('generic decline (402 card_error) → declined with the decline_code', async () => {
      const err = await expectPaymentError(adapter().charge(chargeOf(stripeCard('pm_card_chargeDeclined'))), 'declined');
      expect(err.code).to.equal('generic_decline');
      expect(err.message)
        .to.match(/^Your card was declined\./)
        .and.match(/payment_intent pi_/)
        .and.match(/request req_fixture1/);
      expect(fake.charges).to.equal(0);
    });

    it('insufficient funds → declined insufficient_funds', async () => {
      const err = await expectPaymentError(adapter().charge(chargeOf(stripeCard('pm_card_chargeDeclinedInsufficientFunds'))), 'declined');
      expect(err.code).to.equal('insufficient_funds');
    });

    it('off-session SCA (authentication_required) → declined: the customer has to come back on-session', async () => {
      const err = await expectPaymentError(adapter().charge(chargeOf(stripeCard('pm_card_authenticationRequired'))), 'declined');
      expect(err.code).to.equal('authentication_required');
    });

    it('a card_error with code processing_error → gateway processing_error (like the sandbox 0119 card)', async () => {
      const err = await expectPaymentError(adapter().charge(chargeOf(stripeCard('pm_card_chargeDeclinedProcessingError'))), 'gateway');
      expect(err.code).to.equal('processing_error');
    });

    it('api_error 500 → gateway api_error; Stripe replays the stored 500 for the same key', async () => {
      const payments = adapter();
      const req = chargeOf(stripeCard('pm_fixture_api_error'));
      const err = await expectPaymentError(payments.charge(req), 'gateway');
      expect(err.code).to.equal('api_error');
      await expectPaymentError(payments.charge({ ...req }), 'gateway');
      expect(fake.requests).to.have.length(2);
      expect(fake.executions).to.have.length(1);
    });

    it('with retries on, the SDK retries a 500 with the same Idempotency-Key (and gets the stored answer)', async () => {
      const err = await expectPaymentError(
        adapter({ maxNetworkRetries: 1 }).charge(chargeOf(stripeCard('pm_fixture_api_error'))),
        'gateway',
      );
      expect(err.code).to.equal('api_error');
      expect(fake.requests).to.have.length(2);
      expect(new Set(fake.requests.map((r) => r.headers['idempotency-key'])).size).to.equal(1);
      expect(fake.executions).to.have.length(1);
    }).timeout(10_000);

    it('429 rate limit → gateway rate_limit', async () => {
      const err = await expectPaymentError(adapter().charge(chargeOf(stripeCard('pm_fixture_rate_limit'))), 'gateway');
      expect(err.code).to.equal('rate_limit');
    });

    it('status processing → gateway payment_intent_processing, naming the PaymentIntent for reconciliation', async () => {
      const err = await expectPaymentError(adapter().charge(chargeOf(stripeCard('pm_fixture_processing'))), 'gateway');
      expect(err.code).to.equal('payment_intent_processing');
      expect(err.message).to.match(/PaymentIntent pi_\S+ is still processing/);
    });

    it('status requires_action → gateway payment_intent_requires_action', async () => {
      const err = await expectPaymentError(adapter().charge(chargeOf(stripeCard('pm_fixture_requires_action'))), 'gateway');
      expect(err.code).to.equal('payment_intent_requires_action');
    });

    it('a payment method Stripe does not know (400 invalid_request_error) → gateway resource_missing', async () => {
      const err = await expectPaymentError(adapter().charge(chargeOf(stripeCard('pm_unknown'))), 'gateway');
      expect(err.code).to.equal('resource_missing');
    });

    it("a wrong secret key finds no fixture: the request never passes nock's header match", async () => {
      const err = await expectPaymentError(
        adapter({ secretKey: 'sk_test_somebodyElse0000' }).charge(chargeOf(stripeCard('pm_card_visa'))),
        'gateway',
      );
      expect(err.code).to.equal('api_connection_error');
      expect(fake.requests).to.have.length(0);
    });

    it('a bad amount never reaches Stripe', async () => {
      for (const amount of [0, -1, 99.5]) {
        await rejection(adapter().charge(chargeOf(stripeCard('pm_card_visa'), { amount })));
      }
      expect(fake.requests).to.have.length(0);
    });

    it('a card without a Stripe customer is refused before Stripe with a plain Error', async () => {
      const err = await rejection(adapter().charge(chargeOf({ ...stripeCard('pm_card_visa'), customerRef: null })));
      expect((err as Error).message).to.match(/customer/);
      expect(err).to.not.have.property('reason');
      expect(fake.requests).to.have.length(0);
    });
  });

  describe('network faults (no fake; one interceptor each)', () => {
    afterEach(() => nock.cleanAll());

    it('a connection error → gateway api_connection_error', async () => {
      nock(API)
        .post('/v1/payment_intents')
        .replyWithError(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
      const err = await expectPaymentError(adapter().charge(chargeOf(stripeCard('pm_card_visa'))), 'gateway');
      expect(err.code).to.equal('api_connection_error');
    });

    it('a 2xx without a PaymentIntent → gateway invalid_response', async () => {
      nock(API).post('/v1/payment_intents').reply(200, { object: 'list', data: [] });
      const err = await expectPaymentError(adapter().charge(chargeOf(stripeCard('pm_card_visa'))), 'gateway');
      expect(err.code).to.equal('invalid_response');
    });

    it('a timeout → gateway api_connection_error (a real local peer on apiBase that never answers)', async () => {
      // nock's sockets never time out, so this one is a real server on loopback — which also proves apiBase.
      const sockets = new Set<Socket>();
      const seen: string[] = [];
      const server = createServer((req) => {
        seen.push(`${req.method} ${req.url} ${String(req.headers['idempotency-key'])}`);
      });
      server.on('connection', (s) => sockets.add(s));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      nock.enableNetConnect('127.0.0.1');
      try {
        const { port } = server.address() as AddressInfo;
        const req = chargeOf(stripeCard('pm_card_visa'));
        const err = await expectPaymentError(adapter({ apiBase: `http://127.0.0.1:${port}`, timeoutMs: 200 }).charge(req), 'gateway');
        expect(err.code).to.equal('api_connection_error');
        expect(seen).to.deep.equal([`POST /v1/payment_intents ${req.idempotencyKey}`]);
      } finally {
        nock.disableNetConnect();
        for (const s of sockets) s.destroy();
        await new Promise((resolve) => server.close(resolve));
      }
    });

    it('with retries, a 503 is retried with the same Idempotency-Key and the retry succeeds', async () => {
      const keys: string[] = [];
      const key = newIdempotencyKey('retry');
      nock(API)
        .post('/v1/payment_intents')
        .reply(function () {
          keys.push(String(this.req.headers['idempotency-key']));
          return [503, { error: { type: 'api_error', message: 'Service unavailable' } }];
        })
        .post('/v1/payment_intents')
        .reply(function (_uri, body) {
          keys.push(String(this.req.headers['idempotency-key']));
          const p = new URLSearchParams(String(body));
          return [200, paymentIntent(p, 'succeeded')];
        });
      const { providerId } = await adapter({ maxNetworkRetries: 1 }).charge(chargeOf(stripeCard('pm_card_visa'), { idempotencyKey: key }));
      expect(providerId).to.match(/^pi_/);
      expect(keys).to.deep.equal([key, key]);
    }).timeout(10_000);
  });

  describe('config (validated in the constructor)', () => {
    it('has defaults: api.stripe.com over https, 30 s, 2 retries', () => {
      expect(validateStripeConfig({ secretKey: SECRET })).to.deep.equal({
        secretKey: SECRET,
        protocol: 'https',
        host: 'api.stripe.com',
        port: 443,
        timeoutMs: DEFAULT_TIMEOUT_MS,
        maxNetworkRetries: DEFAULT_MAX_NETWORK_RETRIES,
      });
      expect(DEFAULT_TIMEOUT_MS).to.equal(30_000);
      expect(DEFAULT_MAX_NETWORK_RETRIES).to.equal(2);
    });

    it('takes an apiBase for a local peer (stripe-mock) over http on loopback', () => {
      expect(validateStripeConfig({ secretKey: SECRET, apiBase: 'http://localhost:12111' })).to.include({
        protocol: 'http',
        host: 'localhost',
        port: 12111,
      });
      expect(validateStripeConfig({ secretKey: SECRET, apiBase: 'https://stripe.internal.example:8443/' })).to.include({
        protocol: 'https',
        host: 'stripe.internal.example',
        port: 8443,
      });
    });

    const bad: Array<[string, StripePaymentsConfig]> = [
      ['no key', { secretKey: '' }],
      ['a publishable key', { secretKey: 'pk_test_abcdefgh12345678' }],
      ['a malformed key', { secretKey: 'sk_prod_abcdefgh12345678' }],
      ['a key with spaces', { secretKey: 'sk_test_abc def ghi jkl' }],
      ['apiBase not a URL', { secretKey: SECRET, apiBase: 'api.stripe.com' }],
      ['apiBase over http to a remote host', { secretKey: SECRET, apiBase: 'http://api.stripe.com' }],
      ['apiBase with a path', { secretKey: SECRET, apiBase: 'https://api.stripe.com/v1' }],
      ['apiBase with credentials', { secretKey: SECRET, apiBase: 'https://u:p@api.stripe.com' }],
      ['apiBase ftp', { secretKey: SECRET, apiBase: 'ftp://api.stripe.com' }],
      ['timeoutMs 0', { secretKey: SECRET, timeoutMs: 0 }],
      ['timeoutMs fractional', { secretKey: SECRET, timeoutMs: 1.5 }],
      ['maxNetworkRetries negative', { secretKey: SECRET, maxNetworkRetries: -1 }],
      ['maxNetworkRetries too many', { secretKey: SECRET, maxNetworkRetries: 11 }],
    ];
    for (const [what, config] of bad) {
      it(`refuses ${what}`, () => {
        expect(() => new StripePayments(config)).to.throw(/^StripePayments config: /);
      });
    }

    it('never echoes the secret key in its errors', () => {
      expect(() => new StripePayments({ secretKey: SECRET, timeoutMs: -5 }))
        .to.throw()
        .with.property('message')
        .that.does.not.include(SECRET);
    });
  });
});
