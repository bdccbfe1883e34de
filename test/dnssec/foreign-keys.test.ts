import { expect } from 'chai';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { eachStore } from '../support/stores.js';
import { bearer, startApi, type TestApi } from '../support/system.js';
import { expectErrorShape } from '../support/error-shape.js';
import { dig, requireTools } from '../dns/server/tools.js';
import { TOKENS } from '../../src/tokens.js';

/** A fresh public key in the DNSKEY form: X‖Y for P-256 (RFC 6605 §4), the raw 32 octets for Ed25519 (RFC 8080 §3). */
const publicKey = (algorithm: 13 | 15): string => {
  if (algorithm === 15)
    return Buffer.from(generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }).x!, 'base64url').toString('base64');
  const jwk = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).publicKey.export({ format: 'jwk' });
  return Buffer.concat([Buffer.from(jwk.x!, 'base64url'), Buffer.from(jwk.y!, 'base64url')]).toString('base64');
};

/**
 * Another operator's DNSKEY in our DNSKEY set (RFC 8901 model 2; the validation of a real move is
 * multi-signer.test.ts): POST …/dnssec/foreign-keys publishes it at once, signed by our key, and tells the
 * owners; taking it out is the class 3 operation dnssec_foreign_key_remove; while such keys are there, the
 * automatic rollover waits and switching off or changing the algorithm is refused.
 */
