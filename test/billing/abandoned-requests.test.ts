import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { RegistryError } from '../../core/domains/ports/registrar.port.js';
import type { EnvironmentAdapters } from '../../src/tokens.js';
import { phaseOn, statusFor } from '../../core/domains/lifecycle.js';
import { addDays, kyivDate } from '../../core/kernel/dates.js';
import { TOKENS } from '../../src/tokens.js';
import { Worker } from '../../src/worker.js';
import { eachStore } from '../support/stores.js';
import { bearer, startApi, type TestApi } from '../support/system.js';

/**
 * The completer (adapters/http/completer.ts): a phased write whose outcome its client never learned (the
 * process died, the connection dropped) and never retried held what it had reserved for good: a pending
 * charge lowered the balance forever, a card charged was never credited. The worker now finishes such a
 * request ABANDONED_REQUEST_MINUTES (15) after it began, from its last recovery point, as a retry would;
 * a late retry gets the stored outcome. Each fault below is what a crash at that moment leaves.
 */
type Fault = 'none' | 'before' | 'after' | 'refuse';
const faults = { register: 'none' as Fault, renew: 'none' as Fault, charge: 'none' as Fault };
const calls = { register: 0, renew: 0, charge: 0 };

const cut = (what: string): Error => new Error(`connection reset: ${what}`);
const faulty = async <R>(name: keyof typeof faults, real: () => Promise<R>): Promise<R> => {
  const fault = faults[name];
  faults[name] = 'none';
  if (fault === 'before') throw cut(`before the ${name} call reached the peer`);
  if (fault === 'refuse') throw new RegistryError('taken', 'Object exists', '2031-01-01');
  calls[name]++;
  const r = await real();
  if (fault === 'after') throw cut(`after the peer acted on ${name}`);
  return r;
};

const wrapSandbox = (a: EnvironmentAdapters): EnvironmentAdapters => ({
  ...a,
  registrar: Object.assign(Object.create(a.registrar), {
    register: (req: Parameters<NonNullable<typeof a.registrar.register>>[0]) => faulty('register', () => a.registrar.register!(req)),
    renew: (req: Parameters<NonNullable<typeof a.registrar.renew>>[0]) => faulty('renew', () => a.registrar.renew!(req)),
  }),
  payments: Object.assign(Object.create(a.payments), {
    charge: (req: Parameters<typeof a.payments.charge>[0]) => faulty('charge', () => a.payments.charge(req)),
  }),
});

const MINUTE = 60_000;

