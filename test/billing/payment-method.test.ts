import { expect } from 'chai';
import nock, { useNock } from '../support/nock.js';
import { TOKENS } from '../../src/tokens.js';
import { StripeCardSetup } from '../../adapters/payments/stripe/index.js';
import { ChangePaymentMethod } from '../../core/billing/change-payment-method.use-case.js';
import type { CardSetup } from '../../core/billing/ports/card-setup.port.js';
import type { HumanContext } from '../../core/kernel/person.js';
import { eachStore } from '../support/stores.js';
import { addPerson, startApi, type TestApi } from '../support/system.js';
import { refusal } from '../support/refusal.js';

/** The Luhn check digit (ISO/IEC 7812-1) appended to `body`: written here apart from the use case's check. */
const withLuhn = (body: string): string => {
  for (let c = 0; c <= 9; c++) {
    const digits = body + c;
    let sum = 0;
    [...digits].reverse().forEach((ch, i) => {
      const d = Number(ch) * (i % 2 === 1 ? 2 : 1);
      sum += d > 9 ? d - 9 : d;
    });
    if (sum % 10 === 0) return digits;
  }
  throw new Error('unreachable');
};

/**
 * Changing the payment method (seed A6: a human-only action): the card number's checks and brand in the test
 * environment, the owner and recent sign-in guards, and the live card setup's answers (Stripe through nock).
 */
