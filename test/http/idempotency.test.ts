import { expect } from 'chai';
import { expectErrorShape } from '../support/error-shape.js';
import { randomUUID } from 'node:crypto';
import type { Route } from '../../adapters/http/index.js';
import { DomainError } from '../../core/kernel/errors.js';
import { eachStore } from '../support/stores.js';
import { bearer, startApi, type TestApi } from '../support/system.js';

/**
 * Seed 4 / DESIGN "Idempotency-Key". The foundation has no keyed write yet, so the suite declares
 * test routes (routes are data) whose handlers write through the real store and unit of work.
 */
let current: TestApi;
const effect = async (label: string) => {
  await current.system.store.events.append({
    id: randomUUID(),
    accountId: 'test',
    environment: 'test',
    type: 'domain.created',
    subject: label,
    actor: 'test',
    data: {},
    occurredAt: new Date(),
  });
};
// Through the unit of work, as repositories do: inside a handler this is the request's transaction.
const effects = async (label: string) =>
  Number((await current.system.store.uow.db()('events').where({ subject: label }).count({ n: '*' }).first())!.n);
const crashed = new Set<string>();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const routes: Route[] = [
  {
    id: 'testWrite',
    method: 'POST',
    path: '/v1/test/writes',
    tag: 'Test',
    writes: true,
    summary: 'test write',
    access: { kind: 'key', anyKey: true },
    body: {
      type: 'object',
      additionalProperties: false,
      required: ['label'],
      properties: { label: { type: 'string' }, delay: { type: 'integer' } },
    },
    responses: { 201: { description: 'written' } },
    handle: async (i) => {
      const b = i.body as { label: string; delay?: number };
      await effect(b.label);
      if (b.delay) await sleep(b.delay);
      return { status: 201, body: { label: b.label, effects: await effects(b.label), nonce: randomUUID() } };
    },
  },
  {
    id: 'testBusinessError',
    method: 'POST',
    path: '/v1/test/taken',
    tag: 'Test',
    writes: true,
    summary: 'business error',
    access: { kind: 'key', anyKey: true },
    body: { type: 'object', properties: { label: { type: 'string' } } },
    responses: { 201: { description: 'never' } },
    handle: async (i) => {
      await effect((i.body as { label: string }).label);
      throw new DomainError('domain_taken', { domain: 'x.com', registered_until: '2030-01-01', label: 'x' });
    },
  },
  {
    id: 'testCrash',
    method: 'POST',
    path: '/v1/test/crash',
    tag: 'Test',
    writes: true,
    summary: 'crash after a write',
    access: { kind: 'key', anyKey: true },
    body: { type: 'object', properties: { label: { type: 'string' }, crash: { type: 'boolean' } } },
    responses: { 201: { description: 'written' } },
    handle: async (i) => {
      const b = i.body as { label: string; crash?: boolean };
      await effect(b.label);
      if (!crashed.has(b.label)) {
        crashed.add(b.label);
        throw new Error('simulated crash between the effect and the response');
      }
      return { status: 201, body: { effects: await effects(b.label) } };
    },
  },
];