eachStore('Abandoned requests: the completer finishes what a client left half done', (kind) => {
  let api: TestApi;
  let key: { id: string; secret: string };
  let renewer: { id: string; secret: string };
  before(async () => {
    api = await startApi(kind, { wrapSandbox });
    const conditions = { cidr: '127.0.0.0/8', spend_limit: { amount: 5_000_000, currency: 'UAH' } };
    key = await api.issueKey({
      environment: 'test',
      rights: ['domain.register', 'domain.read', 'billing.read', 'billing.topup'],
      label: 'shop',
      conditions,
    });
    renewer = await api.issueKey({
      environment: 'test',
      rights: ['domain.renew', 'domain.read'],
      domains: ['domivka-demo.com.ua'],
      conditions,
    });
  });
  after(async () => api.close());
  afterEach(() => Object.assign(faults, { register: 'none', renew: 'none', charge: 'none' }));

  const post = (path: string, body: unknown, idem: string, by = key) =>
    api.call(path, { method: 'POST', headers: { ...bearer(by.secret), 'idempotency-key': idem }, json: body });
  const complete = () => api.system.completeAbandonedRequests();
  const ledgerFor = async (domain: string) =>
    (await api.system.store.knex('ledger_entries').where({ domain }).orderBy('created_at')).map((e: any) => e.status);
  const balance = () => api.system.store.wallets.balance(api.demo.accountId, 'test');
  const walletMatchesLedger = async () => expect(await balance()).to.equal(await api.system.store.ledger.sum(api.demo.accountId, 'test'));
  const record = (idem: string, by = key) =>
    api.system.store
      .knex('idempotency_keys')
      .where({ scope: `key:${by.id}`, key: idem })
      .first();

  it('a registration the registry made, then silence: untouched for 15 minutes, then the charge is posted and the domain is ours; a late retry gets the 201 replayed', async () => {
    const idem = randomUUID();
    const before = await balance();
    faults.register = 'after';
    const cutOff = await post('/v1/domains', { domain: 'left-behind.com.ua', years: 1 }, idem);
    expect(cutOff.status).to.equal(500);
    expect(await ledgerFor('left-behind.com.ua')).to.deep.equal(['pending']);
    expect(await balance(), 'the pending charge holds the money').to.equal(before - 40_000);

    api.clock.advance(14 * MINUTE);
    expect(await complete(), 'within ABANDONED_REQUEST_MINUTES the client may still retry').to.deep.equal({
      completed: 0,
      failed: 0,
      skipped: 0,
    });
    expect(await ledgerFor('left-behind.com.ua')).to.deep.equal(['pending']);

    api.clock.advance(2 * MINUTE);
    const registryCalls = calls.register;
    // Two workers at once: exactly one takes the record over.
    const [a, b] = await Promise.all([complete(), complete()]);
    expect(a.completed + b.completed).to.equal(1);
    expect(calls.register - registryCalls, 'the registry was asked again with the same client transaction id').to.equal(1);
    expect(await ledgerFor('left-behind.com.ua')).to.deep.equal(['posted']);
    expect(await balance()).to.equal(before - 40_000);
    const domain = await api.system.store.domains.find(api.demo.accountId, 'test', 'left-behind.com.ua');
    expect(domain?.labels, "the key's label, as the request would have given it").to.deep.equal(['shop']);
    const registered = await api.system.store.knex('events').where({ type: 'domain.registered', subject: 'domain:left-behind.com.ua' });
    expect(registered).to.have.length(1);
    expect(registered[0].actor).to.equal(`key:${key.id}`);

    const late = await post('/v1/domains', { domain: 'left-behind.com.ua', years: 1 }, idem);
    expect(late.status).to.equal(201);
    expect(late.headers.get('idempotent-replayed')).to.equal('true');
    expect(late.body.charge.amount).to.deep.equal({ amount: 40_000, currency: 'UAH' });
    expect(await complete(), 'nothing left').to.deep.equal({ completed: 0, failed: 0, skipped: 0 });
    await walletMatchesLedger();
  });

  it('the registry refuses when the completer resumes: the charge is voided, the money comes back, and the stored answer is the refusal', async () => {
    const idem = randomUUID();
    const before = await balance();
    faults.register = 'before';
    expect((await post('/v1/domains', { domain: 'lost-race.com.ua', years: 1 }, idem)).status).to.equal(500);
    expect(await balance()).to.equal(before - 40_000);
    api.clock.advance(16 * MINUTE);
    faults.register = 'refuse';
    expect((await complete()).completed).to.equal(1);
    expect(await ledgerFor('lost-race.com.ua')).to.deep.equal(['voided']);
    expect(await balance()).to.equal(before);
    const late = await post('/v1/domains', { domain: 'lost-race.com.ua', years: 1 }, idem);
    expect(late.status).to.equal(409);
    expect(late.body.error.code).to.equal('domain_taken');
    expect(late.headers.get('idempotent-replayed')).to.equal('true');
    expect(await api.system.store.domains.find(api.demo.accountId, 'test', 'lost-race.com.ua')).to.equal(null);
    await walletMatchesLedger();
  });

  it("a card charged, then silence: the worker's pass credits the balance once (the card is not charged twice)", async () => {
    const idem = randomUUID();
    const before = await balance();
    faults.charge = 'after';
    expect((await post('/v1/billing/topups', { amount: 70_000 }, idem)).status).to.equal(500);
    expect(await balance(), 'charged at the card, not yet credited').to.equal(before);
    const charged = calls.charge;
    api.clock.advance(16 * MINUTE);
    const tick = await new Worker(api.system).tick(api.clock.now());
    expect(tick.completer).to.deep.equal({ completed: 1, failed: 0, skipped: 0 });
    expect(calls.charge - charged, 'the provider was asked again with the same idempotency key').to.equal(1);
    expect(await balance()).to.equal(before + 70_000);
    const topUps = await api.system.store.knex('topups').where({ account_id: api.demo.accountId, amount: 70_000 });
    expect(topUps.map((t: any) => t.status)).to.deep.equal(['succeeded']);
    const late = await post('/v1/billing/topups', { amount: 70_000 }, idem);
    expect(late.status).to.equal(201);
    expect(late.body.status).to.equal('succeeded');
    await walletMatchesLedger();
  });

  it('a renewal the registry made, by a key revoked since: finished all the same (the registry acted on it); the expiry moves once', async () => {
    const idem = randomUUID();
    const expiry = (await api.system.store.domains.find(api.demo.accountId, 'test', 'domivka-demo.com.ua'))!.expiresOn!;
    faults.renew = 'after';
    expect((await post('/v1/domains/domivka-demo.com.ua/renewals', { years: 1 }, idem, renewer)).status).to.equal(500);
    const cookie = await api.signIn();
    expect((await api.call(`/v1/account/keys/${renewer.id}`, { method: 'DELETE', headers: { cookie } })).status).to.equal(200);
    api.clock.advance(16 * MINUTE);
    expect((await complete()).completed).to.equal(1);
    const after = (await api.system.store.domains.find(api.demo.accountId, 'test', 'domivka-demo.com.ua'))!.expiresOn!;
    expect(after).to.equal(`${Number(expiry.slice(0, 4)) + 1}${expiry.slice(4)}`);
    expect((await api.system.store.sandboxRegistry.find('domivka-demo.com.ua'))!.registeredUntil).to.equal(after);
    expect(await ledgerFor('domivka-demo.com.ua'))
      .to.include('posted')
      .and.not.include('pending');
    expect((await record(idem, renewer)).response_status).to.equal(201);
    await walletMatchesLedger();
  });

  it("regression: the worker's own automatic renewal cut off after the registry renewed is resumed by the next pass (it reserved a second charge, the registry refused it, and the first stayed pending)", async () => {
    const s = api.system.store;
    const accountId = api.demo.accountId;
    const due = ['domivka-demo.dev', 'domivka-blog.kyiv.ua'];
    const before = Object.fromEntries(
      await Promise.all(due.map(async (n) => [n, (await s.domains.find(accountId, 'test', n))!.expiresOn] as const)),
    );
    await s.sandboxClocks.advance(accountId, 70 * 86_400_000); // .dev is 5 days from expiry, the blog's kyiv.ua past it
    faults.renew = 'after';
    const lifecycle = api.system.get(TOKENS.AdvanceLifecycle);
    await lifecycle.run({ accountId, environment: 'test' }).then(
      () => expect.fail('the cut-off must surface'),
      (e: Error) => expect(e.message).to.contain('connection reset'),
    );
    const pending = await s.knex('ledger_entries').where({ account_id: accountId, status: 'pending' });
    expect(pending, 'the cut-off renewal holds its charge').to.have.length(1);
    // The other due domain of the batch was still renewed by that pass (before, the error ended the pass and
    // left the rest of the batch leased for 5 minutes).
    const other = due.find((n) => n !== pending[0].domain)!;
    expect(await ledgerFor(other), other).to.deep.equal(['posted']);
    const report = await lifecycle.run({ accountId, environment: 'test' });
    expect(report, JSON.stringify(report)).to.include({ renewed: 1, renewalFailed: 0 });
    for (const name of due) {
      const ours = (await s.domains.find(accountId, 'test', name))!;
      expect(ours.expiresOn, name).to.equal(`${Number(before[name]!.slice(0, 4)) + 1}${before[name]!.slice(4)}`);
      expect((await s.sandboxRegistry.find(name))!.registeredUntil, name).to.equal(ours.expiresOn);
      expect(await ledgerFor(name), name).to.deep.equal(['posted']);
    }
    expect(await s.knex('ledger_entries').where({ account_id: accountId, status: 'pending' })).to.have.length(0);
    expect(await s.knex('idempotency_keys').where('scope', 'system:auto-renew'), 'finished runs forget their points').to.have.length(0);
    await walletMatchesLedger();
  });
});

