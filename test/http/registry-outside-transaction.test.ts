import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { Registrar } from '../../core/domains/ports/registrar.port.js';
import { TOKENS } from '../../src/tokens.js';
import { eachStore } from '../support/stores.js';
import { bearer, startApi, type TestApi } from '../support/system.js';

/**
 * A write that asks the registry holds no database transaction while it waits for the answer (route.ts:
 * `phased`). On SQLite a transaction holds the one write lock of every process, so a registry that
 * answers slowly (an EPP command may wait its whole timeout) would stop every other write of the service:
 * plan applies, sign-ins, webhooks. Here the registry's answer is held back until another write, to
 * another domain, has been answered; with the request's transaction held around the registry call that
 * write would wait for the registry (SQLite: the lock) and this test fails.
 */
type Gated = 'dsRecords' | 'cancelTransfer' | 'rejectTransfer' | 'transferCode' | 'changeRegistrant';
const LIMITS = { cidr: '127.0.0.0/8', spend_limit: { amount: 5_000_000, currency: 'UAH' } };

eachStore('Registry calls outside the request transaction', (kind) => {
  let api: TestApi;
  let key: { id: string; secret: string };
  let clockKey: string;
  /** The registrar method held back, and what lets it go on once the other write was answered. */
  let gate: { method: Gated; entered: () => void; release: Promise<void> } | null = null;

  /** While true, the DNS lookups of a hosted domain's check fail unexpectedly (a crash-like outcome). */
  let lookupCut = false;
  /** The registrar method whose answer is lost once after the registry acted on it (the connection cut). */
  let cutAfter: Gated | null = null;

  before(async () => {
    api = await startApi(kind, {
      wrapSandbox: (a) => ({
        ...a,
        delegations: {
          lookup: (q) => (lookupCut ? Promise.reject(new Error('connection reset (test)')) : a.delegations.lookup(q)),
        },
        registrar: new Proxy(a.registrar, {
          get(target, prop, receiver) {
            const v = Reflect.get(target, prop, receiver) as unknown;
            if (typeof v !== 'function') return v;
            return async (...args: unknown[]) => {
              const held = gate;
              if (held && held.method === prop) {
                gate = null;
                held.entered();
                await held.release;
              }
              const answer = await (v as (...x: unknown[]) => Promise<unknown>).apply(target, args);
              if (cutAfter === prop) {
                cutAfter = null;
                throw new Error('connection reset after the registry acted (test)');
              }
              return answer;
            };
          },
        }) as Registrar,
      }),
    });
    key = await api.issueKey({
      environment: 'test',
      rights: [
        'domain.register',
        'domain.renew',
        'domain.read',
        'domain.lock',
        'domain.nameservers',
        'domain.host',
        'dns.dnssec',
        'dns.read',
      ],
      domains: [
        'domivka-demo.com.ua',
        'domivka-demo.dev',
        'domivka-blog.kyiv.ua',
        'transfer-outside-tx.com.ua',
        'hosted-outside-tx.com.ua',
        'undelegated-gone-outside-tx.com.ua',
      ],
      conditions: LIMITS,
    });
    clockKey = (await api.issueKey({ environment: 'test', rights: ['sandbox.clock'] })).secret;
  });
  after(async () => api?.close());

  const keyed = (method: string, path: string, json?: unknown, secret = key.secret) =>
    api.call(path, { method, headers: { ...bearer(secret), 'idempotency-key': randomUUID() }, ...(json !== undefined ? { json } : {}) });

  /**
   * The process died after the request's last phase committed and before its answer was stored: the
   * answer is gone, the record unlocked at that phase's recovery point (as after a crash, once its lock timed
   * out). Storing the answer had moved the point on to "finished"; the phase's data is still there.
   */
  const loseAnswer = async (idem: string, point: string) => {
    const n = await api.system.store
      .knex('idempotency_keys')
      .where({ key: idem, recovery_point: 'finished' })
      .whereNotNull('recovery_data')
      .update({
        recovery_point: point,
        response_status: null,
        response_body: null,
        response_headers: null,
        locked_at: null,
        lock_token: null,
      });
    expect(n).to.equal(1);
  };
  const again = (method: string, path: string, idem: string, json?: unknown) =>
    api.call(path, { method, headers: { ...bearer(key.secret), 'idempotency-key': idem }, ...(json !== undefined ? { json } : {}) });

  /**
   * Runs `request` with `method` of the registrar held back; once the registrar is asked, another write
   * (auto-renew of another domain) must be answered before the registry answers. Returns the request's answer.
   */
  const whileRegistryWaits = async (method: Gated, request: () => Promise<{ status: number; body: any }>) => {
    let entered!: () => void;
    const asked = new Promise<void>((r) => (entered = r));
    let release!: () => void;
    gate = { method, entered, release: new Promise<void>((r) => (release = r)) };
    const pending = request();
    // Deadlock detection, not a speed target: released after 20 s, so a failing run ends.
    const unstick = setTimeout(release, 20_000);
    try {
      const first = await Promise.race([asked.then(() => 'asked' as const), pending.then((r) => r)]);
      expect(first, `the registrar's ${method} was asked`).to.equal('asked');
      const other = await Promise.race([
        keyed('PATCH', '/v1/domains/domivka-blog.kyiv.ua', { auto_renew: false }).then((r) => ({ ...r, during: true })),
        pending.then(() => ({ status: 0, body: null, during: false })),
      ]);
      expect(other.during, 'another write was answered while the registry had not answered').to.equal(true);
      expect(other.status, JSON.stringify(other.body)).to.equal(200);
    } finally {
      clearTimeout(unstick);
      release();
      gate = null;
    }
    return pending;
  };

  it('switching DNSSEC off reads the parent DS outside the transaction', async () => {
    const r = await whileRegistryWaits('dsRecords', () => keyed('DELETE', '/v1/domains/domivka-demo.dev/dnssec'));
    expect(r.status, JSON.stringify(r.body)).to.equal(200);
    expect(r.body.enabled).to.equal(false);
  });

  it('a nameserver change reads the DS at the registry outside the transaction, and is recorded once', async () => {
    const r = await whileRegistryWaits('dsRecords', () =>
      keyed('PUT', '/v1/domains/domivka-demo.com.ua/nameservers', { nameservers: ['ns1.example.net', 'ns2.example.net'] }),
    );
    expect(r.status, JSON.stringify(r.body)).to.equal(202);
    expect(r.body).to.include({ kind: 'nameservers', status: 'pending' });
    const ops = await api.system.store.knex('operations').where({ domain: 'domivka-demo.com.ua' });
    expect(ops).to.have.length(1);
  });

  it('cancelling a transfer in asks the registry outside the transaction', async () => {
    const t = await keyed('POST', '/v1/domains/transfer-outside-tx.com.ua/transfers', { auth_code: 'sandbox-auth-ok', years: 1 });
    expect(t.status, JSON.stringify(t.body)).to.equal(202);
    const r = await whileRegistryWaits('cancelTransfer', () =>
      keyed('POST', `/v1/domains/transfer-outside-tx.com.ua/transfers/${t.body.id}/cancel`, {}),
    );
    expect(r.status, JSON.stringify(r.body)).to.equal(200);
    expect(r.body.status).to.equal('cancelled');
  });

  it('a hosted domain: the claim commits in its own phase, and a retry after the check failed answers the claim, not domain_already_yours', async () => {
    const idem = randomUUID();
    const claim = () =>
      api.call('/v1/hosted-domains', {
        method: 'POST',
        headers: { ...bearer(key.secret), 'idempotency-key': idem },
        json: { domain: 'hosted-outside-tx.com.ua' },
      });
    lookupCut = true;
    try {
      const cut = await claim();
      expect(cut.status, JSON.stringify(cut.body)).to.equal(500);
    } finally {
      lookupCut = false;
    }
    expect(await api.system.store.domains.find(api.demo.accountId, 'test', 'hosted-outside-tx.com.ua'), 'the claim committed').to.not.equal(
      null,
    );
    const again = await claim();
    expect(again.status, JSON.stringify(again.body)).to.equal(201);
    expect(again.body).to.include({ domain: 'hosted-outside-tx.com.ua', registrar: 'external' });
    const replay = await claim();
    expect(replay.headers.get('idempotent-replayed')).to.equal('true');
    expect(replay.body).to.deep.equal(again.body);
  });

  describe('an owner in the console', () => {
    let cookie: string;
    before(async () => {
      cookie = await api.signIn();
    });
    const asOwner = (method: string, path: string, json: unknown) =>
      api.call(path, { method, headers: { cookie, 'idempotency-key': randomUUID() }, json });

    it('revealing the transfer code asks the registry outside the transaction', async () => {
      const r = await whileRegistryWaits('transferCode', () =>
        asOwner('POST', '/v1/account/domains/domivka-demo.com.ua/transfer-code', { environment: 'test' }),
      );
      expect(r.status, JSON.stringify(r.body)).to.equal(200);
      expect(r.body.transfer_code).to.be.a('string').and.not.equal('');
    });

    it('changing the registrant asks the registry outside the transaction', async () => {
      const registrant = {
        name: 'Олена Коваль',
        organization: null,
        email: 'olena@example.com.ua',
        phone: '+380.441234567',
        address: { street: ['вул. Хрещатик, 1'], city: 'Київ', postal_code: '01001', country_code: 'UA' },
      };
      const r = await whileRegistryWaits('changeRegistrant', () =>
        asOwner('PUT', '/v1/account/domains/domivka-demo.dev/registrant', { environment: 'test', registrant }),
      );
      expect(r.status, JSON.stringify(r.body)).to.equal(200);
      expect((await api.system.store.sandboxRegistry.find('domivka-demo.dev'))!.registrant!.name).to.equal('Олена Коваль');
    });
  });

  it('a retry of a transfer cancel whose answer was lost answers the cancelled transfer, not transfer_not_cancellable', async () => {
    const t = await keyed('POST', '/v1/domains/transfer-outside-tx.com.ua/transfers', { auth_code: 'sandbox-auth-ok', years: 1 });
    expect(t.status, JSON.stringify(t.body)).to.equal(202);
    const idem = randomUUID();
    const path = `/v1/domains/transfer-outside-tx.com.ua/transfers/${t.body.id}/cancel`;
    const first = await again('POST', path, idem, {});
    expect(first.status, JSON.stringify(first.body)).to.equal(200);
    await loseAnswer(idem, 'transfer_ended');
    const retry = await again('POST', path, idem, {});
    expect(retry.status, JSON.stringify(retry.body)).to.equal(200);
    expect(retry.body).to.include({ id: t.body.id, status: 'cancelled' });
    // A new request to cancel it again is still refused.
    const other = await keyed('POST', path, {});
    expect([other.status, other.body.error?.code]).to.deep.equal([409, 'transfer_not_cancellable']);
  });

  it('a retry of a DNSSEC switch-off whose answer was lost answers the dnssec_disable operation it recorded, not operation_pending', async () => {
    const domain = 'domivka-blog.kyiv.ua';
    expect((await keyed('PUT', `/v1/domains/${domain}/dnssec`, { algorithm: 13 })).status).to.equal(200);
    const publish = await keyed('POST', `/v1/domains/${domain}/dnssec/ds`, {});
    expect(publish.status, JSON.stringify(publish.body)).to.equal(202);
    expect((await keyed('POST', '/v1/sandbox/clock', { advance: 'PT25H' }, clockKey)).status).to.equal(200);
    expect((await keyed('GET', `/v1/domains/${domain}/dnssec`)).body).to.include({ status: 'secure', ds_at_parent: true });
    const idem = randomUUID();
    const first = await again('DELETE', `/v1/domains/${domain}/dnssec`, idem);
    expect(first.status, JSON.stringify(first.body)).to.equal(202);
    expect(first.body).to.include({ kind: 'dnssec_disable', status: 'pending' });
    await loseAnswer(idem, 'operation_requested');
    const retry = await again('DELETE', `/v1/domains/${domain}/dnssec`, idem);
    expect(retry.status, JSON.stringify(retry.body)).to.equal(202);
    expect(retry.body).to.include({ id: first.body.id, kind: 'dnssec_disable', status: 'pending' });
    expect(await api.system.store.knex('operations').where({ domain, kind: 'dnssec_disable' })).to.have.length(1);
  });

  it("a transfer cancel the registry took but whose answer was lost, settled meanwhile by the worker's pass: the retry answers the cancelled transfer", async () => {
    const t = await keyed('POST', '/v1/domains/transfer-outside-tx.com.ua/transfers', { auth_code: 'sandbox-auth-ok', years: 1 });
    expect(t.status, JSON.stringify(t.body)).to.equal(202);
    const idem = randomUUID();
    const path = `/v1/domains/transfer-outside-tx.com.ua/transfers/${t.body.id}/cancel`;
    cutAfter = 'cancelTransfer';
    const cut = await again('POST', path, idem, {});
    expect(cut.status, JSON.stringify(cut.body)).to.equal(500);
    // The worker asks the registry about pending transfers and settles this one as the registry answered it.
    await api.system.get(TOKENS.AdvanceTransfers).run({ accountId: api.demo.accountId, environment: 'test' });
    expect((await keyed('GET', `/v1/domains/transfer-outside-tx.com.ua/transfers/${t.body.id}`)).body.status).to.equal('cancelled');
    const retry = await again('POST', path, idem, {});
    expect(retry.status, JSON.stringify(retry.body)).to.equal(200);
    expect(retry.body).to.include({ id: t.body.id, status: 'cancelled' });
    const cancelled = await api.system.store
      .knex('events')
      .where({ type: 'domain.transfer_in_cancelled', subject: 'domain:transfer-outside-tx.com.ua' });
    expect(cancelled.length, 'one cancellation event per transfer cancelled here').to.be.at.least(1);
  });

  it('a retry of a hosted claim removed since its answer was lost answers domain_not_found, and claims nothing again', async () => {
    const idem = randomUUID();
    const claim = () => again('POST', '/v1/hosted-domains', idem, { domain: 'undelegated-gone-outside-tx.com.ua' });
    const first = await claim();
    expect(first.status, JSON.stringify(first.body)).to.equal(201);
    await loseAnswer(idem, 'hosted_domain_claimed');
    // Unverified, so it goes at once.
    const removed = await keyed('DELETE', '/v1/hosted-domains/undelegated-gone-outside-tx.com.ua');
    expect(removed.status, JSON.stringify(removed.body)).to.equal(200);
    const retry = await claim();
    expect([retry.status, retry.body.error?.code]).to.deep.equal([404, 'domain_not_found']);
    expect(await api.system.store.domains.find(api.demo.accountId, 'test', 'undelegated-gone-outside-tx.com.ua')).to.equal(null);
  });

  it('rejecting a transfer out asks the registry outside the transaction', async () => {
    // The transfer in above, cancelled; a second one completes after the losing side's 5 days, unlocked.
    const t = await keyed('POST', '/v1/domains/transfer-outside-tx.com.ua/transfers', { auth_code: 'sandbox-auth-ok', years: 1 });
    expect(t.status, JSON.stringify(t.body)).to.equal(202);
    const moved = await keyed('POST', '/v1/sandbox/clock', { advance: 'P5D' }, clockKey);
    expect(moved.status, JSON.stringify(moved.body)).to.equal(200);
    const out = await keyed('POST', '/v1/sandbox/transfer-out', { domain: 'transfer-outside-tx.com.ua' });
    expect(out.status, JSON.stringify(out.body)).to.equal(202);
    const idem = randomUUID();
    const reject = () => again('POST', '/v1/domains/transfer-outside-tx.com.ua/transfer-out/reject', idem, {});
    const r = await whileRegistryWaits('rejectTransfer', reject);
    expect(r.status, JSON.stringify(r.body)).to.equal(200);
    expect(r.body.status).to.equal('rejected');
    // Its answer lost after the settlement committed: the retry answers the rejected transfer.
    await loseAnswer(idem, 'transfer_ended');
    const retry = await reject();
    expect(retry.status, JSON.stringify(retry.body)).to.equal(200);
    expect(retry.body).to.include({ id: r.body.id, status: 'rejected' });
  });
});
