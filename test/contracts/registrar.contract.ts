import { expect } from 'chai';
import { requireCapability } from '../../core/domains/capabilities.js';
import { RegistryError, type Registrar, type RegistrarCapability } from '../../core/domains/ports/registrar.port.js';
import { addYears, isIsoDate } from '../../core/kernel/dates.js';
import { DomainError } from '../../core/kernel/errors.js';

/**
 * The registrar port's contract (STYLE 5, Keyv's test-suite pattern). Every registrar adapter runs it:
 * the sandbox always, live adapters (EPP, …) against nock fixtures or a local peer. The adapter's test
 * supplies the subject, including magic-name generators, because only the adapter knows which names
 * are free, taken or failing at its registry.
 */
export interface RegistrarNames {
  /** A name under `tld` that is free now and that no other test of the suite uses (fresh per call). */
  free(tld: string): string;
  /** A name registered by someone else, that stays so. */
  taken(): string;
  /** A name that shows as available but whose writes fail at the registry (an outage). */
  failing(): string;
  /** A name held at another registrar that may be transferred in with `authCode` (fresh per call). */
  transferable?(): { domain: string; authCode: string };
  /** A name held at another registrar and locked there (clientTransferProhibited). */
  transferLocked?(): string;
  /** A free name that can be registered but whose registry refuses DS records by policy (DS tests only). */
  refusesDs?(): string;
}

export interface RegistrarSubject {
  readonly registrar: Registrar;
  readonly names: RegistrarNames;
  /** The registry's "today" (YYYY-MM-DD): registrations run from it. */
  today(): string;
  cleanup(): Promise<void>;
  /** Lets the losing side's answer period pass (the sandbox clock moves; a registry peer auto-approves). */
  passTransferPeriod?(domain: string): Promise<void>;
  /** Another registrar asks the registry for a name we hold (a transfer out begins). */
  startTransferOut?(domain: string): Promise<void>;
}

export type MakeRegistrarSubject = () => RegistrarSubject | Promise<RegistrarSubject>;

/** The method each declared capability promises (core/domains/ports/registrar.port.ts). */
export const CAPABILITY_METHODS: Readonly<Record<RegistrarCapability, string>> = {
  register: 'register',
  renew: 'renew',
  nameservers: 'setNameservers',
  transfer_lock: 'setTransferLock',
  transfer_code: 'transferCode',
  registrant: 'changeRegistrant',
  transfer_request: 'requestTransfer',
  transfer_query: 'queryTransfer',
  transfer_cancel: 'cancelTransfer',
  transfer_reject: 'rejectTransfer',
  ds_set: 'setDs',
  ds_remove: 'removeDs',
};
const ALL_CAPABILITIES = Object.keys(CAPABILITY_METHODS) as RegistrarCapability[];

/** TLDs every adapter under test is expected to sell (DESIGN: price list). */
const TLD = 'com.ua';
const OTHER_TLD = 'com';

let txCounter = 0;
/** A client transaction id no other test uses (EPP clTRID is ≤ 64 characters). */
const clTRID = (what: string): string => `contract-${what}-${process.pid}-${Date.now().toString(36)}-${++txCounter}`;

/** Awaits a promise that must reject with a RegistryError (of `reason`, when given); returns the error. */
export const expectRegistryError = async (p: Promise<unknown>, reason?: RegistryError['reason']): Promise<RegistryError> => {
  let caught: unknown;
  try {
    await p;
  } catch (e) {
    caught = e;
  }
  expect(
    caught,
    `expected RegistryError${reason ? ` '${reason}'` : ''}, got ${caught === undefined ? 'no error' : String(caught)}`,
  ).to.be.instanceOf(RegistryError);
  const err = caught as RegistryError;
  if (reason) expect(err.reason, err.message).to.equal(reason);
  return err;
};

