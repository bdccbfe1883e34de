import { expectErrorShape } from '../support/error-shape.js';
import { expect } from 'chai';
import { generate } from 'otplib';
import nock from '../support/nock.js';
import { TOKENS } from '../../src/tokens.js';
import { StripeCardSetup } from '../../adapters/payments/stripe/index.js';
import { ChangePaymentMethod } from '../../core/billing/change-payment-method.use-case.js';
import { eachStore } from '../support/stores.js';
import { addPerson, startApi, type TestApi } from '../support/system.js';

/**
 * The six human-only actions (seed A6, DESIGN) through the session API and their use cases:
 * reveal the transfer code, change the registrant, manage people (and keys), change the payment method,
 * switch off two-factor checks, delete the account. Each state change appends its event.
 */
eachStore('The six human-only actions (seed A6)', (kind) => {
  let api: TestApi;
  let owner: string;
  const cookieHeaders = (c: string) => ({ cookie: c });
  const totp = async (secret: string) => {
    api.clock.advance(31_000);
    return generate({ secret, epoch: Math.floor(api.clock.now().getTime() / 1000) });
  };
  const reauth = async (c: string, who = api.demo) => {
    const r = await api.call('/v1/account/reauthentications', {
      method: 'POST',
      headers: cookieHeaders(c),
      json: { password: who.password, totp: await totp(who.totpSecret) },
    });
    expect(r.status, JSON.stringify(r.body)).to.equal(201);
  };
  const events = (type: string) => api.system.store.uow.db()('events').where({ type });

  beforeEach(async function () {
    this.timeout(60_000);
    api = await startApi(kind);
    owner = await api.signIn();
  });
  afterEach(async () => api?.close());

  describe('sign in again (re-auth)', () => {
    it('a wrong password or code is refused; a right one opens a 5-minute window', async () => {
      api.clock.advance(6 * 60_000);
      const bad = await api.call('/v1/account/reauthentications', {
        method: 'POST',
        headers: cookieHeaders(owner),
        json: { password: 'nope', totp: '000000' },
      });
      expect(bad.status).to.equal(401);
      expect(bad.body.error.code).to.equal('sign_in_failed');
      await reauth(owner);
      expect(await events('person.reauthenticated')).to.have.length(1);
    });
  });

  describe('reveal the transfer code', () => {
    const reveal = (c: string, domain = 'domivka-demo.com.ua', headers: Record<string, string> = {}) =>
      api.call(`/v1/account/domains/${domain}/transfer-code`, {
        method: 'POST',
        headers: { ...cookieHeaders(c), ...headers },
        json: { environment: 'test' },
      });

    it('needs a sign-in within 5 minutes; then answers the code, records an event and tells every owner', async () => {
      const second = await addPerson(api, 'owner', 'second@example.com');
      api.clock.advance(5 * 60_000 + 1000);
      const stale = await reveal(owner);
      expect(stale.status).to.equal(403);
      expect(stale.body.error.code).to.equal('reauth_required');
      expect(stale.body.error.message.uk).to.include('5');
      expect(stale.body.error.actions.map((a: { href: string }) => a.href)).to.include('/console/reauth');
      await reauth(owner);
      const r = await reveal(owner);
      expect(r.status).to.equal(200);
      expect(r.headers.get('cache-control')).to.equal('no-store');
      expect(r.body.transfer_code).to.equal((await api.system.store.sandboxRegistry.find('domivka-demo.com.ua'))!.transferCode);
      const ev = await events('domain.transfer_code_revealed');
      expect(ev).to.have.length(1);
      expect(ev[0].environment).to.equal('test');
      for (const id of [api.demo.personId, second.id]) {
        const ns = await api.system.store.notices.listForPerson(id, 'test', undefined, 10);
        expect(
          ns.map((n) => n.kind),
          id,
        ).to.include('domain.transfer_code_revealed');
      }
    });

    it('right after sign-in it works; a replay never shows the code again', async () => {
      const first = await reveal(owner, 'domivka-demo.dev', { 'idempotency-key': 'reveal-1' });
      expect(first.status).to.equal(200);
      expect(first.body.transfer_code).to.be.a('string');
      const again = await reveal(owner, 'domivka-demo.dev', { 'idempotency-key': 'reveal-1' });
      expect(again.headers.get('idempotent-replayed')).to.equal('true');
      expect(again.body.transfer_code).to.equal(null);
    });

    it('a member is refused (owners only); an unknown domain is 404', async () => {
      const m = await addPerson(api, 'member', 'member@example.com');
      const mc = await api.signIn(m);
      const r = await reveal(mc);
      expect(r.status).to.equal(403);
      expect(r.body.error.code).to.equal('owner_only');
      const nf = await reveal(owner, 'not-ours.com.ua');
      expectErrorShape(nf, 404, 'domain_not_found');
      expect(await events('domain.transfer_code_revealed')).to.have.length(0);
    });
  });

  describe('change the registrant', () => {
    const registrant = {
      name: 'Олена Коваль',
      organization: null,
      email: 'olena@example.com.ua',
      phone: '+380.441234567',
      address: { street: ['вул. Хрещатик, 1'], city: 'Київ', postal_code: '01001', country_code: 'UA' },
    };
    it('goes through the registrar port; the sandbox registry holds the contact; an event and notices follow', async () => {
      const r = await api.call('/v1/account/domains/domivka-demo.com.ua/registrant', {
        method: 'PUT',
        headers: cookieHeaders(owner),
        json: { environment: 'test', registrant },
      });
      expect(r.status, JSON.stringify(r.body)).to.equal(200);
      expect(r.body.registrant.address.country_code).to.equal('UA');
      const held = (await api.system.store.sandboxRegistry.find('domivka-demo.com.ua'))!.registrant!;
      expect(held.name).to.equal('Олена Коваль');
      expect(held.address.countryCode).to.equal('UA');
      expect(await events('domain.registrant_changed')).to.have.length(1);
    });
    it('a contact a registry would refuse is 422 with every reason, and nothing changes', async () => {
      const r = await api.call('/v1/account/domains/domivka-demo.com.ua/registrant', {
        method: 'PUT',
        headers: cookieHeaders(owner),
        json: {
          environment: 'test',
          registrant: { ...registrant, email: 'nope', phone: '0441234567', address: { ...registrant.address, country_code: 'U' } },
        },
      });
      expect(r.status).to.equal(422);
      expect(r.body.error.code).to.equal('validation_failed');
      expect(r.body.error.details.map((d: { field: string }) => d.field)).to.include.members(['email', 'phone', 'address.country_code']);
      expect((await api.system.store.sandboxRegistry.find('domivka-demo.com.ua'))!.registrant ?? null).to.equal(null);
      expect(await events('domain.registrant_changed')).to.have.length(0);
    });
    it('a character XML 1.0 forbids (U+0001, U+001B, U+FFFE, a lone surrogate) in any contact field is 422 contact_character_forbidden, nothing reaches the registry', async () => {
      const cases: Array<[string, unknown, string]> = [
        ['name', { ...registrant, name: 'Олена\u0001Коваль' }, 'U+0001'],
        ['organization', { ...registrant, organization: 'ТОВ \u001b[31mДомівка' }, 'U+001B'],
        ['address.city', { ...registrant, address: { ...registrant.address, city: 'Київ\ufffe' } }, 'U+FFFE'],
        ['address.street.0', { ...registrant, address: { ...registrant.address, street: ['вул. \ud800Хрещатик'] } }, 'U+D800'],
      ];
      for (const [field, body, character] of cases) {
        const r = await api.call('/v1/account/domains/domivka-demo.com.ua/registrant', {
          method: 'PUT',
          headers: cookieHeaders(owner),
          json: { environment: 'test', registrant: body },
        });
        expectErrorShape(r, 422, 'contact_character_forbidden');
        expect(r.body.error.details, field).to.deep.equal([{ field, rule: 'xml-char', character }]);
        expect(r.body.error.message.en).to.contain(character);
      }
      expect((await api.system.store.sandboxRegistry.find('domivka-demo.com.ua'))!.registrant ?? null).to.equal(null);
      expect(await events('domain.registrant_changed')).to.have.length(0);
    });
  });

  describe('manage people', () => {
    it('invite by e-mail link → accept with a one-time token → the new person signs in with TOTP', async () => {
      const inv = await api.call('/v1/account/invitations', {
        method: 'POST',
        headers: cookieHeaders(owner),
        json: { email: 'New.Person@Example.com', role: 'member' },
      });
      expect(inv.status, JSON.stringify(inv.body)).to.equal(201);
      const token = /\/invitations\?token=([0-9A-Za-z]{43})$/.exec(inv.body.link)![1]!;
      const mail = await api.system.store.uow.db()('notice_deliveries').where({ address: 'new.person@example.com' });
      expect(mail).to.have.length(1);
      expect(mail[0].body).to.include(inv.body.link);
      expect((await api.call(`/v1/invitations?token=${token}`)).body).to.include({ email: 'new.person@example.com', role: 'member' });
      const acc = await api.call('/v1/invitations/accept', {
        method: 'POST',
        json: { token, name: 'New Person', password: 'a long enough password' },
      });
      expect(acc.status, JSON.stringify(acc.body)).to.equal(201);
      expect(acc.body.totp_uri).to.match(/^otpauth:\/\/totp\//);
      const again = await api.call('/v1/invitations/accept', {
        method: 'POST',
        json: { token, name: 'Twice', password: 'a long enough password' },
      });
      expect(again.status).to.equal(404);
      expect(again.body.error.code).to.equal('invitation_invalid');
      const c = await api.signIn({ email: 'new.person@example.com', password: 'a long enough password', totpSecret: acc.body.totp_secret });
      expect((await api.call('/v1/account', { headers: cookieHeaders(c) })).body.person.role).to.equal('member');
      expect(await events('person.invited')).to.have.length(1);
      expect(await events('person.joined')).to.have.length(1);
      // A member cannot invite.
      const refused = await api.call('/v1/account/invitations', {
        method: 'POST',
        headers: cookieHeaders(c),
        json: { email: 'x@example.com', role: 'owner' },
      });
      expect(refused.status).to.equal(403);
      expect(refused.body.error.code).to.equal('owner_only');
    });

    it('the last owner cannot be demoted, removed or leave; with a second owner they can', async () => {
      const me = api.demo.personId;
      for (const [method, path, json] of [
        ['PATCH', `/v1/account/people/${me}`, { role: 'member' }],
        ['DELETE', `/v1/account/people/${me}`, undefined],
      ] as const) {
        const r = await api.call(path, { method, headers: cookieHeaders(owner), ...(json ? { json } : {}) });
        expect(r.status, `${method} ${path}`).to.equal(409);
        expect(r.body.error.code).to.equal('last_owner');
        expect(r.body.error.message.en).to.include('last owner');
      }
      const m = await addPerson(api, 'member', 'm@example.com');
      const up = await api.call(`/v1/account/people/${m.id}`, { method: 'PATCH', headers: cookieHeaders(owner), json: { role: 'owner' } });
      expect(up.status).to.equal(200);
      expect(up.body.role).to.equal('owner');
      const down = await api.call(`/v1/account/people/${me}`, { method: 'PATCH', headers: cookieHeaders(owner), json: { role: 'member' } });
      expect(down.status).to.equal(200);
      expect(await events('person.role_changed')).to.have.length(2);
    });

    it('two owners demoting each other at once: exactly one succeeds, the account keeps an owner', async () => {
      const other = await addPerson(api, 'owner', 'o2@example.com');
      const oc = await api.signIn(other);
      const [a, b] = await Promise.all([
        api.call(`/v1/account/people/${other.id}`, { method: 'PATCH', headers: cookieHeaders(owner), json: { role: 'member' } }),
        api.call(`/v1/account/people/${api.demo.personId}`, { method: 'PATCH', headers: cookieHeaders(oc), json: { role: 'member' } }),
      ]);
      // The loser is refused either as no longer an owner (403) or as demoting the last owner (409).
      const statuses = [a.status, b.status].sort((x, y) => x - y);
      expect(statuses[0]).to.equal(200);
      expect([403, 409]).to.include(statuses[1]);
      expect(await api.system.store.accounts.owners(api.demo.accountId)).to.have.length(1);
    });

    it('removing a person ends their sessions and revokes their keys', async () => {
      const m = await addPerson(api, 'member', 'leaver@example.com');
      const mc = await api.signIn(m);
      const key = await api.issueKey({ environment: 'test', template: 'read_only', label: 'prod' }, mc);
      const r = await api.call(`/v1/account/people/${m.id}`, { method: 'DELETE', headers: cookieHeaders(owner) });
      expect(r.status).to.equal(204);
      expectErrorShape(await api.call('/v1/account', { headers: cookieHeaders(mc) }), 401, 'session_required');
      expect((await api.system.store.keys.findById(key.id))!.revokedAt).to.not.equal(null);
      const list = await api.call('/v1/account/people', { headers: cookieHeaders(owner) });
      expect(list.body.people.map((p: { email: string }) => p.email)).to.not.include('leaver@example.com');
      expect(await events('person.removed')).to.have.length(1);
    });
  });

  describe('change the payment method', () => {
    it('a sandbox card by number (after signing in again); a wrong number is refused', async () => {
      const bad = await api.call('/v1/account/payment-method', {
        method: 'PUT',
        headers: cookieHeaders(owner),
        json: { environment: 'test', card_number: '4242 4242 4242 4241' },
      });
      expect(bad.status).to.equal(422);
      expect(bad.body.error.code).to.equal('card_invalid');
      const r = await api.call('/v1/account/payment-method', {
        method: 'PUT',
        headers: cookieHeaders(owner),
        json: { environment: 'test', card_number: '4000 0000 0000 0002' },
      });
      expect(r.status, JSON.stringify(r.body)).to.equal(200);
      expect(r.body).to.deep.equal({ environment: 'test', brand: 'visa', last4: '0002' });
      expect((await api.call('/v1/account/payment-method?environment=test', { headers: cookieHeaders(owner) })).body.card.last4).to.equal(
        '0002',
      );
      expect(await events('account.payment_method_changed')).to.have.length(1);
      api.clock.advance(6 * 60_000);
      const stale = await api.call('/v1/account/payment-method', {
        method: 'PUT',
        headers: cookieHeaders(owner),
        json: { environment: 'test', card_number: '4242424242424242' },
      });
      expect(stale.body.error.code).to.equal('reauth_required');
    });
    it("live: the use case saves the card of a succeeded Stripe SetupIntent (nock for Stripe's API)", async () => {
      const st = api.system.store;
      const uc = new ChangePaymentMethod({
        cards: st.savedCards,
        setups: (e) => (e === 'live' ? new StripeCardSetup({ secretKey: 'sk_test_4eC39HqLyjWDarjtT1zdp7dc', maxNetworkRetries: 0 }) : null),
        events: api.system.get(TOKENS.Recorder),
        uow: st.uow,
        random: api.system.get(TOKENS.Random),
        clock: api.clock,
      });
      const human = await api.system.get(TOKENS.AuthenticateSession).execute(decodeURIComponent(owner.split('=')[1]!));
      if (!nock.isActive()) nock.activate();
      nock.disableNetConnect();
      nock.enableNetConnect('127.0.0.1');
      try {
        nock('https://api.stripe.com')
          .post('/v1/customers')
          .reply(200, { id: 'cus_live1', object: 'customer' })
          .post('/v1/setup_intents')
          .reply(200, {
            id: 'seti_live1',
            object: 'setup_intent',
            status: 'requires_payment_method',
            client_secret: 'seti_live1_secret_y',
            customer: 'cus_live1',
          })
          .get('/v1/setup_intents/seti_live1')
          .query(true)
          .reply(200, {
            id: 'seti_live1',
            object: 'setup_intent',
            status: 'succeeded',
            customer: 'cus_live1',
            metadata: { domivka_account_id: api.demo.accountId, domivka_environment: 'live' },
            payment_method: { id: 'pm_live1', object: 'payment_method', type: 'card', card: { brand: 'visa', last4: '1881' } },
          });
        const started = await uc.startSetup(human, 'live');
        expect(started).to.deep.equal({ setup_id: 'seti_live1', client_secret: 'seti_live1_secret_y' });
        const card = await uc.completeSetup(human, 'live', 'seti_live1');
        expect(card).to.deep.equal({ environment: 'live', brand: 'visa', last4: '1881' });
        const saved = await st.savedCards.find(api.demo.accountId, 'live');
        expect(saved).to.include({ paymentMethodRef: 'pm_live1', customerRef: 'cus_live1', last4: '1881' });
        expect((await events('account.payment_method_changed')).map((e) => e.environment)).to.deep.equal(['live']);
      } finally {
        nock.cleanAll();
        nock.enableNetConnect();
        nock.restore();
      }
    });

    it('the live card setup says when it is not configured', async () => {
      const r = await api.call('/v1/account/payment-method/setups', {
        method: 'POST',
        headers: cookieHeaders(owner),
        json: { environment: 'live' },
      });
      expect(r.status).to.equal(503);
      expect(r.body.error.code).to.equal('card_setup_unavailable');
    });
  });

  describe('switch off two-factor checks', () => {
    it('needs a fresh sign-in; then sign-in takes the password only and every owner is told', async () => {
      api.clock.advance(6 * 60_000);
      expect((await api.call('/v1/account/two-factor', { method: 'DELETE', headers: cookieHeaders(owner) })).body.error.code).to.equal(
        'reauth_required',
      );
      await reauth(owner);
      const r = await api.call('/v1/account/two-factor', { method: 'DELETE', headers: cookieHeaders(owner) });
      expect(r.status).to.equal(200);
      expect(r.body).to.deep.equal({ two_factor: false });
      const s = await api.call('/v1/account/sessions', {
        method: 'POST',
        json: { email: api.demo.email, password: api.demo.password, totp: '' },
      });
      expect(s.status).to.equal(201);
      const wrong = await api.call('/v1/account/sessions', {
        method: 'POST',
        json: { email: api.demo.email, password: 'wrong', totp: '' },
      });
      expectErrorShape(wrong, 401, 'sign_in_failed');
      expect(await events('person.two_factor_disabled')).to.have.length(1);
      const ns = await api.system.store.notices.listForPerson(api.demo.personId, 'live', undefined, 10);
      expect(ns.map((n) => n.kind)).to.include('person.two_factor_disabled');
    });
  });

  describe('switch two-factor checks on again, with a new secret', () => {
    const enrol = (c: string, headers: Record<string, string> = {}) =>
      api.call('/v1/account/two-factor/enrolment', { method: 'POST', headers: { ...cookieHeaders(c), ...headers } });
    const confirm = (c: string, code: string) =>
      api.call('/v1/account/two-factor', { method: 'PUT', headers: cookieHeaders(c), json: { totp: code } });
    const signInWith = (code: string) =>
      api.call('/v1/account/sessions', { method: 'POST', json: { email: api.demo.email, password: api.demo.password, totp: code } });
    const row = () => api.system.store.uow.db()('people').where({ id: api.demo.personId }).first();
    const counts = async () => ({
      events: Number((await api.system.store.uow.db()('events').count({ n: '*' }).first())!.n),
      notices: Number((await api.system.store.uow.db()('notices').count({ n: '*' }).first())!.n),
    });
    /** The code of `secret` at the server's clock now (no step moved: a replay test can send it twice). */
    const codeNow = (secret: string) => generate({ secret, epoch: Math.floor(api.clock.now().getTime() / 1000) });
    const switchOff = async (c: string) => {
      const r = await api.call('/v1/account/two-factor', { method: 'DELETE', headers: cookieHeaders(c) });
      expect(r.status, JSON.stringify(r.body)).to.equal(200);
    };

    it('off → enrol → a wrong code changes nothing → the right code switches it on; sign-in then takes the NEW secret only; owners told; no replay', async () => {
      const second = await addPerson(api, 'owner', 'second@example.com');
      await switchOff(owner);
      // No enrolment yet.
      const missing = await confirm(owner, '123456');
      expect(missing.status).to.equal(409);
      expect(missing.body.error.code).to.equal('two_factor_enrolment_missing');
      expect(missing.body.error.message.uk).to.match(/секрет/);
      // Starting needs a fresh sign-in (with two-factor off, sign in again takes the password only).
      api.clock.advance(6 * 60_000);
      const stale = await enrol(owner);
      expect(stale.status).to.equal(403);
      expect(stale.body.error.code).to.equal('reauth_required');
      expect(
        (
          await api.call('/v1/account/reauthentications', {
            method: 'POST',
            headers: cookieHeaders(owner),
            json: { password: api.demo.password },
          })
        ).status,
      ).to.equal(201);
      const first = await enrol(owner);
      expect(first.status, JSON.stringify(first.body)).to.equal(201);
      // Calling again replaces the pending secret: the first one's codes are refused from now on.
      const r = await enrol(owner);
      expect(r.status).to.equal(201);
      expect(r.headers.get('cache-control')).to.equal('no-store');
      expect(Object.keys(r.body).sort()).to.deep.equal(['otpauth_uri', 'secret']);
      const secret: string = r.body.secret;
      expect(secret)
        .to.match(/^[A-Z2-7]{16,}$/)
        .and.not.equal(first.body.secret)
        .and.not.equal(api.demo.totpSecret);
      expect(r.body.otpauth_uri)
        .to.match(/^otpauth:\/\/totp\//)
        .and.include(`secret=${secret}`)
        .and.include('issuer=Domivka');
      const pending = await row();
      expect(pending.totp_pending_secret, 'stored sealed, never in clear').to.be.a('string').and.not.include(secret);
      expect(api.system.get(TOKENS.SecretBox).open(pending.totp_pending_secret)).to.equal(secret);
      expect(Boolean(pending.two_factor_enabled)).to.equal(false);
      expect(await events('person.two_factor_enrolment_started')).to.have.length(2);

      // Wrong codes: the old secret's, the replaced pending one's, a made-up one — 422, and nothing stored changes.
      api.clock.advance(31_000);
      const before = { row: await row(), ...(await counts()) };
      for (const wrong of [await codeNow(api.demo.totpSecret), await codeNow(first.body.secret)]) {
        if (wrong === (await codeNow(secret))) continue; // one chance in a million
        const w = await confirm(owner, wrong);
        expect(w.status, JSON.stringify(w.body)).to.equal(422);
        expect(w.body.error.code).to.equal('totp_invalid');
        expect(w.body.error.message.uk).to.match(/код/);
        expect(w.body.error.message.en).to.match(/code/);
      }
      expect((await confirm(owner, 'abcdef')).body.error.code, 'not six digits').to.equal('validation_failed');
      expect({ row: await row(), ...(await counts()) }).to.deep.equal(before);

      // The right code: on, the new secret is the secret, the pending one is cleared, the step recorded.
      const code = await codeNow(secret);
      const ok = await confirm(owner, code);
      expect(ok.status, JSON.stringify(ok.body)).to.equal(200);
      expect(ok.body).to.deep.equal({ two_factor: true });
      const after = await row();
      expect(Boolean(after.two_factor_enabled)).to.equal(true);
      expect(after.totp_pending_secret).to.equal(null);
      expect(api.system.get(TOKENS.SecretBox).open(after.totp_secret)).to.equal(secret);
      expect(Number(after.totp_last_step)).to.be.a('number');
      const ev = await events('person.two_factor_enabled');
      expect(ev).to.have.length(1);
      expect(ev[0].subject).to.equal(`person:${api.demo.personId}`);
      for (const id of [api.demo.personId, second.id]) {
        const ns = await api.system.store.notices.listForPerson(id, 'live', undefined, 10);
        const n = ns.find((x) => x.kind === 'person.two_factor_enabled');
        expect(n, id).to.not.equal(undefined);
        expect(n!.message.uk).to.match(/ввімкнув двофакторну/);
        expect(n!.message.en).to.include('switched two-factor checks on');
      }

      // Replays: the same code confirms nothing again and never signs in (its step is recorded).
      const again = await confirm(owner, code);
      expect(again.status).to.equal(409);
      expect(again.body.error.code).to.equal('two_factor_already_on');
      expectErrorShape(await signInWith(code), 401, 'sign_in_failed'); // the enabling code signs in once: never
      // Sign-in now asks for a code, and only the new secret's.
      api.clock.advance(31_000);
      expectErrorShape(await signInWith(''), 401, 'sign_in_failed'); // password only
      expectErrorShape(await signInWith(await codeNow(api.demo.totpSecret)), 401, 'sign_in_failed'); // the old secret
      const signedIn = await signInWith(await codeNow(secret));
      expect(signedIn.status, JSON.stringify(signedIn.body)).to.equal(201);
      expectErrorShape(await signInWith(await codeNow(secret)), 401, 'sign_in_failed'); // and that code only once
      expect(
        (await api.call('/v1/account/people', { headers: cookieHeaders(owner) })).body.people.find(
          (p: { id: string }) => p.id === api.demo.personId,
        ).two_factor,
      ).to.equal(true);
    });

    it('while two-factor checks are on, both steps are refused with 409 two_factor_already_on and nothing changes', async () => {
      const before = { row: await row(), ...(await counts()) };
      const a = await enrol(owner);
      expect(a.status).to.equal(409);
      expect(a.body.error.code).to.equal('two_factor_already_on');
      expect(a.body.error.message.uk).to.match(/вже ввімкнено/);
      expect(a.body.error.actions).to.deep.equal([{ type: 'open_console', href: '/console/security' }]);
      const b = await confirm(owner, await totp(api.demo.totpSecret));
      expect(b.status).to.equal(409);
      expect(b.body.error.code).to.equal('two_factor_already_on');
      expect({ row: await row(), ...(await counts()) }).to.deep.equal(before);
    });

    it('an Idempotency-Key replay of the enrolment never shows the secret again', async () => {
      await switchOff(owner);
      const r = await enrol(owner, { 'idempotency-key': 'enrol-1' });
      expect(r.status).to.equal(201);
      expect(r.body.secret).to.be.a('string');
      const again = await enrol(owner, { 'idempotency-key': 'enrol-1' });
      expect(again.headers.get('idempotent-replayed')).to.equal('true');
      expect(again.body).to.deep.equal({ secret: null, otpauth_uri: null });
      const stored = await api.system.store.uow.db()('idempotency_keys').select('*');
      expect(JSON.stringify(stored)).to.not.include(r.body.secret);
    });

    it('two confirmations with the same right code at once: exactly one switches it on', async () => {
      await switchOff(owner);
      const r = await enrol(owner);
      api.clock.advance(31_000);
      const code = await codeNow(r.body.secret);
      const both = await Promise.all([confirm(owner, code), confirm(owner, code)]);
      expect(both.map((x) => x.status).sort()).to.deep.equal([200, 409]);
      expect(await events('person.two_factor_enabled')).to.have.length(1);
    });

    it('a key never reaches either step, whatever it carries (403 human_only, pointing to the console)', async () => {
      await switchOff(owner);
      const key = await api.issueKey({ environment: 'test', template: 'read_only', domains: ['domivka-demo.dev'] }, owner);
      for (const [path, method] of [
        ['/v1/account/two-factor/enrolment', 'POST'],
        ['/v1/account/two-factor', 'PUT'],
      ] as const) {
        const r = await api.call(path, {
          method,
          headers: { authorization: `Bearer ${key.secret}`, 'idempotency-key': `k-${method}` },
          json: method === 'PUT' ? { totp: '123456' } : {},
        });
        expect(r.status, path).to.equal(403);
        expect(r.body.error.code).to.equal('human_only');
        expect(r.body.error.actions[0]).to.deep.equal({ type: 'open_console', href: '/console/security' });
      }
      expect((await row()).totp_pending_secret).to.equal(null);
    });
  });

  describe('delete the account', () => {
    it('is refused while domains or a balance remain, saying why in uk and en', async () => {
      const r = await api.call('/v1/account', { method: 'DELETE', headers: cookieHeaders(owner) });
      expect(r.status).to.equal(409);
      expect(r.body.error.code).to.equal('account_not_empty');
      expect(r.body.error.message.en).to.include('3 domains').and.include('10000.00 UAH (sandbox)');
      expect(r.body.error.message.uk).to.include('3 доменів');
      expect((await api.call('/v1/account', { headers: cookieHeaders(owner) })).status).to.equal(200);
    });

    it('an empty account is deleted: sessions end, sign-in fails, keys stop, an event is kept', async () => {
      const store = api.system.store;
      const accountId = 'acc-empty';
      await store.accounts.insertAccount({ id: accountId, name: 'Empty', createdAt: api.clock.now() });
      const password = 'pw-empty-account-1';
      const totpSecret = api.system.get(TOKENS.Totp).generateSecret();
      await store.accounts.insertPerson({
        id: 'p-empty',
        accountId,
        email: 'empty@example.com',
        name: 'Empty',
        role: 'owner',
        passwordHash: await api.system.get(TOKENS.PasswordHasher).hash(password),
        totpSecret: api.system.get(TOKENS.SecretBox).seal(totpSecret),
        totpLastStep: null,
        lastSignInAt: null,
        createdAt: api.clock.now(),
      });
      const who = { email: 'empty@example.com', password, totpSecret };
      const c = await api.signIn(who);
      const key = await api.issueKey({ environment: 'test', template: 'read_only', domains: ['x.com.ua'] }, c);
      const r = await api.call('/v1/account', { method: 'DELETE', headers: cookieHeaders(c) });
      expect(r.status, JSON.stringify(r.body)).to.equal(200);
      expectErrorShape(await api.call('/v1/account', { headers: cookieHeaders(c) }), 401, 'session_required');
      expectErrorShape(await api.call('/v1/key', { headers: { authorization: `Bearer ${key.secret}` } }), 401, 'key_revoked');
      let failed = false;
      try {
        await api.signIn(who);
      } catch {
        failed = true;
      }
      expect(failed, 'sign-in to a deleted account fails').to.equal(true);
      expect(await events('account.deleted')).to.have.length(1);
    });
  });
});
