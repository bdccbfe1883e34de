import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { eachStore } from '../support/stores.js';
import { bearer, startApi, type TestApi } from '../support/system.js';
import { expectErrorShape } from '../support/error-shape.js';
import { dig, requireTools } from '../dns/server/tools.js';
import { startUnbound } from './validators.js';
import { TOKENS } from '../../src/tokens.js';

/**
 * DESIGN "DNSSEC": PUT signs at once, GET reads, DELETE stops at once while the parent holds no DS; every
 * write path re-signs (a plan applied on a signed zone is served signed and validates); private keys are
 * sealed at rest and never answered; DNSSEC types are refused in plans with their own rule.
 */
eachStore('DNSSEC through the API (PUT, GET, DELETE …/dnssec)', (kind) => {
  let api: TestApi;
  let key: string;
  let editor: string;
  const zone = 'domivka-demo.com.ua';
  before(async function () {
    requireTools(this, 'dig', 'unbound');
    api = await startApi(kind, { dns: true });
    key = (
      await api.issueKey({ environment: 'test', rights: ['dns.dnssec', 'dns.read'], domains: [zone], conditions: { cidr: '127.0.0.0/8' } })
    ).secret;
    editor = (await api.issueKey({ environment: 'test', rights: ['dns.edit'], domains: [zone] })).secret;
  });
  after(async () => api?.close());

  const call = (method: string, path: string, secret: string, json?: unknown) =>
    api.call(path, { method, headers: { ...bearer(secret), 'idempotency-key': randomUUID() }, ...(json === undefined ? {} : { json }) });

  it('refuses an unsupported algorithm with its own code, and a key without dns.dnssec', async () => {
    const bad = await call('PUT', `/v1/domains/${zone}/dnssec`, key, { algorithm: 8 });
    expectErrorShape(bad, 422, 'dnssec_algorithm_unsupported');
    const denied = await call('PUT', `/v1/domains/${zone}/dnssec`, editor, { algorithm: 13 });
    expect(denied.status).to.equal(403);
    expect(denied.body.error.code).to.equal('right_missing');
  });

  it('signs at once, answers the DS, and the zone validates through unbound with that DS; a plan re-signs', async () => {
    const on = await call('PUT', `/v1/domains/${zone}/dnssec`, key, { algorithm: 13 });
    expect(on.status, JSON.stringify(on.body)).to.equal(200);
    expect(on.body).to.include({ enabled: true, algorithm: 13, status: 'signed' });
    expect(on.body.keys).to.have.length(1);
    expect(on.body.keys[0]).to.include({ algorithm: 13, flags: 257, role: 'csk', state: 'active' });
    expect(on.body.ds[0]).to.match(new RegExp(`^${on.body.keys[0].tag} 13 2 [0-9A-F]{64}$`));
    expect(JSON.stringify(on.body)).to.not.match(/private|sealed|BEGIN/i);
    // Sealed at rest: the stored key holds no PKCS#8 in the clear.
    const row = await api.system.store.knex('dnssec_zones').first();
    expect(row.keys).to.not.contain('MIG'); // base64 of a DER SEQUENCE would start so

    const again = await call('PUT', `/v1/domains/${zone}/dnssec`, key, { algorithm: 13 });
    expect(again.body.keys[0].tag).to.equal(on.body.keys[0].tag);
    expect(again.body.ds).to.deep.equal(on.body.ds);
    const read = await call('GET', `/v1/domains/${zone}/dnssec`, key);
    expect(read.body.ds).to.deep.equal(on.body.ds);
    // The signer's first load asks which zones are signed by id alone (signedAmong): exactly those whose heads carry signing.
    const zones = api.system.store.zones;
    const ids = (await zones.versions()).map((v) => v.id);
    const signed = (await zones.headsByIds(ids)).filter((h) => h.signing).map((h) => h.id);
    expect(signed).to.have.length(1);
    expect([...(await zones.signedAmong(ids))]).to.deep.equal(signed);
    // Asked about many (every zone of a large account): one read of the signed zones, the same answer.
    const many = [...Array.from({ length: 600 }, () => randomUUID()), ...ids];
    expect([...(await zones.signedAmong(many))]).to.deep.equal(signed);
    expect([...(await zones.signedAmong(many.filter((id) => !signed.includes(id))))]).to.deep.equal([]);

    const answer = await dig(api.dnsPort!, `www.${zone}`, 'A', '+dnssec');
    expect(answer.answer.map((r) => r.type)).to.deep.equal(['A', 'RRSIG']);
    const unbound = await startUnbound(zone, on.body.ds, api.dnsPort!);
    try {
      const v = await unbound.query(`www.${zone}`, 'A');
      expect(v.flags, v.raw).to.include('ad');
      // Every write path re-signs: a plan applied on the signed zone is served signed.
      const plan = await call('POST', `/v1/domains/${zone}/dns/plans`, editor, {
        changes: [{ action: 'create', name: 'signed-later', type: 'A', ttl: 300, values: ['192.0.2.7'] }],
      });
      expect(plan.body.valid, JSON.stringify(plan.body.checks)).to.equal(true);
      expect((await call('POST', `/v1/domains/${zone}/dns/plans/${plan.body.id}/apply`, editor, {})).status).to.equal(200);
      const added = await unbound.query(`signed-later.${zone}`, 'A');
      expect(added.status, added.raw).to.equal('NOERROR');
      expect(added.flags, added.raw).to.include('ad');
      const nx = await unbound.query(`not-there.${zone}`, 'A');
      expect(nx.status).to.equal('NXDOMAIN');
      expect(nx.flags, nx.raw).to.include('ad');
    } finally {
      await unbound.stop();
    }
  });

  it('refuses DNSSEC types in a plan with the rule dnssec-service-owned', async () => {
    const plan = await call('POST', `/v1/domains/${zone}/dns/plans`, editor, {
      changes: [{ action: 'create', name: '@', type: 'DNSKEY', ttl: 300, values: ['257 3 13 AAAA'] }],
    });
    expect(plan.status, JSON.stringify(plan.body)).to.equal(201);
    expect(plan.body.valid).to.equal(false);
    expect(plan.body.checks.map((c: { rule: string }) => c.rule)).to.include('dnssec-service-owned');
  });

  it('the worker starts a new signature window once half the old one is gone, with a new serial', async () => {
    const refresh = api.system.get(TOKENS.RefreshSignatures);
    expect(await refresh.execute()).to.equal(0); // a fresh window: nothing to do
    const eightDaysAgo = new Date(Date.now() - 8 * 86400_000).toISOString();
    await api.system.store.knex('dnssec_zones').update({ window_start: eightDaysAgo });
    // A plan publishes the zone signed in that old window (what a server would hold after eight days).
    const plan = await call('POST', `/v1/domains/${zone}/dns/plans`, editor, {
      changes: [{ action: 'create', name: 'old-window', type: 'A', ttl: 300, values: ['192.0.2.8'] }],
    });
    expect((await call('POST', `/v1/domains/${zone}/dns/plans/${plan.body.id}/apply`, editor, {})).status).to.equal(200);
    const before = await dig(api.dnsPort!, zone, 'SOA', '+dnssec');
    const oldSig = before.answer.find((r) => r.type === 'RRSIG')!.data.split(/\s+/);
    const stamp = (d: Date): string => d.toISOString().replace(/[-:T]/g, '').slice(0, 14);
    // RRSIG fields: covered, algorithm, labels, original TTL, expiration, inception, ...
    expect(oldSig[5]! < stamp(new Date(Date.now() - 7 * 86400_000)), `old inception ${oldSig[5]}`).to.equal(true);
    expect(await refresh.execute()).to.equal(1);
    const after = await dig(api.dnsPort!, zone, 'SOA', '+dnssec');
    // The window moved to now, and the zone took a new serial so that secondaries transfer the new signatures.
    const row = await api.system.store.knex('dnssec_zones').first();
    expect(Date.parse(row.window_start)).to.be.greaterThan(Date.now() - 60_000);
    expect(after.answer.find((r) => r.type === 'SOA')!.data.split(/\s+/)[2]).to.not.equal(
      before.answer.find((r) => r.type === 'SOA')!.data.split(/\s+/)[2],
    );
    const served = after.answer.find((r) => r.type === 'RRSIG')!.data.split(/\s+/);
    expect(served[5]! > stamp(new Date(Date.now() - 2 * 3600_000)), `new inception ${served[5]}`).to.equal(true);
    expect(served[4]! > stamp(new Date(Date.now() + 13 * 86400_000)), `new expiration ${served[4]}`).to.equal(true);
    // The refresh's signatures were stored by the signer (README "DNSSEC: one signer"): what is served is the stored row.
    const stored: Array<{ rdata: string }> = await api.system.store.knex('dnssec_signatures').where({ rrset: `${zone}/6` });
    expect(stored).to.have.length(1);
    const rdata = Buffer.from(stored[0]!.rdata, 'base64');
    expect(rdata.readUInt32BE(12)).to.be.greaterThan(Date.now() / 1000 - 2 * 3600);
    expect(rdata.subarray(18 + zone.length + 2).toString('base64')).to.equal(served.slice(8).join(''));
    const read = await call('GET', `/v1/domains/${zone}/dnssec`, key);
    expect(Date.parse(read.body.signatures.expiration)).to.be.greaterThan(Date.now() + 13 * 86400_000);
  });

  it('DELETE stops signing at once while the parent holds no DS', async () => {
    const off = await call('DELETE', `/v1/domains/${zone}/dnssec`, key);
    expect(off.status, JSON.stringify(off.body)).to.equal(200);
    expect(off.body).to.include({ enabled: false });
    const answer = await dig(api.dnsPort!, `www.${zone}`, 'A', '+dnssec');
    expect(answer.answer.map((r) => r.type)).to.deep.equal(['A']);
    const events = await api.system.store.knex('events').whereIn('type', ['dns.dnssec_enabled', 'dns.dnssec_disabled']).orderBy('seq');
    expect(events.map((e: { type: string }) => e.type)).to.deep.equal(['dns.dnssec_enabled', 'dns.dnssec_disabled']);
  });
});