eachStore('Automatic renewals an earlier pass left half done', (kind) => {
  let api: TestApi;
  beforeEach(async () => {
    api = await startApi(kind, { wrapSandbox });
  });
  afterEach(async () => {
    Object.assign(faults, { register: 'none', renew: 'none', charge: 'none' });
    await api.close();
  });

  /** Travels 70 days and runs a pass whose first renewal is cut off as `fault` says; the domain left pending. */
  const cutOffPass = async (fault: Fault): Promise<{ name: string; expiry: string }> => {
    const s = api.system.store;
    const accountId = api.demo.accountId;
    const before = new Map(
      (await s.knex('domains').where({ account_id: accountId, environment: 'test' })).map((d: any) => [
        d.name as string,
        d.expires_on as string,
      ]),
    );
    await s.sandboxClocks.advance(accountId, 70 * 86_400_000);
    faults.renew = fault;
    await api.system
      .get(TOKENS.AdvanceLifecycle)
      .run({ accountId, environment: 'test' })
      .then(
        () => expect.fail('the cut-off must surface'),
        (e: Error) => expect(e.message).to.contain('connection reset'),
      );
    const [pending, ...more] = await s.knex('ledger_entries').where({ account_id: accountId, status: 'pending' });
    expect(more).to.have.length(0);
    return { name: pending.domain, expiry: before.get(pending.domain)! };
  };
  const statuses = async (name: string) =>
    (await api.system.store.knex('ledger_entries').where({ domain: name }).orderBy('created_at')).map((e: any) => e.status);
  const plusYear = (d: string) => `${Number(d.slice(0, 4)) + 1}${d.slice(4)}`;

  it('auto_renew switched off after the cut-off: the next pass still settles the renewal the registry made (one charge, posted)', async () => {
    const s = api.system.store;
    const accountId = api.demo.accountId;
    const { name, expiry } = await cutOffPass('after');
    const d = (await s.domains.find(accountId, 'test', name))!;
    await s.domains.update({ ...d, autoRenew: false });
    await api.system.get(TOKENS.AdvanceLifecycle).run({ accountId, environment: 'test' });
    expect((await s.domains.find(accountId, 'test', name))!.expiresOn).to.equal(plusYear(expiry));
    expect((await s.sandboxRegistry.find(name))!.registeredUntil).to.equal(plusYear(expiry));
    expect(await statuses(name)).to.deep.equal(['posted']);
    expect(await s.knex('idempotency_keys').where('scope', 'system:auto-renew')).to.have.length(0);
  });

  it('a manual renewal moved the expiry after a cut-off before the registry: the next pass claims the domain anyway, the registry refuses the stale renewal, its charge is voided, and no failure is told', async () => {
    const s = api.system.store;
    const accountId = api.demo.accountId;
    const { name, expiry } = await cutOffPass('before');
    const k = await api.issueKey({
      environment: 'test',
      rights: ['domain.renew'],
      domains: [name],
      conditions: { cidr: '127.0.0.0/8', spend_limit: { amount: 1_000_000, currency: 'UAH' } },
    });
    const manual = await api.call(`/v1/domains/${name}/renewals`, {
      method: 'POST',
      headers: { ...bearer(k.secret), 'idempotency-key': randomUUID() },
      json: { years: 1 },
    });
    expect(manual.status, JSON.stringify(manual.body)).to.equal(201);
    expect(manual.body.expires_at).to.equal(plusYear(expiry));
    await api.system.get(TOKENS.AdvanceLifecycle).run({ accountId, environment: 'test' });
    expect((await s.domains.find(accountId, 'test', name))!.expiresOn, 'renewed once, by hand').to.equal(plusYear(expiry));
    expect((await statuses(name)).sort()).to.deep.equal(['posted', 'voided']);
    expect(await s.knex('ledger_entries').where({ account_id: accountId, status: 'pending' })).to.have.length(0);
    expect(await s.knex('events').where({ type: 'domain.auto_renew_failed', subject: `domain:${name}` })).to.have.length(0);
    expect(await s.knex('idempotency_keys').where('scope', 'system:auto-renew')).to.have.length(0);
    expect(await s.wallets.balance(accountId, 'test')).to.equal(await s.ledger.sum(accountId, 'test'));
  });

  it('regression: a domain listed as unfinished whose run another pass settled meanwhile is judged as usual, not renewed again (was: a second charge with auto-renew off)', async () => {
    const s = api.system.store;
    const accountId = api.demo.accountId;
    const d = (await s.domains.find(accountId, 'test', 'domivka-demo.com.ua'))!; // 240 days left: not due
    await s.domains.update({ ...d, autoRenew: false });
    const lifecycle = api.system.get(TOKENS.AdvanceLifecycle);
    // The list this pass read before another pass settled (and forgot) the domain's run.
    (lifecycle as unknown as { deps: { checkpoints: { unfinished: () => Promise<string[]> } } }).deps.checkpoints.unfinished = async () => [
      d.id,
    ];
    await lifecycle.run({ accountId, environment: 'test' });
    expect((await s.domains.find(accountId, 'test', 'domivka-demo.com.ua'))!.expiresOn).to.equal(d.expiresOn);
    expect(await statuses('domivka-demo.com.ua')).to.deep.equal([]);
    expect(await s.knex('idempotency_keys').where('scope', 'system:auto-renew')).to.have.length(0);
  });

  it('regression: 120 lapsed domains that stay due with nothing to do do not keep a domain behind them from its automatic renewal (was: the pass re-read the first 100 and stopped)', async () => {
    const s = api.system.store;
    const accountId = api.demo.accountId;
    await s.sandboxClocks.advance(accountId, 15 * 86_400_000); // the blog's kyiv.ua is now 5 days from expiry
    const today = kyivDate(new Date(api.clock.now().getTime() + 15 * 86_400_000));
    const lapsedOn = addDays(today, -10);
    for (let i = 0; i < 120; i++) {
      await s.domains.insert({
        id: `lapsed${String(i).padStart(3, '0')}`,
        accountId,
        environment: 'test',
        name: `lapsed-${i}.com.ua`,
        labels: [],
        status: statusFor([], phaseOn(lapsedOn, today), false),
        expiresOn: lapsedOn,
        autoRenew: false,
        transferLock: false,
        nameservers: ['ns1.domivka.net'],
        createdAt: api.clock.now(),
        autoRenewFailedFor: null,
      });
    }
    const blog = (await s.domains.find(accountId, 'test', 'domivka-blog.kyiv.ua'))!;
    const report = await api.system.get(TOKENS.AdvanceLifecycle).run({ accountId, environment: 'test' });
    expect(report, JSON.stringify(report)).to.include({ renewed: 1, moved: 0 });
    expect((await s.domains.find(accountId, 'test', 'domivka-blog.kyiv.ua'))!.expiresOn).to.equal(plusYear(blog.expiresOn!));
  });
});