eachStore('The payment method: card checks, guards and the live card setup', (kind) => {
  let api: TestApi;
  let owner: HumanContext;
  before(async () => {
    api = await startApi(kind);
    api.clock.set(new Date('2026-11-21T10:00:00Z'));
  });
  after(async () => api.close());
  const human = async (who?: Parameters<TestApi['signIn']>[0]): Promise<HumanContext> => {
    const cookie = await api.signIn(who);
    return api.system.get(TOKENS.AuthenticateSession).execute(decodeURIComponent(cookie.split('=')[1]!));
  };
  // A fresh sign-in for each test: the guard wants one within 5 minutes.
  beforeEach(async () => {
    owner = await human();
  });

  const useCase = (live: StripeCardSetup | null = null) =>
    new ChangePaymentMethod({
      cards: api.system.store.savedCards,
      setups: (e) => (e === 'live' ? live : null),
      events: api.system.get(TOKENS.Recorder),
      uow: api.system.store.uow,
      random: api.system.get(TOKENS.Random),
      clock: api.clock,
    });

  describe('a sandbox card by number', () => {
    it('a Luhn-valid number of 12 to 19 digits is saved with its brand and last four digits', async () => {
      const uc = useCase();
      for (const [number, brand] of [
        ['4242424242424242', 'visa'],
        ['5555555555554444', 'mastercard'],
        ['2223003122003222', 'mastercard'],
        ['378282246310005', 'amex'],
        ['6011111111111117', 'card'],
      ] as const) {
        expect(await uc.saveSandboxCard(owner, number), number).to.deep.equal({ environment: 'test', brand, last4: number.slice(-4) });
      }
      const saved = await api.system.store.savedCards.find(api.demo.accountId, 'test');
      expect(saved).to.include({ brand: 'card', last4: '1117', paymentMethodRef: 'pm_sandbox_1117', customerRef: null });
      expect(await uc.current(owner, 'test')).to.deep.equal({ environment: 'test', brand: 'card', last4: '1117' });
      expect(await uc.current(owner, 'live')).to.equal(null);
      // Each change is an event that says whose account, who changed it and to which card.
      const last = await api.system.store.uow
        .db()('events')
        .where({ account_id: api.demo.accountId, type: 'account.payment_method_changed' })
        .orderBy('seq', 'desc')
        .first();
      expect(last).to.include({ environment: 'test', subject: `account:${api.demo.accountId}`, actor: `person:${owner.person.id}` });
      expect(JSON.parse(last.data)).to.deep.equal({ brand: 'card', last4: '1117', actor_email: owner.person.email });
    });

    it('the brand comes from the leading digits: 4 Visa, 51–55 and 22–27 Mastercard, 34 and 37 Amex, the rest a card', async () => {
      const uc = useCase();
      const brandOf = async (prefix: string) => (await uc.saveSandboxCard(owner, withLuhn(prefix.padEnd(15, '0')))).brand;
      expect(await brandOf('4')).to.equal('visa');
      for (const p of ['51', '53', '55', '22', '25', '27']) expect(await brandOf(p), p).to.equal('mastercard');
      for (const p of ['34', '37']) expect(await brandOf(p), p).to.equal('amex');
      for (const p of ['50', '56', '21', '28', '33', '35', '38', '6', '1', '94']) expect(await brandOf(p), p).to.equal('card');
      // Only the leading digits count: the same pairs further in make no brand.
      for (const p of ['6055', '6034', '6037', '1225']) expect(await brandOf(p), p).to.equal('card');
    });

    it('spaces and dashes are ignored; any other character, a length outside 12–19 or a wrong check digit is card_invalid', async () => {
      const uc = useCase();
      expect((await uc.saveSandboxCard(owner, '4242-4242 4242\t4242')).last4).to.equal('4242');
      const valid = ['4242424242424242', withLuhn('4'.padEnd(11, '1')), withLuhn('4'.padEnd(18, '1'))];
      expect(valid.map((v) => v.length)).to.deep.equal([16, 12, 19]);
      for (const v of valid) expect((await uc.saveSandboxCard(owner, v)).last4, v).to.equal(v.slice(-4));
      const invalid = [
        '4242424242424241', // check digit off by one
        '4242424242424224', // two neighbours swapped
        '4343424242424242', // a doubled digit changed
        withLuhn('4'.padEnd(10, '1')), // 11 digits
        withLuhn('4'.padEnd(19, '1')), // 20 digits
        '4242424242424242x',
        '4242.4242.4242.4242',
        '',
      ];
      for (const bad of invalid) expect((await refusal(uc.saveSandboxCard(owner, bad))).code, bad).to.equal('card_invalid');
    });

    it('is for owners only, signed in within 5 minutes', async () => {
      const member = await addPerson(api, 'member', 'member-card@example.com');
      const notOwner = await refusal(useCase().saveSandboxCard(await human(member), '4242424242424242'));
      expect(notOwner.code).to.equal('owner_only');
      expect(notOwner.params).to.deep.equal({ action: 'payment_method' });
      owner = await human(); // signing in moves the test clock on
      api.clock.advance(5 * 60_000);
      expect((await useCase().saveSandboxCard(owner, '4242424242424242')).brand).to.equal('visa');
      api.clock.advance(1);
      expect((await refusal(useCase().saveSandboxCard(owner, '4242424242424242'))).code).to.equal('reauth_required');
      expect((await refusal(useCase().startSetup(owner, 'live'))).code).to.equal('reauth_required');
      expect((await refusal(useCase().completeSetup(owner, 'live', 'seti_x'))).code).to.equal('reauth_required');
    });
  });

  describe('the live card setup', () => {
    useNock();
    beforeEach(() => {
      nock.disableNetConnect();
      nock.enableNetConnect('127.0.0.1');
    });
    afterEach(() => nock.cleanAll());
    const stripe = () => new StripeCardSetup({ secretKey: 'sk_test_4eC39HqLyjWDarjtT1zdp7dc', maxNetworkRetries: 0 });
    const intent = (status: string) => ({
      id: 'seti_1',
      object: 'setup_intent',
      status,
      customer: 'cus_1',
      metadata: { domivka_account_id: api.demo.accountId, domivka_environment: 'live' },
      payment_method: { id: 'pm_1', object: 'payment_method', type: 'card', card: { brand: 'mastercard', last4: '4444' } },
    });

    it('an environment without one is card_setup_unavailable, for start and complete alike', async () => {
      for (const p of [useCase().startSetup(owner, 'live'), useCase().completeSetup(owner, 'live', 'seti_1')]) {
        const e = await refusal(p);
        expect(e.code).to.equal('card_setup_unavailable');
        expect(e.params).to.deep.equal({ environment: 'live' });
      }
    });

    it('a setup that did not succeed is card_declined with its status; a Stripe failure is payment_failed', async () => {
      nock('https://api.stripe.com').get('/v1/setup_intents/seti_1').query(true).reply(200, intent('requires_payment_method'));
      const declined = await refusal(useCase(stripe()).completeSetup(owner, 'live', 'seti_1'));
      expect(declined.code).to.equal('card_declined');
      expect(declined.params).to.deep.equal({ card: '(SetupIntent)', reason: 'setup_requires_payment_method' });
      nock('https://api.stripe.com')
        .get('/v1/setup_intents/seti_1')
        .query(true)
        .reply(500, { error: { type: 'api_error', message: 'Stripe is down' } });
      const failed = await refusal(useCase(stripe()).completeSetup(owner, 'live', 'seti_1'));
      expect(failed.code).to.equal('payment_failed');
      expect(failed.params).to.deep.equal({ card: '(SetupIntent)', reason: 'api_error' });
      expect(await api.system.store.savedCards.find(api.demo.accountId, 'live')).to.equal(null);
    });

    it('the first setup, with no card saved, creates the Stripe customer with the owner’s email', async () => {
      let email = '';
      let customer = '';
      nock('https://api.stripe.com')
        .post('/v1/customers', (b) => {
          email = new URLSearchParams(b as string).get('email') ?? JSON.stringify(b);
          return true;
        })
        .reply(200, { id: 'cus_new', object: 'customer' })
        .post('/v1/setup_intents', (b) => {
          customer = new URLSearchParams(b as string).get('customer') ?? JSON.stringify(b);
          return true;
        })
        .reply(200, {
          id: 'seti_0',
          object: 'setup_intent',
          status: 'requires_payment_method',
          client_secret: 'seti_0_secret',
          customer: 'cus_new',
        });
      expect(await useCase(stripe()).startSetup(owner, 'live')).to.deep.equal({ setup_id: 'seti_0', client_secret: 'seti_0_secret' });
      expect([email, customer]).to.deep.equal([owner.person.email, 'cus_new']);
    });

    it('an error that is not a payment outcome is passed on as it is, not told as a failed payment', async () => {
      const bug = new TypeError('a bug in the adapter');
      const broken: CardSetup = {
        start: () => Promise.reject(bug),
        complete: () => Promise.reject(bug),
      };
      const uc = new ChangePaymentMethod({
        cards: api.system.store.savedCards,
        setups: () => broken,
        events: api.system.get(TOKENS.Recorder),
        uow: api.system.store.uow,
        random: api.system.get(TOKENS.Random),
        clock: api.clock,
      });
      for (const p of [uc.startSetup(owner, 'live'), uc.completeSetup(owner, 'live', 'seti_1')]) {
        let caught: unknown;
        try {
          await p;
        } catch (e) {
          caught = e;
        }
        expect(caught).to.equal(bug);
      }
    });

    it('a second setup reuses the customer of the saved card (no new Stripe customer)', async () => {
      nock('https://api.stripe.com').get('/v1/setup_intents/seti_1').query(true).reply(200, intent('succeeded'));
      expect(await useCase(stripe()).completeSetup(owner, 'live', 'seti_1')).to.deep.equal({
        environment: 'live',
        brand: 'mastercard',
        last4: '4444',
      });
      let body = '';
      nock('https://api.stripe.com')
        .post('/v1/setup_intents', (b) => {
          body = new URLSearchParams(b as string).get('customer') ?? JSON.stringify(b);
          return true;
        })
        .reply(200, {
          id: 'seti_2',
          object: 'setup_intent',
          status: 'requires_payment_method',
          client_secret: 'seti_2_secret',
          customer: 'cus_1',
        });
      expect(await useCase(stripe()).startSetup(owner, 'live')).to.deep.equal({ setup_id: 'seti_2', client_secret: 'seti_2_secret' });
      expect(body).to.equal('cus_1');
    });
  });
});
