import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { eachStore } from '../support/stores.js';
import { addPerson, bearer, startApi, type TestApi } from '../support/system.js';
import { expectErrorShape } from '../support/error-shape.js';
import { apiKeyFixture } from '../support/api-key.js';
import { TOKENS } from '../../src/tokens.js';

/**
 * DESIGN "DNSSEC": a DS reaches the parent only while a live key of the signed zone stands behind it (RFC
 * 6781 §4.1.2, RFC 7583 §3.3), and going insecure removes the DS first (RFC 6781 §4.3.1 in reverse).
 * - switching DNSSEC off while a DS publication is pending is refused (dnssec_ds_publish_pending);
 * - a DS publication that finds the zone unsigned (a race with the switch-off), or its key gone, when it
 *   takes effect or is confirmed fails with dnssec_ds_stale, and the registry is not asked;
 * - `ds_at_parent` is what the registry holds; a stray DS with DNSSEC off is shown and removable.
 */
eachStore('DNSSEC: no DS at the parent without a live key behind it', (kind) => {
  let api: TestApi;
  let key: string;
  let second: string; // a second owner's key (confirms)
  const name = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}.com.ua`;
  const RIGHTS = ['domain.register', 'domain.read', 'dns.read', 'dns.dnssec', 'sandbox.clock'];
  const CONDITIONS = { cidr: '127.0.0.0/8', spend_limit: { amount: 10_000_000, currency: 'UAH' } };

  before(async () => {
    api = await startApi(kind);
    key = (await api.issueKey({ environment: 'test', rights: RIGHTS, label: 'prod', conditions: CONDITIONS })).secret;
    const b = await addPerson(api, 'owner', `ds-second-${randomUUID().slice(0, 6)}@example.com`);
    second = (await api.issueKey({ environment: 'test', rights: RIGHTS, label: 'prod', conditions: CONDITIONS }, await api.signIn(b)))
      .secret;
  });
  after(async () => api?.close());

  const call = (method: string, path: string, json?: unknown, secret = key) =>
    api.call(path, { method, headers: { ...bearer(secret), 'idempotency-key': randomUUID() }, ...(json === undefined ? {} : { json }) });
  const registry = async (domain: string) =>
    (await api.system.store.sandboxRegistry.dsOf(domain)).map((d) => `${d.keyTag} ${d.algorithm} ${d.digestType} ${d.digest}`);
  const register = async (domain: string) => {
    const r = await call('POST', '/v1/domains', { domain, years: 1 });
    expect(r.status, JSON.stringify(r.body)).to.be.oneOf([200, 201, 202]);
  };
  const signAndAsk = async (domain: string) => {
    await register(domain);
    const on = await call('PUT', `/v1/domains/${domain}/dnssec`, { algorithm: 13 });
    expect(on.status, JSON.stringify(on.body)).to.equal(200);
    const publish = await call('POST', `/v1/domains/${domain}/dnssec/ds`, {});
    expect(publish.status, JSON.stringify(publish.body)).to.equal(202);
    expect(publish.body).to.include({ kind: 'dnssec_ds_publish', status: 'pending' });
    return { ds: on.body.ds as string[], op: publish.body.id as string };
  };
  /** The switch-off as it would run had it slipped in between the check and the publication (a race). */
  const switchOffUnchecked = async (domain: string) => {
    const account = api.demo.accountId;
    await api.system.get(TOKENS.DisableDnssec).execute(apiKeyFixture({ accountId: account, environment: 'test' }), domain);
  };
  const failedWithStale = async (opId: string, domain: string) => {
    const op = (await call('GET', `/v1/operations/${opId}`)).body;
    expect(op.status, JSON.stringify(op)).to.equal('failed');
    expect(op.failure_reason).to.match(
      new RegExp(`^dnssec_ds_stale: the DS \\d+ 13 2 [0-9A-F]+ matches no live key of ${domain.replace(/\./g, '\\.')}`),
    );
    const events = await api.system.store.knex('events').where({ type: 'operation.failed', subject: `operation:${opId}` });
    expect(events).to.have.length(1);
    // The owners are told it was our check, in both languages; not as a registry's refusal (it was not asked).
    const notices = (await api.system.store.knex('notices').where({ kind: 'operation.failed', domain })) as Array<{
      message_uk: string;
      message_en: string;
    }>;
    expect(notices.length).to.be.at.least(1);
    for (const n of notices) {
      expect(n.message_en).to.contain('It was not sent to the registry').and.not.contain("registry's reason");
      expect(n.message_uk).to.contain('Реєстру його не надсилали').and.not.contain('Причина від реєстру');
    }
  };

  it('the reported sequence: DELETE …/dnssec with a DS publication pending is refused (cancel it first); nothing reaches the parent of an unsigned zone', async () => {
    const domain = name('dsbug');
    const { ds, op } = await signAndAsk(domain);
    const off = await call('DELETE', `/v1/domains/${domain}/dnssec`);
    expectErrorShape(off, 409, 'dnssec_ds_publish_pending');
    const err = off.body.error as { message: { uk: string; en: string } };
    expect(err.message.en).to.contain(`POST /v1/operations/${op}/cancel`);
    expect(err.message.uk).to.contain(`POST /v1/operations/${op}/cancel`);
    expect((await call('GET', `/v1/domains/${domain}/dnssec`)).body).to.include({ enabled: true, status: 'signed', ds_at_parent: false });

    // Cancelled, then off at once; the clock moves: nothing reaches the registry.
    expect((await call('POST', `/v1/operations/${op}/cancel`)).status).to.equal(200);
    const now = await call('DELETE', `/v1/domains/${domain}/dnssec`);
    expect(now.status, JSON.stringify(now.body)).to.equal(200);
    expect(now.body).to.include({ enabled: false, ds_at_parent: false });
    expect((await call('POST', '/v1/sandbox/clock', { advance: 'PT25H' })).status).to.equal(200);
    expect((await call('GET', `/v1/operations/${op}`)).body.status).to.equal('cancelled');
    expect(await registry(domain)).to.deep.equal([]);
    expect((await call('GET', `/v1/domains/${domain}/dnssec`)).body).to.include({ enabled: false, ds_at_parent: false });
    expect((await call('GET', `/v1/domains/${domain}/dnssec`)).body.parent_ds).to.deep.equal([]);
    void ds;
  });

  it('a DS publication that finds the zone unsigned when it takes effect (24 hours) fails with dnssec_ds_stale; the registry is not asked', async () => {
    const domain = name('dsrace');
    const { op } = await signAndAsk(domain);
    await switchOffUnchecked(domain);
    expect((await call('POST', '/v1/sandbox/clock', { advance: 'PT25H' })).status).to.equal(200);
    await failedWithStale(op, domain);
    expect(await registry(domain), 'no DS at the registry').to.deep.equal([]);
    const view = (await call('GET', `/v1/domains/${domain}/dnssec`)).body;
    expect(view).to.include({ enabled: false, ds_at_parent: false });
  });

  it("a second owner's confirmation checks the same: the zone went unsigned meanwhile → dnssec_ds_stale, no DS at the registry", async () => {
    const domain = name('dsconfirm');
    const { op } = await signAndAsk(domain);
    await switchOffUnchecked(domain);
    const c = await call('POST', `/v1/operations/${op}/confirm`, undefined, second);
    expect(c.status, JSON.stringify(c.body)).to.equal(200);
    await failedWithStale(op, domain);
    expect(await registry(domain)).to.deep.equal([]);
  });

  it('a DS publication whose key was replaced meanwhile (off and on again: a new key) fails; the new key’s DS is asked for anew', async () => {
    const domain = name('dsrekey');
    const { ds, op } = await signAndAsk(domain);
    await switchOffUnchecked(domain);
    const again = await call('PUT', `/v1/domains/${domain}/dnssec`, { algorithm: 13 });
    expect(again.status).to.equal(200);
    expect(again.body.ds).to.not.deep.equal(ds);
    expect((await call('POST', '/v1/sandbox/clock', { advance: 'PT25H' })).status).to.equal(200);
    // The old key's DS now names no key of ours at all: gone with the switch-off, so the publication fails.
    const status = (await call('GET', `/v1/operations/${op}`)).body.status;
    if (status === 'failed') expect(await registry(domain)).to.deep.equal([]);
    else expect.fail(`the stale DS publication ${status}; the registry holds ${JSON.stringify(await registry(domain))}`);
  });

  it('a stray DS at the parent with DNSSEC off: ds_at_parent true, parent_ds lists it, removable through the API (dnssec_ds_remove)', async () => {
    const domain = name('dsstray');
    await register(domain);
    const stray = `4242 13 2 ${'AB'.repeat(32)}`;
    await api.system.store.sandboxRegistry.putDs(domain, [{ keyTag: 4242, algorithm: 13, digestType: 2, digest: 'AB'.repeat(32) }]);
    const view = (await call('GET', `/v1/domains/${domain}/dnssec`)).body;
    expect(view).to.include({ enabled: false, ds_at_parent: true });
    expect(view.parent_ds).to.deep.equal([stray]);
    // DELETE on an unsigned zone answers what the parent holds too.
    const off = await call('DELETE', `/v1/domains/${domain}/dnssec`);
    expect(off.status, JSON.stringify(off.body)).to.equal(200);
    expect(off.body).to.include({ enabled: false, ds_at_parent: true });

    const rem = await call('POST', `/v1/domains/${domain}/dnssec/ds/remove`, { ds: [stray] });
    expect(rem.status, JSON.stringify(rem.body)).to.equal(202);
    expect(rem.body).to.include({ kind: 'dnssec_ds_remove', status: 'pending', right: 'dns.dnssec' });
    expect((await call('POST', '/v1/sandbox/clock', { advance: 'PT25H' })).status).to.equal(200);
    expect((await call('GET', `/v1/operations/${rem.body.id}`)).body.status).to.equal('active');
    expect(await registry(domain)).to.deep.equal([]);
    const after = (await call('GET', `/v1/domains/${domain}/dnssec`)).body;
    expect(after).to.include({ enabled: false, ds_at_parent: false });
    expect(after.parent_ds).to.deep.equal([]);
    // Publishing needs a signed zone still.
    expectErrorShape(await call('POST', `/v1/domains/${domain}/dnssec/ds`, {}), 409, 'dnssec_not_enabled');
  });

  it('our DS at the registry that we had not recorded (e.g. added at the registry desk): reported, and switching off goes the safe way (dnssec_disable, 202)', async () => {
    const domain = name('dsdesk');
    await register(domain);
    const on = await call('PUT', `/v1/domains/${domain}/dnssec`, { algorithm: 13 });
    const [tag, alg, type, digest] = (on.body.ds[0] as string).split(' ');
    await api.system.store.sandboxRegistry.putDs(domain, [
      { keyTag: Number(tag), algorithm: Number(alg), digestType: Number(type), digest: digest! },
    ]);
    expect((await call('GET', `/v1/domains/${domain}/dnssec`)).body).to.include({ enabled: true, ds_at_parent: true });
    const off = await call('DELETE', `/v1/domains/${domain}/dnssec`);
    expect(off.status, JSON.stringify(off.body)).to.equal(202);
    expect(off.body).to.include({ kind: 'dnssec_disable', status: 'pending' });
    expect(off.body.ds).to.deep.equal(on.body.ds);
    expect((await call('POST', '/v1/sandbox/clock', { advance: 'PT25H' })).status).to.equal(200);
    expect((await call('GET', `/v1/operations/${off.body.id}`)).body.status).to.equal('active');
    expect(await registry(domain)).to.deep.equal([]);
    // The DS is gone; the zone stays signed until its TTL has passed.
    expect((await call('GET', `/v1/domains/${domain}/dnssec`)).body).to.include({
      enabled: true,
      status: 'disabling',
      ds_at_parent: false,
    });
  });

  it('the normal path still works: enable → publish → 24 hours → the registry holds our DS, secure', async () => {
    const domain = name('dsok');
    const { ds, op } = await signAndAsk(domain);
    expect((await call('POST', '/v1/sandbox/clock', { advance: 'PT25H' })).status).to.equal(200);
    expect((await call('GET', `/v1/operations/${op}`)).body.status).to.equal('active');
    expect(await registry(domain)).to.deep.equal(ds);
    const view = (await call('GET', `/v1/domains/${domain}/dnssec`)).body;
    expect(view).to.include({ enabled: true, status: 'secure', ds_at_parent: true });
    expect(view.parent_ds).to.deep.equal(ds);
  });
});
