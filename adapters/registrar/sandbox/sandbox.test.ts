import { expect } from 'chai';
import { SqlStore } from '../../sql/index.js';
import { kyivDate } from '../../../core/kernel/dates.js';
import { expectRegistryError as rejection, registrarContract } from '../../../test/contracts/registrar.contract.js';
import { TestClock } from '../../../test/support/clock.js';
import { eachStore, type FreshStore, type StoreKind } from '../../../test/support/stores.js';
import { SANDBOX_AUTH_OK, SANDBOX_AUTH_REJECT, SandboxRegistrar, TAKEN_UNTIL, TRANSFER_DAYS } from './index.js';

/** A fixed instant: 12:00 in Kyiv on 2026-11-21 (UTC+2). */
const FIXED_NOW = new Date('2026-11-21T10:00:00Z');

/** A fresh, migrated store; closing it also drops the database (STYLE 10: nothing depends on leftovers). */
const openStore = async (kind: StoreKind): Promise<{ store: SqlStore; fresh: FreshStore; close(): Promise<void> }> => {
  const fresh = await kind.fresh();
  const store = new SqlStore(fresh.connection);
  await store.migrate();
  return {
    store,
    fresh,
    async close() {
      await store.close();
      await fresh.drop();
    },
  };
};

/** Deterministic transfer codes, so tests can tell which registration produced which code. */
const codes = () => {
  let n = 0;
  return () => `CODE${String(++n).padStart(8, '0')}`;
};