eachStore('Idempotency-Key (seed 4)', (kind) => {
  let api: TestApi;
  let secret: string;
  beforeEach(async () => {
    api = await startApi(kind, { extraRoutes: routes });
    current = api;
    crashed.clear();
    secret = (await api.issueKey({ environment: 'test', rights: ['domain.read'], domains: ['domivka-demo.com.ua'] })).secret;
  });
  afterEach(async () => api.close());

  const post = (path: string, json: unknown, key?: string, s = secret) =>
    api.call(path, { method: 'POST', headers: { ...bearer(s), ...(key ? { 'idempotency-key': key } : {}) }, json });

  it('is required on every keyed write: 400 idempotency_key_required, nothing written', async () => {
    const r = await post('/v1/test/writes', { label: 'a' });
    expect(r.status).to.equal(400);
    expect(r.body.error.code).to.equal('idempotency_key_required');
    expect(await effects('a')).to.equal(0);
  });

  it('rejects a key that is not 1–255 visible ASCII characters', async () => {
    const r = await post('/v1/test/writes', { label: 'a' }, 'x'.repeat(256));
    expect(r.status).to.equal(400);
    expect(r.body.error.code).to.equal('idempotency_key_invalid');
  });

  it('a repeat returns the stored response with Idempotent-Replayed: true and writes nothing new', async () => {
    const k = randomUUID();
    const first = await post('/v1/test/writes', { label: 'b' }, k);
    expect(first.status).to.equal(201);
    expect(first.headers.get('idempotent-replayed')).to.equal(null);
    const again = await post('/v1/test/writes', { label: 'b' }, k);
    expect(again.status).to.equal(201);
    expect(again.headers.get('idempotent-replayed')).to.equal('true');
    expect(again.body).to.deep.equal(first.body);
    expect(await effects('b')).to.equal(1);
  });

  it('the fingerprint is canonical JSON: key order and whitespace do not matter', async () => {
    const k = randomUUID();
    await post('/v1/test/writes', { label: 'c', delay: 0 }, k);
    const again = await api.call('/v1/test/writes', {
      method: 'POST',
      headers: { ...bearer(secret), 'idempotency-key': k, 'content-type': 'application/json' },
      body: '{ "delay":0,  "label":"c" }',
    });
    expect(again.headers.get('idempotent-replayed')).to.equal('true');
  });

  it('the same key with another body is 422 idempotency_key_reused', async () => {
    const k = randomUUID();
    await post('/v1/test/writes', { label: 'd' }, k);
    const r = await post('/v1/test/writes', { label: 'other' }, k);
    expect(r.status).to.equal(422);
    expect(r.body.error.code).to.equal('idempotency_key_reused');
    expect(await effects('other')).to.equal(0);
  });

  it('keys are scoped per access key: another key may use the same value', async () => {
    const other = (await api.issueKey({ environment: 'test', rights: ['domain.read'], domains: ['domivka-demo.com.ua'] })).secret;
    const k = randomUUID();
    expect((await post('/v1/test/writes', { label: 'e' }, k)).status).to.equal(201);
    const r = await post('/v1/test/writes', { label: 'e' }, k, other);
    expect(r.status).to.equal(201);
    expect(r.headers.get('idempotent-replayed')).to.equal(null);
    expect(await effects('e')).to.equal(2);
  });

  it('a business error is stored and replayed; its effects are rolled back', async () => {
    const k = randomUUID();
    const r = await post('/v1/test/taken', { label: 'f' }, k);
    expect(r.status).to.equal(409);
    expect(r.body.error.code).to.equal('domain_taken');
    expect(await effects('f')).to.equal(0);
    const again = await post('/v1/test/taken', { label: 'f' }, k);
    expectErrorShape(again, 409, 'domain_taken');
    expect(again.headers.get('idempotent-replayed')).to.equal('true');
  });

  it('a crash between the effect and the stored response leaves neither; a retry runs once', async () => {
    const k = randomUUID();
    const r = await post('/v1/test/crash', { label: 'g' }, k);
    expect(r.status).to.equal(500);
    expect(r.body.error.code).to.equal('internal_error');
    expect(JSON.stringify(r.body)).not.to.contain('simulated');
    expect(await effects('g')).to.equal(0);
    const retry = await post('/v1/test/crash', { label: 'g' }, k);
    expect(retry.status).to.equal(201);
    expect(retry.body.effects).to.equal(1);
    const replay = await post('/v1/test/crash', { label: 'g' }, k);
    expect(replay.headers.get('idempotent-replayed')).to.equal('true');
    expect(await effects('g')).to.equal(1);
  });

  it('concurrent duplicates: exactly one effect; the others replay or get 409 idempotency_key_in_use', async () => {
    const k = randomUUID();
    const results = await Promise.all(Array.from({ length: 20 }, () => post('/v1/test/writes', { label: 'h', delay: 150 }, k)));
    const statuses = results.map((r) => r.status);
    expect(
      statuses.every((s) => s === 201 || s === 409),
      statuses.join(','),
    ).to.equal(true);
    const fresh = results.filter((r) => r.status === 201 && r.headers.get('idempotent-replayed') === null);
    expect(fresh).to.have.length(1);
    for (const r of results.filter((x) => x.status === 201)) expect(r.body).to.deep.equal(fresh[0]!.body);
    for (const r of results.filter((x) => x.status === 409)) {
      expect(r.body.error.code).to.equal('idempotency_key_in_use');
      // It says when the lock of a cut-off request would let a retry take over (60 s by default).
      expect(Number(r.headers.get('retry-after'))).to.be.within(1, 60);
      expect(r.body.error.message.en).to.match(/Retry in \d+ s/);
    }
    expect(await effects('h')).to.equal(1);
  });

  it('the stored fingerprint is keyed (HMAC under KEY_PEPPER), never a plain hash of a body that may hold a secret', async () => {
    const k = randomUUID();
    expect((await post('/v1/test/writes', { label: 'fp' }, k)).status).to.equal(201);
    const { fingerprintOf, fingerprintKeyOf } = await import('../../adapters/http/middleware/idempotency.js');
    const row = await api.system.store.knex('idempotency_keys').where({ key: k }).first();
    expect(row.fingerprint).to.equal(
      fingerprintOf('POST', '/v1/test/writes', { label: 'fp' }, fingerprintKeyOf(api.system.config.keyPepper)),
    );
    expect(row.fingerprint).not.to.equal(fingerprintOf('POST', '/v1/test/writes', { label: 'fp' }));
    // The same request again replays; another body under the key is refused.
    expect((await post('/v1/test/writes', { label: 'fp' }, k)).headers.get('idempotent-replayed')).to.equal('true');
    expect((await post('/v1/test/writes', { label: 'other' }, k)).body.error.code).to.equal('idempotency_key_reused');
  });

  it('an in-flight record whose process died is taken over after the lock timeout (one stored before fingerprints were keyed too)', async () => {
    const k = randomUUID();
    const scope = `key:${secret.slice(9, 21)}`;
    const { fingerprintOf } = await import('../../adapters/http/middleware/idempotency.js');
    const fp = fingerprintOf('POST', '/v1/test/writes', { label: 'i' });
    await api.system.store.idempotency.claim(scope, k, fp, new Date(api.clock.now().getTime() - 120_000), 'dead-process');
    const r = await post('/v1/test/writes', { label: 'i' }, k);
    expect(r.status).to.equal(201);
    expect(await effects('i')).to.equal(1);
  });

  it('a slow request whose claim a retry takes over cannot also finish: one effect, no 500', async () => {
    const k = randomUUID();
    const slow = post('/v1/test/writes', { label: 'slow', delay: 800 }, k);
    await sleep(200);
    api.clock.advance(61_000); // past the lock timeout while the first attempt still runs
    const retry = await post('/v1/test/writes', { label: 'slow', delay: 800 }, k);
    const first = await slow;
    const statuses = [first.status, retry.status];
    expect(
      statuses.every((s) => s === 201 || s === 409),
      statuses.join(','),
    ).to.equal(true);
    expect(statuses.filter((s) => s === 201).length).to.be.at.least(1);
    expect(await effects('slow')).to.equal(1);
  });

  it('records are kept 24 hours, then the key may be used anew', async () => {
    const k = randomUUID();
    await post('/v1/test/writes', { label: 'j' }, k);
    api.clock.advance(24 * 60 * 60 * 1000 + 1000);
    const r = await post('/v1/test/writes', { label: 'j' }, k);
    expect(r.headers.get('idempotent-replayed')).to.equal(null);
    expect(await effects('j')).to.equal(2);
  });

  it('is accepted and ignored on reads', async () => {
    const r = await api.call('/v1/domains/domivka-demo.com.ua', { headers: { ...bearer(secret), 'idempotency-key': randomUUID() } });
    expect(r.status).to.equal(200);
    expect(r.headers.get('idempotent-replayed')).to.equal(null);
  });

  it('is checked after authentication: a bad key is 401 and nothing is stored', async () => {
    const k = randomUUID();
    const r = await post('/v1/test/writes', { label: 'k' }, k, 'dmk_test_nonsense');
    expectErrorShape(r, 401, 'key_invalid');
    expect(await api.system.store.knex('idempotency_keys').where({ key: k }).first()).to.equal(undefined);
  });

  it('console writes accept it too: concurrent key issuance with one Idempotency-Key issues one key', async () => {
    const cookie = await api.signIn();
    const before = Number((await api.system.store.knex('api_keys').count({ n: '*' }).first())!.n);
    const k = randomUUID();
    const body = { environment: 'test', rights: ['domain.read'], domains: ['domivka-demo.dev'], name: 'once' };
    const results = await Promise.all(
      Array.from({ length: 10 }, () =>
        api.call('/v1/account/keys', { method: 'POST', headers: { cookie, 'idempotency-key': k }, json: body }),
      ),
    );
    const created = results.filter((r) => r.status === 201);
    expect(created.length).to.be.at.least(1);
    expect(new Set(created.map((r) => r.body.key.id)).size).to.equal(1);
    const after = Number((await api.system.store.knex('api_keys').count({ n: '*' }).first())!.n);
    expect(after - before).to.equal(1);
  });
});