const expectIsoDate = (value: unknown): void => {
  expect(value).to.be.a('string');
  expect(isIsoDate(value as string), `${String(value)} is YYYY-MM-DD`).to.equal(true);
};

export const registrarContract = (name: string, makeSubject: MakeRegistrarSubject): void => {
  describe(`registrar contract: ${name}`, () => {
    let subject: RegistrarSubject;
    let registrar: Registrar;

    before(async () => {
      subject = await makeSubject();
      registrar = subject.registrar;
    });
    after(async () => {
      await subject?.cleanup();
    });

    /** Skips the test (pending, visible in the report) when the adapter does not declare the ability. */
    const needs = (ctx: Mocha.Context, ...caps: RegistrarCapability[]): void => {
      if (caps.some((c) => !registrar.capabilities.has(c))) ctx.skip();
    };

    /** Registers a fresh name for tests that need one held by us. */
    const registerFresh = async (years = 1, tld = TLD) => {
      const domain = subject.names.free(tld);
      const result = await requireCapability(registrar, 'register').register({
        domain,
        years,
        nameservers: [],
        clientTransactionId: clTRID('register'),
      });
      return { domain, result };
    };

    describe('capabilities (STYLE 3: declared, never silent)', () => {
      it('has a name and declares only known capabilities', () => {
        expect(registrar.name).to.be.a('string').and.not.equal('');
        for (const c of registrar.capabilities) expect(ALL_CAPABILITIES).to.include(c);
      });

      it('every declared capability has its method', () => {
        for (const c of registrar.capabilities) {
          const fn = (registrar as unknown as Record<string, unknown>)[CAPABILITY_METHODS[c]];
          expect(fn, `${c} → ${CAPABILITY_METHODS[c]}()`).to.be.a('function');
          expect(requireCapability(registrar, c)).to.equal(registrar);
        }
      });

      it('every method present is declared as a capability', () => {
        for (const c of ALL_CAPABILITIES) {
          const fn = (registrar as unknown as Record<string, unknown>)[CAPABILITY_METHODS[c]];
          if (typeof fn === 'function') expect([...registrar.capabilities], `${CAPABILITY_METHODS[c]}() without '${c}'`).to.include(c);
        }
      });

      it('requireCapability refuses an undeclared capability with registrar_capability_missing', () => {
        for (const c of ALL_CAPABILITIES.filter((x) => !registrar.capabilities.has(x))) {
          expect(() => requireCapability(registrar, c))
            .to.throw(DomainError)
            .with.property('code', 'registrar_capability_missing');
        }
        // The same registrar seen with one capability withdrawn (as a configuration could): refused too.
        for (const c of registrar.capabilities) {
          const narrowed = Object.create(registrar, {
            capabilities: { value: new Set([...registrar.capabilities].filter((x) => x !== c)) },
          }) as Registrar;
          let caught: unknown;
          try {
            requireCapability(narrowed, c);
          } catch (e) {
            caught = e;
          }
          expect(caught, c).to.be.instanceOf(DomainError);
          expect((caught as DomainError).code).to.equal('registrar_capability_missing');
          expect((caught as DomainError).params).to.include({ registrar: registrar.name, capability: c });
        }
      });

      it('requireCapability refuses a declared capability whose method is missing', () => {
        const hollow: Registrar = {
          name: `${registrar.name}-hollow`,
          capabilities: new Set(ALL_CAPABILITIES),
          check: registrar.check.bind(registrar),
          info: registrar.info.bind(registrar),
        };
        for (const c of ALL_CAPABILITIES) {
          expect(() => requireCapability(hollow, c), c)
            .to.throw(DomainError)
            .with.property('code', 'registrar_capability_missing');
        }
      });
    });

    describe('check()', () => {
      it('a free name is available, with no registration date', async () => {
        const domain = subject.names.free(TLD);
        expect(await registrar.check([domain])).to.deep.equal([{ domain, available: true, registeredUntil: null }]);
      });

      it('a taken name is not available and shows registeredUntil as YYYY-MM-DD', async () => {
        const domain = subject.names.taken();
        const [a, ...rest] = await registrar.check([domain]);
        expect(rest).to.deep.equal([]);
        expect(a!.domain).to.equal(domain);
        expect(a!.available).to.equal(false);
        expectIsoDate(a!.registeredUntil);
      });

      it('answers one entry per name, in the order asked, across TLDs', async () => {
        const names = [subject.names.free(TLD), subject.names.taken(), subject.names.free(OTHER_TLD)];
        const result = await registrar.check(names);
        expect(result.map((a) => a.domain)).to.deep.equal(names);
        expect(result.map((a) => a.available)).to.deep.equal([true, false, true]);
      });

      it('an empty question gets an empty answer', async () => {
        expect(await registrar.check([])).to.deep.equal([]);
      });
    });

    describe('info()', () => {
      it('of a name that is not registered is null', async () => {
        expect(await registrar.info(subject.names.free(TLD))).to.equal(null);
      });

      it('of a name registered elsewhere has registeredUntil', async () => {
        const domain = subject.names.taken();
        const info = await registrar.info(domain);
        expect(info).to.not.equal(null);
        expect(info!.domain).to.equal(domain);
        expectIsoDate(info!.registeredUntil);
        expect(info!.status).to.be.an('array');
        expect(info!.nameservers).to.be.an('array');
        const [a] = await registrar.check([domain]);
        expect(info!.registeredUntil).to.equal(a!.registeredUntil);
      });
    });

    describe('register()', () => {
      it('registers a free name until today + years; then check and info show it taken', async function () {
        needs(this, 'register');
        const domain = subject.names.free(TLD);
        const result = await requireCapability(registrar, 'register').register({
          domain,
          years: 2,
          nameservers: [],
          clientTransactionId: clTRID('register'),
        });
        const until = addYears(subject.today(), 2);
        expect(result).to.deep.equal({ domain, registeredUntil: until });
        expect(await registrar.check([domain])).to.deep.equal([{ domain, available: false, registeredUntil: until }]);
        const info = await registrar.info(domain);
        expect(info).to.include({ domain, registeredUntil: until });
        expect(info!.nameservers.length, 'a registered name has nameservers').to.be.at.least(1);
      });

      it('keeps the nameservers it was given', async function () {
        needs(this, 'register');
        const domain = subject.names.free(TLD);
        const nameservers = ['ns1.contract.example', 'ns2.contract.example'];
        await requireCapability(registrar, 'register').register({ domain, years: 1, nameservers, clientTransactionId: clTRID('register') });
        expect((await registrar.info(domain))!.nameservers).to.deep.equal(nameservers);
      });

      it('a repeat with the same clientTransactionId returns the first result and registers nothing twice', async function () {
        needs(this, 'register');
        const r = requireCapability(registrar, 'register');
        const domain = subject.names.free(TLD);
        const id = clTRID('register');
        const first = await r.register({ domain, years: 1, nameservers: [], clientTransactionId: id });
        const again = await r.register({ domain, years: 1, nameservers: [], clientTransactionId: id });
        expect(again).to.deep.equal(first);
        expect(first.registeredUntil).to.equal(addYears(subject.today(), 1));
        expect(await registrar.check([domain])).to.deep.equal([{ domain, available: false, registeredUntil: first.registeredUntil }]);
        expect((await registrar.info(domain))!.registeredUntil).to.equal(first.registeredUntil);
        // A new transaction for the same name is a second registration: the name is ours, hence taken.
        const err = await expectRegistryError(
          r.register({ domain, years: 1, nameservers: [], clientTransactionId: clTRID('register') }),
          'taken',
        );
        expect(err.registeredUntil).to.equal(first.registeredUntil);
      });

      it('a taken name is refused with reason taken and the date it is registered until', async function () {
        needs(this, 'register');
        const domain = subject.names.taken();
        const [a] = await registrar.check([domain]);
        const err = await expectRegistryError(
          requireCapability(registrar, 'register').register({ domain, years: 1, nameservers: [], clientTransactionId: clTRID('register') }),
          'taken',
        );
        expectIsoDate(err.registeredUntil);
        expect(err.registeredUntil).to.equal(a!.registeredUntil);
        expect((await registrar.info(domain))!.registeredUntil).to.equal(a!.registeredUntil);
      });

      it('a registry failure is reason unavailable and leaves the name free', async function () {
        needs(this, 'register');
        const domain = subject.names.failing();
        expect(await registrar.check([domain])).to.deep.equal([{ domain, available: true, registeredUntil: null }]);
        await expectRegistryError(
          requireCapability(registrar, 'register').register({ domain, years: 1, nameservers: [], clientTransactionId: clTRID('register') }),
          'unavailable',
        );
        expect(await registrar.check([domain])).to.deep.equal([{ domain, available: true, registeredUntil: null }]);
        expect(await registrar.info(domain)).to.equal(null);
      });

      it('a failed attempt does not poison its clientTransactionId: a retry after the outage fails again, not replays', async function () {
        needs(this, 'register');
        const domain = subject.names.failing();
        const id = clTRID('register');
        const r = requireCapability(registrar, 'register');
        await expectRegistryError(r.register({ domain, years: 1, nameservers: [], clientTransactionId: id }), 'unavailable');
        await expectRegistryError(r.register({ domain, years: 1, nameservers: [], clientTransactionId: id }), 'unavailable');
      });
    });

    describe('renew()', () => {
      it('adds years to the current expiry', async function () {
        needs(this, 'register', 'renew');
        const { domain, result } = await registerFresh(1);
        const renewed = await requireCapability(registrar, 'renew').renew({
          domain,
          years: 2,
          currentExpiry: result.registeredUntil,
          clientTransactionId: clTRID('renew'),
        });
        const until = addYears(result.registeredUntil, 2);
        expect(renewed).to.deep.equal({ domain, registeredUntil: until });
        expect((await registrar.info(domain))!.registeredUntil).to.equal(until);
        expect(await registrar.check([domain])).to.deep.equal([{ domain, available: false, registeredUntil: until }]);
      });

      it('a repeat with the same clientTransactionId is a no-op returning the same result', async function () {
        needs(this, 'register', 'renew');
        const { domain, result } = await registerFresh(1);
        const r = requireCapability(registrar, 'renew');
        const id = clTRID('renew');
        const first = await r.renew({ domain, years: 1, currentExpiry: result.registeredUntil, clientTransactionId: id });
        const again = await r.renew({ domain, years: 1, currentExpiry: result.registeredUntil, clientTransactionId: id });
        expect(again).to.deep.equal(first);
        expect(first.registeredUntil).to.equal(addYears(result.registeredUntil, 1));
        expect((await registrar.info(domain))!.registeredUntil).to.equal(first.registeredUntil);
      });

      it('a wrong currentExpiry is rejected and changes nothing', async function () {
        needs(this, 'register', 'renew');
        const { domain, result } = await registerFresh(1);
        const r = requireCapability(registrar, 'renew');
        for (const wrong of [addYears(result.registeredUntil, -1), addYears(result.registeredUntil, 1)]) {
          await expectRegistryError(r.renew({ domain, years: 1, currentExpiry: wrong, clientTransactionId: clTRID('renew') }), 'rejected');
        }
        expect((await registrar.info(domain))!.registeredUntil).to.equal(result.registeredUntil);
      });

      it('renewing twice with the same (now stale) currentExpiry lands once', async function () {
        needs(this, 'register', 'renew');
        const { domain, result } = await registerFresh(1);
        const r = requireCapability(registrar, 'renew');
        const first = await r.renew({ domain, years: 1, currentExpiry: result.registeredUntil, clientTransactionId: clTRID('renew') });
        await expectRegistryError(
          r.renew({ domain, years: 1, currentExpiry: result.registeredUntil, clientTransactionId: clTRID('renew') }),
          'rejected',
        );
        expect((await registrar.info(domain))!.registeredUntil).to.equal(first.registeredUntil);
      });

      it('a name we do not hold is rejected', async function () {
        needs(this, 'renew');
        const domain = subject.names.free(TLD);
        await expectRegistryError(
          requireCapability(registrar, 'renew').renew({
            domain,
            years: 1,
            currentExpiry: subject.today(),
            clientTransactionId: clTRID('renew'),
          }),
          'rejected',
        );
        expect(await registrar.info(domain)).to.equal(null);
      });
    });

    describe('optional abilities', () => {
      it('setNameservers replaces the nameservers; a repeat with the same id is harmless', async function () {
        needs(this, 'register', 'nameservers');
        const { domain } = await registerFresh(1);
        const r = requireCapability(registrar, 'nameservers');
        const ns = ['ns1.elsewhere.example', 'ns2.elsewhere.example'];
        const id = clTRID('ns');
        await r.setNameservers(domain, ns, id);
        expect((await registrar.info(domain))!.nameservers).to.deep.equal(ns);
        await r.setNameservers(domain, ns, id);
        expect((await registrar.info(domain))!.nameservers).to.deep.equal(ns);
        await r.setNameservers(domain, ['ns3.elsewhere.example', 'ns4.elsewhere.example'], clTRID('ns'));
        expect((await registrar.info(domain))!.nameservers).to.deep.equal(['ns3.elsewhere.example', 'ns4.elsewhere.example']);
      });

      it('setNameservers of a name we do not hold is a RegistryError', async function () {
        needs(this, 'nameservers');
        await expectRegistryError(
          requireCapability(registrar, 'nameservers').setNameservers(
            subject.names.free(TLD),
            ['ns1.x.example', 'ns2.x.example'],
            clTRID('ns'),
          ),
          'rejected',
        );
      });

      it('setTransferLock sets and lifts clientTransferProhibited (RFC 5731 §2.3)', async function () {
        needs(this, 'register', 'transfer_lock');
        const { domain } = await registerFresh(1);
        const r = requireCapability(registrar, 'transfer_lock');
        await r.setTransferLock(domain, true, clTRID('lock'));
        expect((await registrar.info(domain))!.status).to.include('clientTransferProhibited');
        await r.setTransferLock(domain, false, clTRID('lock'));
        const status = (await registrar.info(domain))!.status;
        expect(status).to.not.include('clientTransferProhibited');
        expect(status.length, 'an unlocked, otherwise plain name is "ok"').to.be.at.least(1);
        // Setting it again is idempotent, not an error.
        await r.setTransferLock(domain, true, clTRID('lock'));
        await r.setTransferLock(domain, true, clTRID('lock'));
        expect((await registrar.info(domain))!.status.filter((s) => s === 'clientTransferProhibited')).to.have.length(1);
      });

      it('transferCode of a registered name is a stable non-empty string', async function () {
        needs(this, 'register', 'transfer_code');
        const { domain } = await registerFresh(1);
        const r = requireCapability(registrar, 'transfer_code');
        const code = await r.transferCode(domain);
        expect(code).to.be.a('string').and.have.length.at.least(8);
        expect(await r.transferCode(domain)).to.equal(code);
      });

      it('transferCode of a name we do not hold is a RegistryError', async function () {
        needs(this, 'transfer_code');
        await expectRegistryError(requireCapability(registrar, 'transfer_code').transferCode(subject.names.free(TLD)), 'rejected');
      });

      const contact = {
        name: 'Олена Коваль',
        organization: 'ТОВ «Домівка Тест»',
        email: 'olena@example.com.ua',
        phone: '+380.441234567',
        address: { street: ['вул. Хрещатик, 1'], city: 'Київ', region: null, postalCode: '01001', countryCode: 'UA' },
      };

      it('changeRegistrant of a registered name succeeds; a repeat with the same id is harmless', async function () {
        needs(this, 'register', 'registrant');
        const { domain } = await registerFresh(1);
        const r = requireCapability(registrar, 'registrant');
        const id = clTRID('registrant');
        await r.changeRegistrant(domain, contact, id);
        await r.changeRegistrant(domain, contact, id);
        await r.changeRegistrant(domain, { ...contact, name: 'Petro Shevchenko', organization: null }, clTRID('registrant'));
        // The name stays ours and registered.
        expect((await registrar.info(domain))!.domain).to.equal(domain);
      });

      it('changeRegistrant of a name we do not hold is a RegistryError', async function () {
        needs(this, 'registrant');
        await expectRegistryError(
          requireCapability(registrar, 'registrant').changeRegistrant(subject.names.free(TLD), contact, clTRID('registrant')),
          'rejected',
        );
      });

      it('changeRegistrant with a country code that is not ISO 3166-1 alpha-2 is rejected (RFC 5733 §2.4)', async function () {
        needs(this, 'register', 'registrant');
        const { domain } = await registerFresh(1);
        await expectRegistryError(
          requireCapability(registrar, 'registrant').changeRegistrant(
            domain,
            { ...contact, address: { ...contact.address, countryCode: 'Ukraine' } },
            clTRID('registrant'),
          ),
          'rejected',
        );
      });
    });

    describe('transfers (RFC 5731 §3.2.4)', () => {
      const transferable = (ctx: Mocha.Context) => {
        if (!subject.names.transferable) ctx.skip();
        return subject.names.transferable!();
      };

      it('request with the right authInfo is pending (direction in); a repeat with the same id asks once; query shows it', async function () {
        needs(this, 'transfer_request', 'transfer_query');
        const { domain, authCode } = transferable(this);
        const id = clTRID('transfer');
        const r = requireCapability(registrar, 'transfer_request');
        const first = await r.requestTransfer({ domain, authCode, years: 1, clientTransactionId: id });
        expect(first).to.include({ domain, status: 'pending', direction: 'in', registeredUntil: null });
        expect(Date.parse(first.actionAt)).to.be.greaterThan(Date.parse(first.requestedAt));
        const again = await r.requestTransfer({ domain, authCode, years: 1, clientTransactionId: id });
        expect(again).to.deep.equal(first);
        expect(await requireCapability(registrar, 'transfer_query').queryTransfer(domain)).to.deep.equal(first);
        // A second request (a new transaction) while one is pending is refused by the registry.
        const err = await expectRegistryError(
          r.requestTransfer({ domain, authCode, years: 1, clientTransactionId: clTRID('transfer') }),
          'rejected',
        );
        expect(err.refusal).to.equal('registry_status_prohibits');
      });

      it('a wrong authInfo is refused (registry_auth_info_invalid) and nothing is pending', async function () {
        needs(this, 'transfer_request', 'transfer_query');
        const { domain } = transferable(this);
        const err = await expectRegistryError(
          requireCapability(registrar, 'transfer_request').requestTransfer({
            domain,
            authCode: 'wrong-code-123',
            years: 1,
            clientTransactionId: clTRID('transfer'),
          }),
          'rejected',
        );
        expect(err.refusal).to.equal('registry_auth_info_invalid');
        expect(await requireCapability(registrar, 'transfer_query').queryTransfer(domain)).to.equal(null);
      });

      it('a name locked at the losing side is refused (registry_status_prohibits)', async function () {
        needs(this, 'transfer_request');
        if (!subject.names.transferLocked) this.skip();
        const domain = subject.names.transferLocked!();
        const err = await expectRegistryError(
          requireCapability(registrar, 'transfer_request').requestTransfer({
            domain,
            authCode: transferable(this).authCode,
            years: 1,
            clientTransactionId: clTRID('transfer'),
          }),
          'rejected',
        );
        expect(err.refusal).to.equal('registry_status_prohibits');
      });

      it('the gaining side cancels its pending request; cancelling again is refused', async function () {
        needs(this, 'transfer_request', 'transfer_cancel', 'transfer_query');
        const { domain, authCode } = transferable(this);
        await requireCapability(registrar, 'transfer_request').requestTransfer({
          domain,
          authCode,
          years: 1,
          clientTransactionId: clTRID('transfer'),
        });
        const c = requireCapability(registrar, 'transfer_cancel');
        const id = clTRID('cancel');
        const cancelled = await c.cancelTransfer(domain, id);
        expect(cancelled).to.include({ domain, status: 'clientCancelled', direction: 'in' });
        expect(await c.cancelTransfer(domain, id), 'a repeat with the same id').to.deep.equal(cancelled);
        await expectRegistryError(c.cancelTransfer(domain, clTRID('cancel')), 'rejected');
        expect((await requireCapability(registrar, 'transfer_query').queryTransfer(domain))!.status).to.equal('clientCancelled');
      });

      it("after the losing side's period the transfer is approved: the name is ours with the years added", async function () {
        needs(this, 'transfer_request', 'transfer_query');
        if (!subject.passTransferPeriod) this.skip();
        const { domain, authCode } = transferable(this);
        const before = (await registrar.info(domain))!.registeredUntil;
        await requireCapability(registrar, 'transfer_request').requestTransfer({
          domain,
          authCode,
          years: 1,
          clientTransactionId: clTRID('transfer'),
        });
        await subject.passTransferPeriod!(domain);
        const done = (await requireCapability(registrar, 'transfer_query').queryTransfer(domain))!;
        expect(['serverApproved', 'clientApproved']).to.include(done.status);
        expect(done).to.include({ domain, direction: 'in', registeredUntil: addYears(before, 1) });
        expect((await registrar.info(domain))!.registeredUntil).to.equal(addYears(before, 1));
      });

      it('rejectTransfer refuses what is not a pending transfer out; a transfer out is rejected at once', async function () {
        needs(this, 'register', 'transfer_reject', 'transfer_query');
        const { domain } = await registerFresh(1);
        const r = requireCapability(registrar, 'transfer_reject');
        await expectRegistryError(r.rejectTransfer(domain, clTRID('reject')), 'rejected');
        if (!subject.startTransferOut) return;
        await subject.startTransferOut(domain);
        const pending = (await requireCapability(registrar, 'transfer_query').queryTransfer(domain))!;
        expect(pending).to.include({ domain, status: 'pending', direction: 'out' });
        const rejected = await r.rejectTransfer(domain, clTRID('reject'));
        expect(rejected).to.include({ domain, status: 'clientRejected', direction: 'out' });
        expect((await registrar.info(domain))!.status).to.not.include('pendingTransfer');
      });
    });

    // (EPP): the registrant change (contact:create + domain:update <chg><registrant>).
    describe('registrant (changeRegistrant)', () => {
      const holder = {
        name: 'Оксана Петренко',
        organization: null,
        email: 'oksana@example.com',
        phone: '+380.441234567',
        address: { street: ['вул. Хрещатик, 1'], city: 'Київ', region: null, postalCode: '01001', countryCode: 'UA' },
      };

      it('changes the registrant of a name we hold; a repeat with the same id is harmless; nothing else changes', async function () {
        needs(this, 'register', 'registrant');
        const { domain, result } = await registerFresh(1);
        const before = (await registrar.info(domain))!;
        const r = requireCapability(registrar, 'registrant');
        const id = clTRID('registrant');
        await r.changeRegistrant(domain, holder, id);
        await r.changeRegistrant(domain, holder, id);
        const after = (await registrar.info(domain))!;
        expect(after.registeredUntil).to.equal(result.registeredUntil);
        expect(after.nameservers).to.deep.equal(before.nameservers);
      });

      it('of a name we do not hold is a RegistryError', async function () {
        needs(this, 'registrant');
        await expectRegistryError(
          requireCapability(registrar, 'registrant').changeRegistrant(subject.names.free(TLD), holder, clTRID('registrant')),
          'rejected',
        );
      });
    });

    // DNSSEC at the registry (RFC 5910 dsData; EPP secDNS-1.1 in <domain:update>).
    describe('DS records (setDs/removeDs)', () => {
      const ds = (keyTag: number, fill: string) => ({ keyTag, algorithm: 13, digestType: 2, digest: fill.repeat(64) });

      it('setDs adds to the set the parent publishes, removeDs takes away; repeats and strangers are harmless', async function () {
        needs(this, 'register', 'ds_set', 'ds_remove');
        const { domain } = await registerFresh(1);
        const set = requireCapability(registrar, 'ds_set');
        const rem = requireCapability(registrar, 'ds_remove');
        expect(await set.dsRecords(domain)).to.deep.equal([]);
        const id = clTRID('ds');
        await set.setDs(domain, [ds(11111, 'a')], id);
        await set.setDs(domain, [ds(11111, 'a')], id);
        expect(await set.dsRecords(domain), 'digest in upper-case hex').to.deep.equal([ds(11111, 'A')]);
        await set.setDs(domain, [ds(22222, 'B'), ds(11111, 'A')], clTRID('ds'));
        const both = await set.dsRecords(domain);
        expect(both.map((r) => r.keyTag).sort()).to.deep.equal([11111, 22222]);
        await rem.removeDs(domain, [ds(11111, 'A'), ds(33333, 'C')], clTRID('ds'));
        expect(await set.dsRecords(domain)).to.deep.equal([ds(22222, 'B')]);
        await rem.removeDs(domain, [ds(22222, 'B')], clTRID('ds'));
        expect(await set.dsRecords(domain)).to.deep.equal([]);
        // Nothing else about the name changed.
        expect((await registrar.info(domain))!.nameservers.length).to.be.at.least(1);
      });

      it('setDs of a name we do not hold is a RegistryError', async function () {
        needs(this, 'ds_set');
        await expectRegistryError(
          requireCapability(registrar, 'ds_set').setDs(subject.names.free(TLD), [ds(11111, 'A')], clTRID('ds')),
          'rejected',
        );
      });

      it('a digest whose length does not fit its type is refused (registry_parameter_rejected) and nothing is added', async function () {
        needs(this, 'register', 'ds_set');
        const { domain } = await registerFresh(1);
        const set = requireCapability(registrar, 'ds_set');
        const err = await expectRegistryError(
          set.setDs(domain, [{ keyTag: 1, algorithm: 13, digestType: 2, digest: 'AB'.repeat(20) }], clTRID('ds')),
          'rejected',
        );
        expect(err.refusal).to.equal('registry_parameter_rejected');
        expect(await set.dsRecords(domain)).to.deep.equal([]);
      });

      it('a registry that takes no DS for a name refuses it as its policy (registry_policy_refused)', async function () {
        needs(this, 'register', 'ds_set');
        if (!subject.names.refusesDs) this.skip();
        const domain = subject.names.refusesDs!();
        await requireCapability(registrar, 'register').register({
          domain,
          years: 1,
          nameservers: [],
          clientTransactionId: clTRID('register'),
        });
        const set = requireCapability(registrar, 'ds_set');
        const err = await expectRegistryError(set.setDs(domain, [ds(11111, 'A')], clTRID('ds')), 'rejected');
        expect(err.refusal).to.equal('registry_policy_refused');
        expect(await set.dsRecords(domain)).to.deep.equal([]);
      });
    });
  });
};
