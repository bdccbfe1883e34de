import { expect } from 'chai';
import nock, { useNock } from '../../../test/support/nock.js';
import { PaymentError } from '../../../core/billing/ports/payments.port.js';
import { StripeCardSetup } from './index.js';

/**
 * Changing the payment method through Stripe SetupIntents, against nock fixtures of Stripe's documented
 * API v1 (POST /v1/customers, POST /v1/setup_intents, GET /v1/setup_intents/{id}?expand[]=payment_method).
 */
const API = 'https://api.stripe.com';
const SECRET = 'sk_test_4eC39HqLyjWDarjtT1zdp7dc';
const setup = () => new StripeCardSetup({ secretKey: SECRET, maxNetworkRetries: 0, timeoutMs: 5_000 });
const form = (body: unknown) => new URLSearchParams(String(body));

const succeeded = (overrides: Record<string, unknown> = {}) => ({
  id: 'seti_123',
  object: 'setup_intent',
  status: 'succeeded',
  customer: 'cus_abc',
  client_secret: 'seti_123_secret_x',
  metadata: { domivka_account_id: 'acc-1', domivka_environment: 'live' },
  payment_method: { id: 'pm_card_1', object: 'payment_method', type: 'card', card: { brand: 'mastercard', last4: '4444' } },
  ...overrides,
});

describe('Stripe card setup (SetupIntents, nock fixtures of the documented API)', () => {
  useNock();
  before(() => nock.disableNetConnect());
  after(() => {
    nock.cleanAll();
    nock.enableNetConnect();
  });
  afterEach(() => nock.cleanAll());

  it('start: creates the Customer once, then an off-session card SetupIntent tagged with the account', async () => {
    const bodies: Record<string, URLSearchParams> = {};
    const scope = nock(API, { reqheaders: { authorization: `Bearer ${SECRET}` } })
      .post('/v1/customers', (b) => {
        bodies.customer = form(new URLSearchParams(b).toString());
        return true;
      })
      .reply(200, { id: 'cus_abc', object: 'customer' })
      .post('/v1/setup_intents', (b) => {
        bodies.setup = new URLSearchParams(b);
        return true;
      })
      .reply(200, {
        id: 'seti_123',
        object: 'setup_intent',
        status: 'requires_payment_method',
        client_secret: 'seti_123_secret_x',
        customer: 'cus_abc',
      });
    const s = await setup().start({ accountId: 'acc-1', environment: 'live', customerRef: null, email: 'owner@example.com' });
    expect(s).to.deep.equal({ setupRef: 'seti_123', clientSecret: 'seti_123_secret_x', customerRef: 'cus_abc' });
    expect(bodies.customer!.get('email')).to.equal('owner@example.com');
    expect(bodies.setup!.get('customer')).to.equal('cus_abc');
    expect(bodies.setup!.get('usage')).to.equal('off_session');
    expect(bodies.setup!.get('allowed_payment_method_types[0]')).to.equal('card');
    expect(bodies.setup!.get('metadata[domivka_account_id]')).to.equal('acc-1');
    expect(scope.isDone()).to.equal(true);
  });

  it('start with a known customer creates no second Customer', async () => {
    const scope = nock(API)
      .post('/v1/setup_intents', (b) => new URLSearchParams(b).get('customer') === 'cus_known')
      .reply(200, {
        id: 'seti_9',
        object: 'setup_intent',
        status: 'requires_payment_method',
        client_secret: 'seti_9_secret',
        customer: 'cus_known',
      });
    const s = await setup().start({ accountId: 'acc-1', environment: 'live', customerRef: 'cus_known', email: 'owner@example.com' });
    expect(s.customerRef).to.equal('cus_known');
    expect(scope.isDone()).to.equal(true);
  });

  it('complete: a succeeded setup of this account becomes the saved card', async () => {
    nock(API)
      .get('/v1/setup_intents/seti_123')
      .query((q) => q['expand[0]'] === 'payment_method' || JSON.stringify(q).includes('payment_method'))
      .reply(200, succeeded());
    const card = await setup().complete({ accountId: 'acc-1', environment: 'live', setupRef: 'seti_123' });
    expect(card).to.deep.equal({
      accountId: 'acc-1',
      environment: 'live',
      brand: 'mastercard',
      last4: '4444',
      paymentMethodRef: 'pm_card_1',
      customerRef: 'cus_abc',
    });
  });

  for (const [what, body, code] of [
    [
      'a setup still waiting for the card',
      succeeded({ status: 'requires_payment_method', payment_method: null }),
      'setup_requires_payment_method',
    ],
    ['a setup that needs 3-D Secure', succeeded({ status: 'requires_action' }), 'setup_requires_action'],
    [
      'a setup of another account',
      succeeded({ metadata: { domivka_account_id: 'acc-2', domivka_environment: 'live' } }),
      'setup_not_this_account',
    ],
  ] as const) {
    it(`complete refuses ${what} (${code})`, async () => {
      nock(API).get('/v1/setup_intents/seti_123').query(true).reply(200, body);
      let caught: unknown;
      try {
        await setup().complete({ accountId: 'acc-1', environment: 'live', setupRef: 'seti_123' });
      } catch (e) {
        caught = e;
      }
      expect(caught).to.be.instanceOf(PaymentError);
      expect((caught as PaymentError).reason).to.equal('declined');
      expect((caught as PaymentError).code).to.equal(code);
    });
  }

  it('a Stripe failure is a gateway error', async () => {
    nock(API)
      .get('/v1/setup_intents/seti_404')
      .query(true)
      .reply(404, { error: { type: 'invalid_request_error', code: 'resource_missing', message: 'No such setupintent' } });
    let caught: unknown;
    try {
      await setup().complete({ accountId: 'acc-1', environment: 'live', setupRef: 'seti_404' });
    } catch (e) {
      caught = e;
    }
    expect(caught).to.be.instanceOf(PaymentError);
    expect((caught as PaymentError).reason).to.equal('gateway');
    expect((caught as PaymentError).code).to.equal('resource_missing');
  });
});
