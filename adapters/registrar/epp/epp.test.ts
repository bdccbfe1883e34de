import { expect } from 'chai';
import { RegistryError } from '../../../core/domains/ports/registrar.port.js';
import { addYears } from '../../../core/kernel/dates.js';
import { expectRegistryError as rejection, registrarContract } from '../../../test/contracts/registrar.contract.js';
import {
  EppTestServer,
  makeEppCerts,
  TAKEN_UNTIL,
  TRANSFER_AUTH,
  type EppCerts,
  type EppServerOptions,
} from '../../../test/support/epp-server.js';
import { createEppRegistrar, type EppRegistrar, type EppSettings } from './index.js';

/** The registry's "today" (the test server runs on UTC). */
const utcToday = () => new Date().toISOString().slice(0, 10);

const settingsFor = (server: EppTestServer, certs: EppCerts, extra: Partial<EppSettings> = {}): EppSettings => ({
  host: '127.0.0.1',
  port: server.port,
  clientId: server.clientId,
  password: server.password,
  cert: certs.clientCert,
  key: certs.clientKey,
  ca: certs.ca,
  greetingTimeoutMs: 2000,
  commandTimeoutMs: 5000,
  backoffMs: 20,
  maxBackoffMs: 200,
  ...extra,
});

describe('EPP registrar (adapters/registrar/epp) against the local EPP test registry', function () {
  this.timeout(60_000);
  let certs: EppCerts;
  before(() => {
    certs = makeEppCerts();
  });
  after(() => certs.cleanup());

  for (const hostObjects of [true, false]) {
    let server: EppTestServer;
    registrarContract(`epp [${hostObjects ? 'host objects' : 'host attributes'}]`, async () => {
      server = await new EppTestServer({ certs, hostObjects }).start();
      const registrar = createEppRegistrar(settingsFor(server, certs));
      let n = 0;
      const run = `${process.pid}-${Date.now().toString(36)}`;
      return {
        registrar,
        names: {
          free: (tld) => `contract-${run}-${++n}.${tld}`,
          taken: () => `taken-contract-${++n}.com.ua`,
          failing: () => `fail-contract-${++n}.com.ua`,
          transferable: () => ({ domain: `transfer-contract-${run}-${++n}.com.ua`, authCode: TRANSFER_AUTH }),
          transferLocked: () => `transfer-locked-contract-${++n}.com.ua`,
          refusesDs: () => `nods-contract-${run}-${++n}.com.ua`,
        },
        today: utcToday,
        passTransferPeriod: async (domain) => server.finishTransfer(domain),
        startTransferOut: async (domain) => server.requestTransfer(domain),
        async cleanup() {
          await registrar.close();
          await server.stop();
          expect(server.schemaErrors, server.schemaErrors.join('\n\n')).to.deep.equal([]);
          expect(server.validatedFrames, 'frames validated against the IETF schemas').to.be.greaterThan(50);
        },
      };
    });
  }

  describe('EPP specifics', () => {
    let server: EppTestServer;
    let registrar: EppRegistrar;
    const open = async (opts: Partial<EppServerOptions> = {}, extra: Partial<EppSettings> = {}) => {
      server = await new EppTestServer({ certs, ...opts }).start();
      registrar = createEppRegistrar(settingsFor(server, certs, extra));
    };
    afterEach(async () => {
      await registrar?.close();
      await server?.stop();
      expect(server.schemaErrors, server.schemaErrors.join('\n\n')).to.deep.equal([]);
    });

    it("logs in with the greeting's services, runs create → info → renew, and logs out on close", async () => {
      await open();
      const r = await registrar.register({
        domain: 'roundtrip.com.ua',
        years: 1,
        nameservers: ['ns1.example.net', 'ns2.example.net'],
        clientTransactionId: 'rt-1',
      });
      expect(r.registeredUntil).to.equal(addYears(utcToday(), 1));
      const info = await registrar.info('roundtrip.com.ua');
      expect(info).to.deep.include({
        registeredUntil: r.registeredUntil,
        nameservers: ['ns1.example.net', 'ns2.example.net'],
        status: ['ok'],
      });
      const renewed = await registrar.renew({
        domain: 'roundtrip.com.ua',
        years: 2,
        currentExpiry: r.registeredUntil,
        clientTransactionId: 'rt-2',
      });
      expect(renewed.registeredUntil).to.equal(addYears(r.registeredUntil, 2));
      expect(server.hosts.has('ns1.example.net'), 'host objects created first').to.equal(true);
      const verbs = server.received.map((c) => c.verb);
      expect(verbs[0]).to.equal('login');
      expect(server.received.find((c) => c.verb === 'create' && c.object === 'domain:create')!.clTRID).to.equal('dmk-rt-1');
      await registrar.close();
      expect(server.received.at(-1)!.verb).to.equal('logout');
    });

    it('uses host attributes when the greeting offers no host objects', async () => {
      await open({ hostObjects: false });
      await registrar.register({ domain: 'attrs.com.ua', years: 1, nameservers: ['ns1.example.net'], clientTransactionId: 'attr-1' });
      expect(server.received.some((c) => c.object === 'host:check' || c.object === 'host:create')).to.equal(false);
      expect(
        server.frames.some((f) => f.includes('<domain:hostAttr><domain:hostName>ns1.example.net</domain:hostName></domain:hostAttr>')),
      ).to.equal(true);
      expect((await registrar.info('attrs.com.ua'))!.nameservers).to.deep.equal(['ns1.example.net']);
    });

    it('a connection dropped mid-command is retried on a new session with the same clTRID; the registry recognises it', async () => {
      await open();
      server.dropAfterNext('create');
      // The host objects are created on the dropped session's first creates: drop the domain create itself.
      await registrar.check(['drop.com.ua']);
      const before = server.connections;
      const r = await registrar.register({
        domain: 'drop.com.ua',
        years: 1,
        nameservers: ['ns1.drop.example'],
        clientTransactionId: 'drop-1',
      });
      expect(server.connections).to.be.greaterThan(before);
      expect(r.registeredUntil).to.equal(addYears(utcToday(), 1));
      const creates = server.received.filter((c) => c.verb === 'create');
      // The first create (host) was applied and its answer lost; the retry with the same clTRID got the first answer.
      expect(new Set(creates.map((c) => c.clTRID)).size).to.be.lessThan(creates.length);
      expect((await registrar.info('drop.com.ua'))!.registeredUntil).to.equal(r.registeredUntil);
    });

    it('2400 is a registry outage (unavailable) and the name stays free', async () => {
      await open();
      server.failNext('create', 2400);
      const err = await rejection(
        registrar.register({ domain: 'outage.com.ua', years: 1, nameservers: ['ns1.example.net'], clientTransactionId: 'out-1' }),
      );
      expect(err.reason).to.equal('unavailable');
      expect(err.registryCode).to.equal(2400);
      expect(await registrar.info('outage.com.ua')).to.equal(null);
    });

    it('2201/2202/2303/2304/2306/2308 map to their own refusals', async () => {
      await open();
      await registrar.register({ domain: 'codes.com.ua', years: 1, nameservers: ['ns1.example.net'], clientTransactionId: 'codes-1' });
      const expected = {
        2201: 'registry_not_authorized',
        2202: 'registry_auth_info_invalid',
        2303: 'registry_object_missing',
        2304: 'registry_status_prohibits',
        2306: 'registry_parameter_rejected',
        2308: 'registry_policy_refused',
      } as const;
      for (const [code, refusal] of Object.entries(expected)) {
        server.failNext('renew', Number(code));
        const err = await rejection(
          registrar.renew({
            domain: 'codes.com.ua',
            years: 1,
            currentExpiry: addYears(utcToday(), 1),
            clientTransactionId: `codes-r${code}`,
          }),
        );
        expect(err.reason).to.equal('rejected');
        expect(err.refusal, code).to.equal(refusal);
        expect(err.registryCode).to.equal(Number(code));
      }
      // Renewing a name another registrar sponsors: 2201 from the registry itself.
      const err = await rejection(
        registrar.renew({ domain: 'taken-codes.com.ua', years: 1, currentExpiry: TAKEN_UNTIL, clientTransactionId: 'codes-x' }),
      );
      expect(err.refusal).to.equal('registry_not_authorized');
    });

    it('2302 on create is taken, with the date from domain:info', async () => {
      await open();
      const err = await rejection(registrar.register({ domain: 'taken-x.com.ua', years: 1, nameservers: [], clientTransactionId: 'tk-1' }));
      expect(err.reason).to.equal('taken');
      expect(err.registeredUntil).to.equal(TAKEN_UNTIL);
      expect(err.registryCode).to.equal(2302);
    });

    it('a session limit (2502 at login) backs off, and commands go through the session that is open', async () => {
      await open({ sessionLimit: 1 }, { poolSize: 2, connectAttempts: 2 });
      // Two commands at once: the second wants a second session, is refused 2502, and waits for the first.
      const results = await Promise.allSettled([registrar.check(['a1.com.ua']), registrar.check(['a2.com.ua'])]);
      const ok = results.filter((r) => r.status === 'fulfilled');
      expect(ok.length).to.be.at.least(1);
      for (const r of results) if (r.status === 'rejected') expect((r.reason as RegistryError).reason).to.equal('unavailable');
      expect(server.received.filter((c) => c.verb === 'login').length).to.be.at.least(2);
      // Afterwards one session serves everything.
      expect(await registrar.check(['a3.com.ua'])).to.deep.equal([{ domain: 'a3.com.ua', available: true, registeredUntil: null }]);
    });

    it('a slow greeting times out as an outage; a greeting in time works', async () => {
      await open({ greetingDelayMs: 600 }, { greetingTimeoutMs: 150, connectAttempts: 2 });
      const err = await rejection(registrar.check(['slow.com.ua']));
      expect(err.reason).to.equal('unavailable');
      await registrar.close();
      registrar = createEppRegistrar(settingsFor(server, certs, { greetingTimeoutMs: 3000 }));
      expect(await registrar.check(['slow.com.ua'])).to.deep.equal([{ domain: 'slow.com.ua', available: true, registeredUntil: null }]);
    });

    it('reconnects after the registry drops every session', async () => {
      await open();
      await registrar.check(['x.com.ua']);
      server.dropAll();
      await new Promise((r) => setTimeout(r, 50));
      expect(await registrar.check(['y.com.ua'])).to.deep.equal([{ domain: 'y.com.ua', available: true, registeredUntil: null }]);
    });

    it('sends <hello/> on an idle session (keep-alive)', async () => {
      await open({}, { keepAliveMs: 1000 });
      await registrar.check(['idle.com.ua']);
      const frames = server.frames.length;
      await new Promise((r) => setTimeout(r, 2000));
      expect(server.frames.slice(frames).some((f) => f.includes('<hello/>'))).to.equal(true);
      expect(await registrar.check(['idle.com.ua'])).to.have.length(1);
    });

    it('refuses a client without the right certificate (TLS client authentication)', async () => {
      await open();
      const other = makeEppCerts();
      try {
        const stranger = createEppRegistrar({
          ...settingsFor(server, certs),
          cert: other.clientCert,
          key: other.clientKey,
          connectAttempts: 1,
        });
        const err = await rejection(stranger.check(['x.com.ua']));
        expect(err.reason).to.equal('unavailable');
        await stranger.close();
      } finally {
        other.cleanup();
      }
    });

    it('setDs/removeDs send secDNS-1.1 <secDNS:update> add/rem of dsData in <domain:update>, valid against RFC 5910', async () => {
      await open();
      await registrar.register({ domain: 'signed.com.ua', years: 1, nameservers: [], clientTransactionId: 'ds-1' });
      const rec = { keyTag: 2371, algorithm: 13, digestType: 2, digest: '1F'.repeat(32) };
      await registrar.setDs('signed.com.ua', [rec], 'ds-2');
      expect(server.ds.get('signed.com.ua')).to.deep.equal([{ keyTag: 2371, alg: 13, digestType: 2, digest: '1F'.repeat(32) }]);
      const addFrame = server.frames.find((f) => f.includes('<clTRID>dmk-ds-2</clTRID>'))!;
      expect(addFrame).to.include('<secDNS:update xmlns:secDNS="urn:ietf:params:xml:ns:secDNS-1.1"><secDNS:add><secDNS:dsData>');
      expect(addFrame).to.include('<secDNS:keyTag>2371</secDNS:keyTag><secDNS:alg>13</secDNS:alg><secDNS:digestType>2</secDNS:digestType>');
      expect(await registrar.dsRecords('signed.com.ua')).to.deep.equal([rec]);
      // A name another registrar sponsors (a transfer in): its transfer code opens the full info (RFC 5731 §3.1.2).
      expect(await registrar.dsRecords('signed.com.ua', 'Tr4nsfer-c0de')).to.deep.equal([rec]);
      const info = server.frames.filter((f) => f.includes('<domain:info')).at(-1)!;
      expect(info).to.include('<domain:authInfo><domain:pw>Tr4nsfer-c0de</domain:pw></domain:authInfo>');
      await registrar.removeDs('signed.com.ua', [rec], 'ds-3');
      expect(server.frames.find((f) => f.includes('<clTRID>dmk-ds-3</clTRID>'))).to.include('<secDNS:rem><secDNS:dsData>');
      expect(server.ds.has('signed.com.ua')).to.equal(false);
      await server.validated();
      expect(server.schemaErrors).to.deep.equal([]);
      expect(server.validatedFrames).to.be.greaterThan(8);
    });

    it('recent DS reads of our names stand 30 s and recent reads at once share one domain:info; other reads always ask; our setDs/removeDs forget them; a failed read is not kept', async () => {
      let now = 1_000_000;
      await open({}, { now: () => now });
      await registrar.register({ domain: 'kept.com.ua', years: 1, nameservers: [], clientTransactionId: 'dk-1' });
      const rec = { keyTag: 2371, algorithm: 13, digestType: 2, digest: '1F'.repeat(32) };
      await registrar.setDs('kept.com.ua', [rec], 'dk-2');
      const recent = (name: string) => registrar.dsRecords(name, undefined, { recent: true });
      const infos = () => server.received.filter((c) => c.verb === 'info').length;
      const before = infos();
      const [a, b] = await Promise.all([recent('kept.com.ua'), recent('KEPT.com.ua')]);
      expect([a, b]).to.deep.equal([[rec], [rec]]);
      expect(infos() - before, 'two recent reads at once: one command').to.equal(1);
      a.pop(); // a caller's copy: changing it changes nothing kept
      now += 29_000;
      expect(await recent('kept.com.ua')).to.deep.equal([rec]);
      expect(infos() - before, 'within 30 s: answered again').to.equal(1);
      // Changed at the registry behind our back (another process, the registry itself).
      server.ds.delete('kept.com.ua');
      expect(await recent('kept.com.ua'), 'a recent read may still show the last read').to.deep.equal([rec]);
      // What a decision rests on asks now, and what recent reads get follows it.
      expect(await registrar.dsRecords('kept.com.ua')).to.deep.equal([]);
      expect(await recent('kept.com.ua')).to.deep.equal([]);
      expect(infos() - before).to.equal(2);
      now += 31_000;
      expect(await recent('kept.com.ua')).to.deep.equal([]);
      expect(infos() - before, 'past 30 s: asked again').to.equal(3);
      // Our own change is seen at once.
      await registrar.setDs('kept.com.ua', [rec], 'dk-3');
      expect(await recent('kept.com.ua')).to.deep.equal([rec]);
      await registrar.removeDs('kept.com.ua', [rec], 'dk-4');
      expect(await recent('kept.com.ua')).to.deep.equal([]);
      expect(infos() - before).to.equal(5);
      // With a transfer code (another registrar's name): always asked.
      await registrar.dsRecords('kept.com.ua', 'Tr4nsfer-c0de', { recent: true });
      await registrar.dsRecords('kept.com.ua', 'Tr4nsfer-c0de', { recent: true });
      expect(infos() - before).to.equal(7);
      // A read that fails is not kept: the next one asks again.
      await rejection(recent('nobody.com.ua'));
      await rejection(recent('nobody.com.ua'));
      expect(infos() - before).to.equal(9);
    });

    it('a registry whose greeting lacks secDNS-1.1 gets no DS command: refused as its policy', async () => {
      await open({ secDns: false });
      await registrar.register({ domain: 'plain.com.ua', years: 1, nameservers: [], clientTransactionId: 'ds-4' });
      const err = await rejection(
        registrar.setDs('plain.com.ua', [{ keyTag: 1, algorithm: 13, digestType: 2, digest: 'A'.repeat(64) }], 'ds-5'),
      );
      expect(err.refusal).to.equal('registry_policy_refused');
      expect(server.received.filter((r) => r.verb === 'update')).to.deep.equal([]);
    });

    it('changeRegistrant creates the contact and changes the registrant; a repeat is harmless', async () => {
      await open();
      await registrar.register({ domain: 'holder.com.ua', years: 1, nameservers: [], clientTransactionId: 'h-1' });
      const contact = {
        name: 'Оксана Петренко',
        organization: 'ТОВ «Домівка»',
        email: 'oksana@example.com',
        phone: '+380.441234567',
        address: { street: ['вул. Хрещатик, 1'], city: 'Київ', postalCode: '01001', countryCode: 'ua' },
      };
      await registrar.changeRegistrant('holder.com.ua', contact, 'h-2');
      await registrar.changeRegistrant('holder.com.ua', contact, 'h-2');
      const id = await registrar.registrantOf('holder.com.ua');
      expect(id).to.match(/^dmk[0-9a-f]{13}$/);
      expect(await registrar.contactInfo(id!)).to.deep.equal({
        id,
        name: 'Оксана Петренко',
        email: 'oksana@example.com',
        countryCode: 'UA',
      });
      expect(server.contacts.size).to.equal(1);
      await rejection(registrar.changeRegistrant('nobody.com.ua', contact, 'h-3'));
    });

    it('prices: the fee extension (RFC 8748) when the greeting announces it, else the price list', async () => {
      await open({ fee: true, fees: { 'com.ua': '123.45' } });
      expect(await registrar.quote(['fee.com.ua', 'fee.io'], 2)).to.deep.equal([
        { domain: 'fee.com.ua', years: 2, amount: 24690, currency: 'UAH', source: 'registry_fee' },
        { domain: 'fee.io', years: 2, amount: null, currency: 'UAH', source: 'registry_fee' },
      ]);
      expect(server.frames.some((f) => f.includes('<fee:check'))).to.equal(true);
      await registrar.close();
      await server.stop();
      await open();
      expect(await registrar.quote(['plain.com.ua'], 1)).to.deep.equal([
        { domain: 'plain.com.ua', years: 1, amount: 40000, currency: 'UAH', source: 'price_list' },
      ]);
      expect(server.frames.some((f) => f.includes('fee'))).to.equal(false);
    });

    it('poll req/ack: a transfer request and a registry deletion come out as classified messages', async () => {
      await open();
      await registrar.register({ domain: 'polled.com.ua', years: 1, nameservers: [], clientTransactionId: 'p-1' });
      await registrar.register({ domain: 'gone.com.ua', years: 1, nameservers: [], clientTransactionId: 'p-2' });
      expect(await registrar.poll()).to.equal(null);
      server.requestTransfer('polled.com.ua');
      server.deleteByRegistry('gone.com.ua');
      const first = await registrar.poll();
      expect(first).to.deep.include({ kind: 'transfer_requested', domain: 'polled.com.ua' });
      expect(first!.data.requested_by).to.equal('otherreg');
      expect(await registrar.transferStatus('polled.com.ua')).to.deep.include({ status: 'pending', requestedBy: 'otherreg' });
      await registrar.ack(first!.id);
      const second = await registrar.poll();
      expect(second).to.deep.include({ kind: 'deleted_by_registry', domain: 'gone.com.ua' });
      await registrar.ack(second!.id);
      expect(await registrar.poll()).to.equal(null);
      expect(await registrar.transferStatus('gone.com.ua')).to.equal(null);
    });

    it('poll: a transfer message is told apart by reID/acID against our client id — out (acID ours) and in (reID ours)', async () => {
      await open();
      await registrar.register({ domain: 'leaving.com.ua', years: 1, nameservers: [], clientTransactionId: 'd-1' });
      // Out: another registrar asks for a name we sponsor.
      server.requestTransfer('leaving.com.ua', 'thirdreg');
      const out = (await registrar.poll())!;
      expect(out).to.deep.include({ kind: 'transfer_requested', domain: 'leaving.com.ua' });
      expect(out.transfer).to.include({ direction: 'out', status: 'pending' });
      await registrar.ack(out.id);
      // In: we asked for a name held elsewhere; a pending message about it is NOT a transfer out.
      const asked = await registrar.requestTransfer({
        domain: 'transfer-arriving.com.ua',
        authCode: TRANSFER_AUTH,
        years: 2,
        clientTransactionId: 'd-2',
      });
      expect(asked).to.include({ direction: 'in', status: 'pending' });
      server.announceTransfer('transfer-arriving.com.ua');
      const pendingIn = (await registrar.poll())!;
      expect(pendingIn.kind, 'pending with reID ours is our own request').to.equal('transfer_in');
      expect(pendingIn.transfer).to.include({ direction: 'in', status: 'pending' });
      await registrar.ack(pendingIn.id);
      server.finishTransfer('transfer-arriving.com.ua');
      const arrived = (await registrar.poll())!;
      expect(arrived.kind).to.equal('transfer_in');
      expect(arrived.transfer).to.include({ direction: 'in', status: 'serverApproved', registeredUntil: addYears(TAKEN_UNTIL, 2) });
      await registrar.ack(arrived.id);
      // And the transfer out completes: the message says so, direction out.
      server.finishTransfer('leaving.com.ua');
      const gone = (await registrar.poll())!;
      expect(gone).to.deep.include({ kind: 'transfer_completed', domain: 'leaving.com.ua' });
      expect(gone.transfer).to.include({ direction: 'out', status: 'serverApproved' });
      expect(server.frames.filter((f) => /<transfer op="request">/.test(f))).to.have.length(1);
      expect(server.frames.find((f) => /<transfer op="request">/.test(f))).to.include('<domain:pw>epp-auth-ok</domain:pw>');
    });

    it('never logs the password or authInfo', async () => {
      const lines: string[] = [];
      const log = {
        debug: (o: object, m: string) => lines.push(JSON.stringify(o) + m),
        warn: (o: object, m: string) => lines.push(JSON.stringify(o) + m),
      };
      await open({}, { log });
      await registrar.register({ domain: 'secret.com.ua', years: 1, nameservers: [], clientTransactionId: 's-1' });
      const code = await registrar.transferCode('secret.com.ua');
      const all = lines.join('\n');
      expect(lines.length).to.be.greaterThan(5);
      expect(all).to.include('secret.com.ua');
      expect(all).to.include('[redacted]');
      expect(all).to.not.include(server.password);
      expect(all).to.not.include(code);
      // And the frames really carried them (the redaction hid something real).
      expect(server.frames.some((f) => f.includes(server.password))).to.equal(true);
    });
  });
});
