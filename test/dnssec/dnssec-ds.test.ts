import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { eachStore } from '../support/stores.js';
import { bearer, startApi, type TestApi } from '../support/system.js';
import { expectErrorShape } from '../support/error-shape.js';

/**
 * DESIGN "DNSSEC": POST …/dnssec/ds is a class 3 operation `dnssec_ds_publish`; when it takes effect the
 * DS goes to the registry through the registrar port (here the sandbox registry, which keeps it) and the
 * zone becomes secure. A registry refusal fails the operation, the zone stays signed, the owners are told.
 */
eachStore('DNSSEC: the DS at the registry (dnssec_ds_publish)', (kind) => {
  let api: TestApi;
  let key: string;
  const zone = 'domivka-demo.com.ua';
  const refusing = `nods-${randomUUID().slice(0, 8)}.com.ua`;
  before(async () => {
    api = await startApi(kind);
    key = (
      await api.issueKey({
        environment: 'test',
        rights: ['dns.dnssec', 'dns.read', 'domain.register', 'domain.read', 'domain.nameservers', 'sandbox.clock'],
        domains: [zone, refusing],
        conditions: { cidr: '127.0.0.0/8', spend_limit: { amount: 10_000_000, currency: 'UAH' } },
      })
    ).secret;
  });
  after(async () => api?.close());

  const call = (method: string, path: string, json?: unknown) =>
    api.call(path, { method, headers: { ...bearer(key), 'idempotency-key': randomUUID() }, ...(json === undefined ? {} : { json }) });
  const travel = (advance: string) => call('POST', '/v1/sandbox/clock', { advance });
  const events = async (type: string, subject: string) => (await api.system.store.knex('events').where({ type, subject })).length;

  it('an unsigned zone has no DS to publish: 409 dnssec_not_enabled', async () => {
    expectErrorShape(await call('POST', `/v1/domains/${zone}/dnssec/ds`), 409, 'dnssec_not_enabled');
  });

  it('202 dnssec_ds_publish; nothing at the registry until it takes effect; then the registry holds the DS and the zone is secure', async () => {
    const on = await call('PUT', `/v1/domains/${zone}/dnssec`, { algorithm: 13 });
    expect(on.status, JSON.stringify(on.body)).to.equal(200);
    const r = await call('POST', `/v1/domains/${zone}/dnssec/ds`);
    expect(r.status, JSON.stringify(r.body)).to.equal(202);
    expect(r.body).to.include({ kind: 'dnssec_ds_publish', domain: zone, status: 'pending', right: 'dns.dnssec' });
    expect(r.body.ds).to.deep.equal(on.body.ds);
    expect(r.headers.get('location')).to.equal(`/v1/operations/${r.body.id}`);
    expect(await api.system.store.sandboxRegistry.dsOf(zone)).to.deep.equal([]);
    expect((await call('GET', `/v1/domains/${zone}/dnssec`)).body).to.include({ status: 'signed', ds_at_parent: false });
    expectErrorShape(await call('POST', `/v1/domains/${zone}/dnssec/ds`), 409, 'operation_pending');

    const moved = await travel('PT25H');
    expect(moved.status, JSON.stringify(moved.body)).to.equal(200);
    const op = (await call('GET', `/v1/operations/${r.body.id}`)).body;
    expect(op.status, JSON.stringify(op)).to.equal('active');
    const [tag, alg, type, digest] = (on.body.ds[0] as string).split(' ');
    expect(await api.system.store.sandboxRegistry.dsOf(zone)).to.deep.equal([
      { keyTag: Number(tag), algorithm: Number(alg), digestType: Number(type), digest },
    ]);
    expect((await call('GET', `/v1/domains/${zone}/dnssec`)).body).to.include({ status: 'secure', ds_at_parent: true });
    expect(await events('operation.activated', `operation:${op.id}`)).to.equal(1);
    // Published already: nothing to do.
    expectErrorShape(await call('POST', `/v1/domains/${zone}/dnssec/ds`), 422, 'operation_no_change');
  });

  it('a registry refusal fails the operation with dnssec_ds_refused; the zone stays signed; owners told', async () => {
    const reg = await call('POST', '/v1/domains', { domain: refusing, years: 1 });
    expect(reg.status, JSON.stringify(reg.body)).to.be.oneOf([200, 201, 202]);
    expect((await call('PUT', `/v1/domains/${refusing}/dnssec`, { algorithm: 15 })).status).to.equal(200);
    const r = await call('POST', `/v1/domains/${refusing}/dnssec/ds`);
    expect(r.status, JSON.stringify(r.body)).to.equal(202);
    await travel('PT25H');
    const op = (await call('GET', `/v1/operations/${r.body.id}`)).body;
    expect(op.status).to.equal('failed');
    expect(op.failure_reason).to.match(/^dnssec_ds_refused: the registry of .* accepts no DS records/);
    expect((await call('GET', `/v1/domains/${refusing}/dnssec`)).body).to.include({ enabled: true, status: 'signed', ds_at_parent: false });
    expect(await api.system.store.sandboxRegistry.dsOf(refusing)).to.deep.equal([]);
    expect(await events('operation.failed', `operation:${op.id}`)).to.equal(1);
    const notices = (await api.system.store.knex('notices').where({ kind: 'operation.failed' })).filter((n: { data: unknown }) =>
      String(n.data).includes(op.id),
    );
    expect(notices.length, 'every owner is told').to.be.at.least(1);
  });

  it('with our DS at the parent, moving the nameservers away warns dnssec_ds_at_parent with the safe orders (uk, en); without the DS there it does not', async () => {
    expect((await call('GET', `/v1/domains/${zone}/dnssec`)).body).to.include({ status: 'secure', ds_at_parent: true });
    const away = await call('PUT', `/v1/domains/${zone}/nameservers`, { nameservers: ['ns1.elsewhere.example', 'ns2.elsewhere.example'] });
    expect(away.status, JSON.stringify(away.body)).to.equal(202);
    const w = away.body.warnings.find((x: { code: string }) => x.code === 'dnssec_ds_at_parent');
    expect(w, JSON.stringify(away.body.warnings)).to.not.equal(undefined);
    expect(w.message.en).to.contain(`POST /v1/domains/${zone}/dnssec/foreign-keys`);
    expect(w.message.en).to.contain(`DELETE /v1/domains/${zone}/dnssec`);
    expect(w.message.uk).to.contain('Безпечний порядок');
    expect(away.body.warnings.map((x: { code: string }) => x.code)).to.include('nameservers_outside');
    expect((await call('POST', `/v1/operations/${away.body.id}/cancel`)).status).to.equal(200);
    // Signed, but no DS at the parent (the registry refused it): nothing validates against us yet.
    const unsecured = await call('PUT', `/v1/domains/${refusing}/nameservers`, {
      nameservers: ['ns1.elsewhere.example', 'ns2.elsewhere.example'],
    });
    expect(unsecured.status, JSON.stringify(unsecured.body)).to.equal(202);
    expect(unsecured.body.warnings.map((x: { code: string }) => x.code)).to.deep.equal(['nameservers_outside']);
  });

  it("moving the nameservers to us while the registry holds a DS none of our keys match (the previous operator's) warns dnssec_ds_at_parent; with ours among them it does not", async () => {
    // The previous test's request moved `refusing` away; now it is delegated elsewhere.
    await travel('PT25H');
    const foreign = { keyTag: 4242, algorithm: 13, digestType: 2, digest: 'AB'.repeat(32) };
    await api.system.store.sandboxRegistry.putDs(refusing, [foreign]);
    const back = await call('PUT', `/v1/domains/${refusing}/nameservers`, { nameservers: ['ns1.domivka.net', 'ns2.domivka.net'] });
    expect(back.status, JSON.stringify(back.body)).to.equal(202);
    const w = back.body.warnings.find((x: { code: string }) => x.code === 'dnssec_ds_at_parent');
    expect(w, JSON.stringify(back.body.warnings)).to.not.equal(undefined);
    expect(w.message.en).to.contain('(tags 4242)');
    expect(w.message.en).to.contain(`POST /v1/domains/${refusing}/dnssec/foreign-keys`);
    expect(w.message.uk).to.contain('Безпечний порядок');
    expect((await call('POST', `/v1/operations/${back.body.id}/cancel`)).status).to.equal(200);
    // Our DS beside theirs (the multi-signer move's step 4): safe.
    const ourDs = (await call('GET', `/v1/domains/${refusing}/dnssec`)).body.ds[0] as string;
    const [tag, alg, type, digest] = ourDs.split(' ');
    await api.system.store.sandboxRegistry.putDs(refusing, [
      foreign,
      { keyTag: Number(tag), algorithm: Number(alg), digestType: Number(type), digest: digest! },
    ]);
    const safe = await call('PUT', `/v1/domains/${refusing}/nameservers`, { nameservers: ['ns1.domivka.net', 'ns2.domivka.net'] });
    expect(safe.status, JSON.stringify(safe.body)).to.equal(202);
    expect(safe.body.warnings.map((x: { code: string }) => x.code)).to.not.include('dnssec_ds_at_parent');
  });
});