eachStore('Sandbox registrar', (kind) => {
  registrarContract(`sandbox [${kind.engine}]`, async () => {
    const { store, close } = await openStore(kind);
    const clock = new TestClock(FIXED_NOW);
    let n = 0;
    const registrar = new SandboxRegistrar(store.sandboxRegistry, clock, codes());
    return {
      registrar,
      names: {
        free: (tld) => `contract-${++n}.${tld}`,
        taken: () => `taken-contract-${++n}.com.ua`,
        failing: () => `fail-contract-${++n}.com.ua`,
        transferable: () => ({ domain: `transfer-contract-${++n}.com.ua`, authCode: SANDBOX_AUTH_OK }),
        transferLocked: () => `transfer-locked-contract-${++n}.com.ua`,
        refusesDs: () => `nods-contract-${++n}.com.ua`,
      },
      today: () => kyivDate(clock.now()),
      passTransferPeriod: async () => clock.advance(TRANSFER_DAYS * 86_400_000),
      startTransferOut: async (domain) => void (await registrar.simulateTransferOut(domain)),
      cleanup: close,
    };
  });

  describe('sandbox specifics (DESIGN: Wire formats, magic names)', () => {
    let opened: Awaited<ReturnType<typeof openStore>>;
    let clock: TestClock;
    let registrar: SandboxRegistrar;
    let tx = 0;
    const id = () => `sandbox-test-${++tx}`;

    before(async () => {
      opened = await openStore(kind);
    });
    after(async () => opened.close());
    beforeEach(() => {
      clock = new TestClock(FIXED_NOW);
      registrar = new SandboxRegistrar(opened.store.sandboxRegistry, clock, codes());
    });

    it('declares all twelve capabilities', () => {
      expect([...registrar.capabilities].sort()).to.deep.equal([
        'ds_remove',
        'ds_set',
        'nameservers',
        'register',
        'registrant',
        'renew',
        'transfer_cancel',
        'transfer_code',
        'transfer_lock',
        'transfer_query',
        'transfer_reject',
        'transfer_request',
      ]);
      expect(registrar.name).to.equal('sandbox');
    });

    it('a first label starting with taken- is registered elsewhere until TAKEN_UNTIL, under every TLD', async () => {
      expect(TAKEN_UNTIL).to.equal('2031-03-14');
      const names = ['taken-shop.com.ua', 'taken-x.dev', 'taken-1.io'];
      expect(await registrar.check(names)).to.deep.equal(
        names.map((domain) => ({ domain, available: false, registeredUntil: TAKEN_UNTIL })),
      );
      expect(await registrar.info('taken-shop.com.ua')).to.deep.include({ domain: 'taken-shop.com.ua', registeredUntil: TAKEN_UNTIL });
      const err = await rejection(
        registrar.register({ domain: 'taken-shop.com.ua', years: 1, nameservers: [], clientTransactionId: id() }),
      );
      expect(err.reason).to.equal('taken');
      expect(err.registeredUntil).to.equal(TAKEN_UNTIL);
    });

    it('only the first label counts: "mistaken-" and "x.taken-" names are not magic', async () => {
      expect(await registrar.check(['mistaken-shop.com.ua', 'shop-taken-x.com'])).to.deep.equal([
        { domain: 'mistaken-shop.com.ua', available: true, registeredUntil: null },
        { domain: 'shop-taken-x.com', available: true, registeredUntil: null },
      ]);
    });

    it('a first label starting with fail- is available on check but fails at the registry', async () => {
      expect(await registrar.check(['fail-shop.com.ua'])).to.deep.equal([
        { domain: 'fail-shop.com.ua', available: true, registeredUntil: null },
      ]);
      const err = await rejection(registrar.register({ domain: 'fail-shop.com.ua', years: 1, nameservers: [], clientTransactionId: id() }));
      expect(err.reason).to.equal('unavailable');
      expect(err.registeredUntil).to.equal(null);
      expect(
        (await rejection(registrar.renew({ domain: 'fail-shop.com.ua', years: 1, currentExpiry: '2027-11-21', clientTransactionId: id() })))
          .reason,
      ).to.equal('unavailable');
      expect(await opened.store.sandboxRegistry.find('fail-shop.com.ua')).to.equal(null);
    });

    it('a name not under a priced TLD, or not directly below one, is not available and cannot be registered', async () => {
      const names = ['example.xyz', 'shop.example.com.ua', 'example.ru'];
      expect(await registrar.check(names)).to.deep.equal(names.map((domain) => ({ domain, available: false, registeredUntil: null })));
      const err = await rejection(registrar.register({ domain: 'example.xyz', years: 1, nameservers: [], clientTransactionId: id() }));
      expect(err.reason).to.equal('rejected');
      expect(await registrar.info('example.xyz')).to.equal(null);
    });

    // Regression guard (was a bug in core/domains/price-list.ts isRegistrable): a priced suffix itself ("com.ua", "kyiv.ua",
    // "org.ua") sits one label below the priced "ua", so it counts as registrable and the sandbox offers it
    // as free: check(['com.ua']) answers available: true and register() would succeed. Lead to decide.
    it('a priced suffix itself (com.ua, kyiv.ua, org.ua) is not a registrable name', async () => {
      const names = ['com.ua', 'kyiv.ua', 'org.ua'];
      expect(await registrar.check(names)).to.deep.equal(names.map((domain) => ({ domain, available: false, registeredUntil: null })));
      expect(
        (await rejection(registrar.register({ domain: 'kyiv.ua', years: 1, nameservers: [], clientTransactionId: id() }))).reason,
      ).to.equal('rejected');
    });

    it('every TLD of the price list is sold', async () => {
      const tlds = ['ua', 'com.ua', 'kyiv.ua', 'org.ua', 'com', 'net', 'org', 'dev', 'io'];
      const result = await registrar.check(tlds.map((t) => `domivka-sandbox-probe.${t}`));
      expect(result.every((a) => a.available)).to.equal(true);
    });

    it('a registration is stored with the default sandbox nameservers, status ok and a transfer code', async () => {
      const r = await registrar.register({ domain: 'stored.kyiv.ua', years: 1, nameservers: [], clientTransactionId: id() });
      expect(r).to.deep.equal({ domain: 'stored.kyiv.ua', registeredUntil: '2027-11-21' });
      expect(await opened.store.sandboxRegistry.find('stored.kyiv.ua')).to.deep.equal({
        domain: 'stored.kyiv.ua',
        registeredUntil: '2027-11-21',
        status: ['ok'],
        nameservers: ['ns1.domivka.net', 'ns2.domivka.net'],
        transferCode: 'CODE00000001',
        registrant: null,
        transfer: null,
      });
      expect(await registrar.transferCode('stored.kyiv.ua')).to.equal('CODE00000001');
    });

    it('transfer- names: sandbox-auth-reject is accepted, then rejected by the losing side after 5 days, not before', async () => {
      const domain = 'transfer-rejected.com.ua';
      expect(await registrar.check([domain])).to.deep.equal([{ domain, available: false, registeredUntil: TAKEN_UNTIL }]);
      const asked = await registrar.requestTransfer({ domain, authCode: SANDBOX_AUTH_REJECT, years: 1, clientTransactionId: id() });
      expect(asked).to.include({ status: 'pending', direction: 'in', actionAt: '2026-11-26T10:00:00.000Z' });
      clock.advance(TRANSFER_DAYS * 86_400_000 - 1000);
      expect((await registrar.queryTransfer(domain))!.status).to.equal('pending');
      clock.advance(1000);
      expect(await registrar.queryTransfer(domain)).to.include({ status: 'clientRejected', registeredUntil: null });
      expect((await registrar.info(domain))!.registeredUntil).to.equal(TAKEN_UNTIL);
      // The sandbox's "now" may come with the request (the account's sandbox clock), ahead of the real one.
      const other = 'transfer-ahead.com.ua';
      await registrar.requestTransfer({ domain: other, authCode: SANDBOX_AUTH_OK, years: 2, clientTransactionId: id(), now: clock.now() });
      const later = new Date(clock.now().getTime() + TRANSFER_DAYS * 86_400_000);
      expect(await registrar.queryTransfer(other, later)).to.include({ status: 'serverApproved', registeredUntil: '2033-03-14' });
      expect(await registrar.check([other])).to.deep.equal([{ domain: other, available: false, registeredUntil: '2033-03-14' }]);
    });

    it('a transfer out of a locked name is refused (2304); an unlocked one completes after 5 days', async () => {
      const domain = 'leaving.com.ua';
      await registrar.register({ domain, years: 1, nameservers: [], clientTransactionId: id() });
      await registrar.setTransferLock(domain, true, id());
      const err = await rejection(registrar.simulateTransferOut(domain), 'rejected');
      expect([err.refusal, err.registryCode]).to.deep.equal(['registry_status_prohibits', 2304]);
      await registrar.setTransferLock(domain, false, id());
      expect(await registrar.simulateTransferOut(domain)).to.include({ status: 'pending', direction: 'out' });
      expect((await registrar.info(domain))!.status).to.include('pendingTransfer');
      clock.advance(TRANSFER_DAYS * 86_400_000);
      expect(await registrar.queryTransfer(domain)).to.include({ status: 'serverApproved', direction: 'out' });
      expect((await registrar.info(domain))!.nameservers).to.deep.equal(['ns1.elsewhere.example', 'ns2.elsewhere.example']);
    });

    it('changeRegistrant stores the contact object in the sandbox registry (and keeps it through later writes)', async () => {
      await registrar.register({ domain: 'holder.kyiv.ua', years: 1, nameservers: [], clientTransactionId: id() });
      const contact = {
        name: 'Ірина Шевченко',
        organization: 'ФОП Шевченко',
        email: 'iryna@example.com.ua',
        phone: '+380.501234567',
        address: { street: ['вул. Січових Стрільців, 5', 'кв. 2'], city: 'Київ', region: null, postalCode: '04053', countryCode: 'UA' },
      };
      await registrar.changeRegistrant('holder.kyiv.ua', contact, id());
      expect(await registrar.registrant('holder.kyiv.ua')).to.deep.equal(contact);
      await registrar.setNameservers('holder.kyiv.ua', ['ns1.elsewhere.example', 'ns2.elsewhere.example'], id());
      expect((await opened.store.sandboxRegistry.find('holder.kyiv.ua'))!.registrant).to.deep.equal(contact);
    });

    it('the registry is shared: another sandbox registrar over the same store sees the name as taken', async () => {
      await registrar.register({ domain: 'shared.org.ua', years: 3, nameservers: [], clientTransactionId: id() });
      const other = new SandboxRegistrar(opened.store.sandboxRegistry, clock, codes());
      expect(await other.check(['shared.org.ua'])).to.deep.equal([
        { domain: 'shared.org.ua', available: false, registeredUntil: '2029-11-21' },
      ]);
    });

    it('registration dates follow the Kyiv calendar: 22:30 UTC on 28 Feb is already 1 March in Kyiv', async () => {
      clock.set(new Date('2027-02-28T22:30:00Z'));
      const r = await registrar.register({ domain: 'late-night.com', years: 1, nameservers: [], clientTransactionId: id() });
      expect(r.registeredUntil).to.equal('2028-03-01');
    });

    it('a registration on 29 February runs to 28 February of a common year', async () => {
      clock.set(new Date('2028-02-29T10:00:00Z'));
      const r = await registrar.register({ domain: 'leap-day.net', years: 1, nameservers: [], clientTransactionId: id() });
      expect(r.registeredUntil).to.equal('2029-02-28');
    });

    it('a replay returns the first result even after the clock moved on', async () => {
      const tid = id();
      const first = await registrar.register({ domain: 'replayed.dev', years: 1, nameservers: [], clientTransactionId: tid });
      clock.set(new Date('2027-06-01T10:00:00Z'));
      expect(await registrar.register({ domain: 'replayed.dev', years: 1, nameservers: [], clientTransactionId: tid })).to.deep.equal(
        first,
      );
      expect(first.registeredUntil).to.equal('2027-11-21');
    });

    it('a client transaction id reused for another name or operation is rejected', async () => {
      const tid = id();
      await registrar.register({ domain: 'owner-of-id.io', years: 1, nameservers: [], clientTransactionId: tid });
      expect(
        (await rejection(registrar.register({ domain: 'another-name.io', years: 1, nameservers: [], clientTransactionId: tid }))).reason,
      ).to.equal('rejected');
      expect(
        (await rejection(registrar.renew({ domain: 'owner-of-id.io', years: 1, currentExpiry: '2027-11-21', clientTransactionId: tid })))
          .reason,
      ).to.equal('rejected');
      expect(await registrar.check(['another-name.io'])).to.deep.equal([
        { domain: 'another-name.io', available: true, registeredUntil: null },
      ]);
      expect((await registrar.info('owner-of-id.io'))!.registeredUntil).to.equal('2027-11-21');
    });

    it('lifting the transfer lock keeps other statuses and falls back to ok', async () => {
      await registrar.register({ domain: 'locked.ua', years: 1, nameservers: [], clientTransactionId: id() });
      await registrar.setTransferLock('locked.ua', true, id());
      expect((await registrar.info('locked.ua'))!.status).to.deep.equal(['clientTransferProhibited']);
      await registrar.setTransferLock('locked.ua', false, id());
      expect((await registrar.info('locked.ua'))!.status).to.deep.equal(['ok']);
    });

    // Found by the crash suite: the create and its client-transaction record were two writes;
    // a crash between them made the retry (same clTRID) "taken", with our charge kept.
    it('regression: a command cut between its write and its client-transaction record leaves neither; the retry succeeds once', async () => {
      const store = opened.store.sandboxRegistry;
      let cut = true;
      const crashing = Object.assign(Object.create(Object.getPrototypeOf(store)), store, {
        recordTransaction: async (...args: Parameters<typeof store.recordTransaction>) => {
          if (cut) throw new Error('simulated crash after the write');
          return store.recordTransaction(...args);
        },
      }) as typeof store;
      const flaky = new SandboxRegistrar(crashing, clock, codes());
      const tid = id();
      const req = { domain: 'cut-create.com.ua', years: 1, nameservers: [], clientTransactionId: tid };
      await flaky.register(req).then(
        () => expect.fail('the simulated crash must surface'),
        (e: Error) => expect(e.message).to.contain('simulated crash'),
      );
      expect(await registrar.info('cut-create.com.ua'), 'the create was rolled back with its record').to.equal(null);
      cut = false;
      expect((await flaky.register(req)).registeredUntil).to.equal('2027-11-21');
      expect((await flaky.register(req)).registeredUntil, 'a repeat is a replay').to.equal('2027-11-21');

      // The same for a renewal: cut, then the retry renews exactly once.
      cut = true;
      const renew = { domain: 'cut-create.com.ua', years: 1, currentExpiry: '2027-11-21', clientTransactionId: id() };
      await flaky.renew(renew).then(
        () => expect.fail('the simulated crash must surface'),
        (e: Error) => expect(e.message).to.contain('simulated crash'),
      );
      expect((await registrar.info('cut-create.com.ua'))!.registeredUntil, 'the renewal was rolled back').to.equal('2027-11-21');
      cut = false;
      expect((await flaky.renew(renew)).registeredUntil).to.equal('2028-11-21');
      expect((await flaky.renew(renew)).registeredUntil).to.equal('2028-11-21');
      expect((await registrar.info('cut-create.com.ua'))!.registeredUntil).to.equal('2028-11-21');
    });
  });
});