eachStore('DNSSEC: other operators’ keys in our DNSKEY set (POST/DELETE …/dnssec/foreign-keys)', (kind) => {
  let api: TestApi;
  let key: string;
  let reader: string;
  const zone = 'domivka-demo.com.ua';
  before(async function () {
    requireTools(this, 'dig');
    api = await startApi(kind, { dns: true, env: { DNSSEC_CSK_LIFETIME_DAYS: '1' } });
    key = (
      await api.issueKey({
        environment: 'test',
        rights: ['dns.dnssec', 'dns.read', 'sandbox.clock'],
        domains: [zone],
        conditions: { cidr: '127.0.0.0/8' },
      })
    ).secret;
    reader = (await api.issueKey({ environment: 'test', rights: ['dns.read'], domains: [zone] })).secret;
  });
  after(async () => api?.close());

  const call = (method: string, path: string, json?: unknown, secret = key) =>
    api.call(path, { method, headers: { ...bearer(secret), 'idempotency-key': randomUUID() }, ...(json === undefined ? {} : { json }) });
  const add = (dnskey: string, note?: string) =>
    call('POST', `/v1/domains/${zone}/dnssec/foreign-keys`, { dnskey, ...(note ? { note } : {}) });
  const served = async (): Promise<string[]> =>
    (await dig(api.dnsPort!, zone, 'DNSKEY', '+dnssec')).answer.filter((r) => r.type === 'DNSKEY').map((r) => r.data.replace(/\s+/g, ''));
  const events = async (type: string) => (await api.system.store.knex('events').where({ type, subject: `domain:${zone}` })).length;
  const theirs = `256 3 13 ${publicKey(13)}`;
  const blog = 'domivka-blog.kyiv.ua';
  /** Calls as a class 3 key for the demo's second domain (registered here, so its DS goes through us). */
  const blogCaller = async () => {
    const k = (
      await api.issueKey({
        environment: 'test',
        rights: ['dns.dnssec', 'dns.read', 'sandbox.clock'],
        domains: [blog],
        conditions: { cidr: '127.0.0.0/8' },
      })
    ).secret;
    return (method: string, path: string, json?: unknown) => call(method, path, json, k);
  };

  it('needs a signed zone, and the right dns.dnssec', async () => {
    expectErrorShape(await add(theirs), 409, 'dnssec_not_enabled');
    const on = await call('PUT', `/v1/domains/${zone}/dnssec`, { algorithm: 13 });
    expect(on.status, JSON.stringify(on.body)).to.equal(200);
    expect(on.body.foreign_keys).to.deep.equal([]);
    const denied = await call('POST', `/v1/domains/${zone}/dnssec/foreign-keys`, { dnskey: theirs }, reader);
    expect(denied.status).to.equal(403);
    expect(denied.body.error.code).to.equal('right_missing');
  });

  it('publishes the key at once beside ours (a new serial, signed by our key), tells the owners; the same key again changes nothing', async () => {
    const serial = async () => Number((await dig(api.dnsPort!, zone, 'SOA')).answer[0]!.data.split(/\s+/)[2]);
    const before = await serial();
    const r = await add(theirs, 'the old provider');
    expect(r.status, JSON.stringify(r.body)).to.equal(201);
    expect(r.body.foreign_keys).to.have.length(1);
    const fk = r.body.foreign_keys[0];
    expect(fk).to.include({ algorithm: 13, flags: 256, dnskey: theirs, note: 'the old provider' });
    expect(fk.tag).to.be.a('number');
    expect(r.body.keys.map((k: { tag: number }) => k.tag)).to.not.include(fk.tag);
    expect(await serial()).to.be.greaterThan(before);
    const keys = await served();
    expect(keys).to.have.length(2);
    expect(keys).to.include(theirs.replace(/\s+/g, ''));
    // The DNSKEY set is signed by our key only: the other operator signs its own copy.
    const sig = (await dig(api.dnsPort!, zone, 'DNSKEY', '+dnssec')).answer.filter((x) => x.type === 'RRSIG');
    expect(sig.map((x) => Number(x.data.split(/\s+/)[6]))).to.deep.equal([r.body.keys[0].tag]);
    expect((await call('GET', `/v1/domains/${zone}/dnssec`, undefined, reader)).body.foreign_keys).to.deep.equal(r.body.foreign_keys);
    expect(await events('dns.dnssec_foreign_key_added')).to.equal(1);
    const notices = await api.system.store.knex('notices').where({ kind: 'dns.dnssec_foreign_key_added' });
    expect(notices.length).to.be.greaterThan(0);
    expect(String(notices[0].message_en ?? JSON.stringify(notices[0]))).to.contain(String(fk.tag));

    // The same key as `dig` prints the record (owner, TTL, class, base64 in pieces): nothing changes.
    const b64 = theirs.split(' ')[3]!;
    const again = await add(`${zone}. 3600 IN DNSKEY 256 3 13 ( ${b64.slice(0, 40)} ${b64.slice(40)} )`);
    expect(again.status, JSON.stringify(again.body)).to.equal(200);
    expect(again.body.foreign_keys).to.have.length(1);
    // Without its base64 padding it is the same key; with other flags it is refused, not added twice.
    expect((await add(theirs.replace(/=+$/, ''))).status).to.equal(200);
    const flagged = await add(theirs.replace(/^256 /, '257 '));
    expectErrorShape(flagged, 422, 'dnssec_foreign_key_invalid');
    expect(flagged.body.error.message.en).to.contain('already in the set with flags 256');
    expect(await events('dns.dnssec_foreign_key_added')).to.equal(1);
  });

  it('refuses, with the reason in both languages: another algorithm, a key that is no key, bad flags or protocol, another zone, our own key', async () => {
    const own = (await call('GET', `/v1/domains/${zone}/dnssec`)).body.keys[0].dnskey as string;
    const cases: Array<[string, RegExp]> = [
      [`256 3 15 ${publicKey(15)}`, /algorithm 15.*algorithm 13/],
      [`256 3 13 ${Buffer.alloc(64, 7).toString('base64')}`, /not a valid key/],
      [`256 3 13 ${publicKey(15)}`, /not a valid key/],
      [`385 3 13 ${publicKey(13)}`, /flags 385/],
      [`0 3 13 ${publicKey(13)}`, /flags 0/],
      [`256 2 13 ${publicKey(13)}`, /protocol/],
      [`other-zone.com.ua. 3600 IN DNSKEY 256 3 13 ${publicKey(13)}`, /another zone/],
      [own, /own key/],
      ['hello', /expected "<flags> 3 <algorithm>/],
      ['256 3 13 not*base64', /expected "<flags> 3 <algorithm>/],
    ];
    for (const [dnskey, reason] of cases) {
      const r = await add(dnskey);
      expectErrorShape(r, 422, 'dnssec_foreign_key_invalid');
      expect(r.body.error.message.en, dnskey).to.match(reason);
      expect(r.body.error.message.uk).to.not.equal(r.body.error.message.en);
    }
    expect(await served()).to.have.length(2);
  });

  it('takes at most four other keys', async () => {
    for (let i = 0; i < 3; i++) expect((await add(`257 3 13 ${publicKey(13)}`)).status).to.equal(201);
    expectErrorShape(await add(`256 3 13 ${publicKey(13)}`), 422, 'dnssec_foreign_key_limit');
    expect(await served()).to.have.length(5);
  });

  it('while other operators sign too: another algorithm and switching off are refused; the automatic rollover waits', async () => {
    expectErrorShape(await call('PUT', `/v1/domains/${zone}/dnssec`, { algorithm: 15 }), 409, 'dnssec_foreign_keys_present');
    expectErrorShape(await call('DELETE', `/v1/domains/${zone}/dnssec`), 409, 'dnssec_foreign_keys_present');
    const before = (await call('GET', `/v1/domains/${zone}/dnssec`)).body;
    expect(Date.parse(before.next_rollover_at)).to.be.greaterThan(0);
    // Past the key's lifetime (1 day here): the rollover would start, but the other operators' DNSKEY sets name our current key only.
    expect((await call('POST', '/v1/sandbox/clock', { advance: 'PT25H' })).status).to.equal(200);
    const report = await api.system.get(TOKENS.RunDnssecSchedule).run();
    expect(report).to.include({ started: 0 });
    expect(report.held).to.be.greaterThan(0);
    const after = (await call('GET', `/v1/domains/${zone}/dnssec`)).body;
    expect(after.status).to.equal('signed');
    expect(after.rollover).to.equal(null);
    expect(after.keys).to.have.length(1);
    expect(Date.parse(after.next_rollover_at)).to.be.greaterThan(Date.parse(before.next_rollover_at));
  });

  it('taking a key out is the class 3 operation dnssec_foreign_key_remove: pending 24 hours, then gone from the zone', async () => {
    const state = (await call('GET', `/v1/domains/${zone}/dnssec`)).body;
    const first = state.foreign_keys[0];
    expectErrorShape(await call('DELETE', `/v1/domains/${zone}/dnssec/foreign-keys/1`), 404, 'dnssec_foreign_key_not_found');
    const r = await call('DELETE', `/v1/domains/${zone}/dnssec/foreign-keys/${first.tag}`);
    expect(r.status, JSON.stringify(r.body)).to.equal(202);
    expect(r.body).to.include({ kind: 'dnssec_foreign_key_remove', domain: zone, status: 'pending', right: 'dns.dnssec' });
    expect(r.body.dnskey).to.deep.equal([first.dnskey]);
    expect(r.body.effect.en).to.contain(String(first.tag));
    expect(r.headers.get('location')).to.equal(`/v1/operations/${r.body.id}`);
    // The operation's events name the key, so a webhook consumer knows which one leaves.
    const pending = await api.system.store
      .knex('events')
      .where({ type: 'operation.pending', subject: `operation:${r.body.id}` })
      .first();
    expect(JSON.parse(pending.data).dnskey).to.deep.equal([first.dnskey]);
    expect(await served()).to.have.length(5);
    expect((await call('POST', '/v1/sandbox/clock', { advance: 'PT25H' })).status).to.equal(200);
    expect((await call('GET', `/v1/operations/${r.body.id}`)).body.status).to.equal('active');
    const after = (await call('GET', `/v1/domains/${zone}/dnssec`)).body;
    expect(after.foreign_keys.map((k: { tag: number }) => k.tag)).to.not.include(first.tag);
    expect(after.foreign_keys).to.have.length(3);
    expect(await served()).to.have.length(4);
    expect(await served()).to.not.include(first.dnskey.replace(/\s+/g, ''));
    expect(await events('dns.dnssec_foreign_key_removed')).to.equal(1);
  });

  it('with our DS at the parent: switching off is refused while another operator signs, when asked and again when the operation would take effect', async () => {
    const on = await blogCaller();
    expect((await on('PUT', `/v1/domains/${blog}/dnssec`, { algorithm: 13 })).status).to.equal(200);
    expect((await on('POST', `/v1/domains/${blog}/dnssec/ds`)).status).to.equal(202);
    expect((await on('POST', '/v1/sandbox/clock', { advance: 'PT25H' })).status).to.equal(200);
    expect((await on('GET', `/v1/domains/${blog}/dnssec`)).body).to.include({ status: 'secure', ds_at_parent: true });
    const registry = async () => (await api.system.store.sandboxRegistry.dsOf(blog)).length;
    expect(await registry()).to.equal(1);

    // Asked while another operator's key is in the set: refused at once.
    const added = await on('POST', `/v1/domains/${blog}/dnssec/foreign-keys`, { dnskey: `256 3 13 ${publicKey(13)}` });
    expect(added.status).to.equal(201);
    expectErrorShape(await on('DELETE', `/v1/domains/${blog}/dnssec`), 409, 'dnssec_foreign_keys_present');
    const out = await on('DELETE', `/v1/domains/${blog}/dnssec/foreign-keys/${added.body.foreign_keys[0].tag}`);
    expect(out.status).to.equal(202);
    expect((await on('POST', '/v1/sandbox/clock', { advance: 'PT25H' })).status).to.equal(200);
    expect((await on('GET', `/v1/domains/${blog}/dnssec`)).body.foreign_keys).to.deep.equal([]);

    // Asked without, then a key added while the operation waits: it fails when it would take effect, the DS stays.
    const off = await on('DELETE', `/v1/domains/${blog}/dnssec`);
    expect(off.status, JSON.stringify(off.body)).to.equal(202);
    expect((await on('POST', `/v1/domains/${blog}/dnssec/foreign-keys`, { dnskey: `256 3 13 ${publicKey(13)}` })).status).to.equal(201);
    expect((await on('POST', '/v1/sandbox/clock', { advance: 'PT25H' })).status).to.equal(200);
    const op = (await on('GET', `/v1/operations/${off.body.id}`)).body;
    expect(op.status).to.equal('failed');
    expect(op.failure_reason).to.match(/^dnssec_foreign_keys_present: another operator's keys \(\d+\) are in the DNSKEY set$/);
    expect(await registry(), 'the registry was not asked').to.equal(1);
    expect((await on('GET', `/v1/domains/${blog}/dnssec`)).body).to.include({ enabled: true, status: 'secure', ds_at_parent: true });
  });

  it("a domain registered here: the other operator's DS is added beside ours, then removed, each as a class 3 operation; ours only by switching off", async () => {
    const on = await blogCaller();
    const registry = async () =>
      (await api.system.store.sandboxRegistry.dsOf(blog)).map((d) => `${d.keyTag} ${d.algorithm} ${d.digestType} ${d.digest}`);
    const ours = (await on('GET', `/v1/domains/${blog}/dnssec`)).body.ds as string[];
    expect(await registry()).to.deep.equal(ours);
    const theirs = `31589 13 2 ${'5d'.repeat(32)}`;

    expectErrorShape(
      await on('POST', `/v1/domains/${blog}/dnssec/ds`, { ds: [`31589 13 1 ${'ab'.repeat(20)}`] }),
      422,
      'dnssec_ds_invalid',
    );
    expectErrorShape(
      await on('POST', `/v1/domains/${blog}/dnssec/ds`, { ds: ['other.kyiv.ua. 3600 IN DS ' + theirs] }),
      422,
      'dnssec_ds_invalid',
    );
    const add = await on('POST', `/v1/domains/${blog}/dnssec/ds`, { ds: [`${blog}. 3600 IN DS ${theirs}`] });
    expect(add.status, JSON.stringify(add.body)).to.equal(202);
    expect(add.body).to.include({ kind: 'dnssec_ds_publish', status: 'pending' });
    expect(add.body.ds, 'normalised: the owner dropped, hex upper case').to.deep.equal([`31589 13 2 ${'5D'.repeat(32)}`]);
    expect((await on('POST', '/v1/sandbox/clock', { advance: 'PT25H' })).status).to.equal(200);
    expect((await on('GET', `/v1/operations/${add.body.id}`)).body.status).to.equal('active');
    expect((await registry()).sort()).to.deep.equal([...ours, `31589 13 2 ${'5D'.repeat(32)}`].sort());

    expectErrorShape(await on('POST', `/v1/domains/${blog}/dnssec/ds/remove`, { ds: ours }), 409, 'dnssec_ds_is_ours');
    const rem = await on('POST', `/v1/domains/${blog}/dnssec/ds/remove`, { ds: [theirs] });
    expect(rem.status, JSON.stringify(rem.body)).to.equal(202);
    expect(rem.body).to.include({ kind: 'dnssec_ds_remove', status: 'pending', right: 'dns.dnssec' });
    expect(rem.body.effect.en).to.contain('The registry removes the DS 31589 13 2');
    expect((await on('POST', '/v1/sandbox/clock', { advance: 'PT25H' })).status).to.equal(200);
    expect((await on('GET', `/v1/operations/${rem.body.id}`)).body.status).to.equal('active');
    expect(await registry()).to.deep.equal(ours);
    expect((await on('GET', `/v1/domains/${blog}/dnssec`)).body).to.include({ status: 'secure', ds_at_parent: true });
  });
});
