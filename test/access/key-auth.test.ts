import { expect } from 'chai';
import { expectErrorShape } from '../support/error-shape.js';
import { formatToken, KEY_ID_LENGTH, KEY_SECRET_LENGTH } from '../../core/access/key-token.js';
import { crc32 } from 'node:zlib';
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { AuthenticateKey, LAST_USED_RESOLUTION_MS, VERIFIED_TOKEN_MS } from '../../core/access/authenticate-key.use-case.js';
import type { KeyRepository } from '../../core/access/ports/key-repository.port.js';
import type { ApiKey } from '../../core/kernel/caller.js';
import { endOfKyivDay } from '../../core/kernel/dates.js';
import type { SecretHasher } from '../../core/kernel/secret-hasher.port.js';
import { apiKeyFixture } from '../support/api-key.js';
import { TestClock } from '../support/clock.js';
import { refusal } from '../support/refusal.js';
import { eachStore } from '../support/stores.js';
import { bearer, startApi, type TestApi } from '../support/system.js';

const expectError = (r: { status: number; body: any }, status: number, code: string) => {
  expect(r.status, JSON.stringify(r.body)).to.equal(status);
  expect(r.body.error.code).to.equal(code);
  expect(r.body.error.message.uk).to.be.a('string').and.not.equal('');
  expect(r.body.error.message.en).to.be.a('string').and.not.equal(r.body.error.message.uk);
  expect(r.body.error.actions).to.be.an('array');
};

eachStore('Keyed calls (seed A1–A3, 2.3)', (kind) => {
  let api: TestApi;
  beforeEach(async () => {
    api = await startApi(kind);
  });
  afterEach(async () => api.close());

  const read = (secret: string, path = '/v1/domains/domivka-demo.com.ua', headers: Record<string, string> = {}) =>
    api.call(path, { headers: { ...bearer(secret), ...headers } });

  describe('A1: Authorization: Bearer <key>', () => {
    it('a missing header is 401 unauthenticated', async () => {
      expectError(await api.call('/v1/domains/domivka-demo.com.ua'), 401, 'unauthenticated');
    });
    it('a header that is not Bearer is 401 key_invalid', async () => {
      expectError(await api.call('/v1/domains', { headers: { authorization: 'Basic Zm9vOmJhcg==' } }), 401, 'key_invalid');
    });
    it('a malformed key is 401 key_invalid', async () => {
      expectError(await read('dmk_test_short'), 401, 'key_invalid');
    });
  });

  describe('A2: dmk_live_/dmk_test_ keys with an id and a checksum', () => {
    it('issued keys have the documented shape and a valid checksum', async () => {
      const k = await api.issueKey({ environment: 'test', rights: ['domain.read'], domains: ['domivka-demo.com.ua'] });
      expect(k.secret).to.match(/^dmk_test_[0-9A-Za-z]{50}$/);
      expect(k.secret.slice(9, 21)).to.equal(k.id);
      expect(formatToken('test', k.id, k.secret.slice(21, 53), (t) => crc32(t))).to.equal(k.secret);
    });
    it('a wrong checksum is 401 key_invalid', async () => {
      const k = await api.issueKey({ environment: 'test', rights: ['domain.read'], domains: ['domivka-demo.com.ua'] });
      const last = k.secret.at(-1) === 'A' ? 'B' : 'A';
      expectError(await read(k.secret.slice(0, -1) + last), 401, 'key_invalid');
    });
    it('an unknown key with a valid checksum is 401 key_invalid', async () => {
      const fake = formatToken('test', 'AAAAAAAAAAAA', 'B'.repeat(32), (t) => crc32(t));
      expectError(await read(fake), 401, 'key_invalid');
    });
    it('the right id with a wrong secret is 401 key_invalid', async () => {
      const k = await api.issueKey({ environment: 'test', rights: ['domain.read'], domains: ['domivka-demo.com.ua'] });
      const forged = formatToken('test', k.id, 'C'.repeat(32), (t) => crc32(t));
      expectError(await read(forged), 401, 'key_invalid');
    });
    it('only an HMAC of the key is stored', async () => {
      const k = await api.issueKey({ environment: 'test', rights: ['domain.read'], domains: ['domivka-demo.com.ua'] });
      const row = await api.system.store.knex('api_keys').where({ id: k.id }).first();
      expect(JSON.stringify(row)).not.to.contain(k.secret.slice(21));
      expect(row.secret_hash).to.match(/^[0-9a-f]{64}$/);
    });
  });

  describe('revocation and expiry', () => {
    it('a revoked key is 401 key_revoked at once', async () => {
      const cookie = await api.signIn();
      const k = await api.issueKey({ environment: 'test', rights: ['domain.read'], domains: ['domivka-demo.com.ua'] }, cookie);
      expect((await read(k.secret)).status).to.equal(200);
      const r = await api.call(`/v1/account/keys/${k.id}`, { method: 'DELETE', headers: { cookie } });
      expect(r.status).to.equal(200);
      expect(r.body.status).to.equal('revoked');
      expectError(await read(k.secret), 401, 'key_revoked');
    });
    it('a key works through its expiry date (end of day, Kyiv) and is 401 key_expired after', async () => {
      api.clock.set(new Date('2026-11-21T10:00:00Z'));
      const k = await api.issueKey({
        environment: 'test',
        rights: ['domain.read'],
        domains: ['domivka-demo.com.ua'],
        conditions: { expires_on: '2026-11-30' },
      });
      api.clock.set(new Date('2026-11-30T21:59:59Z')); // 23:59:59 in Kyiv (UTC+2)
      expect((await read(k.secret)).status).to.equal(200);
      api.clock.set(new Date('2026-11-30T22:00:01Z'));
      const r = await read(k.secret);
      expectError(r, 401, 'key_expired');
      expect(r.body.error.message.en).to.contain('2026-11-30');
    });
  });

  describe('IP restriction (seed 2.3)', () => {
    it('a caller outside the CIDR is 403 ip_not_allowed; inside it passes', async () => {
      const out = await api.issueKey({
        environment: 'test',
        rights: ['domain.read'],
        domains: ['domivka-demo.com.ua'],
        conditions: { cidr: '10.0.0.0/8' },
      });
      const r = await read(out.secret);
      expectError(r, 403, 'ip_not_allowed');
      expect(r.body.error.message.en).to.contain('10.0.0.0/8');
      const inside = await api.issueKey({
        environment: 'test',
        rights: ['domain.read'],
        domains: ['domivka-demo.com.ua'],
        conditions: { cidr: '127.0.0.0/8' },
      });
      expect((await read(inside.secret)).status).to.equal(200);
    });
    it('X-Forwarded-For is ignored unless TRUST_PROXY is set', async () => {
      const k = await api.issueKey({
        environment: 'test',
        rights: ['domain.read'],
        domains: ['domivka-demo.com.ua'],
        conditions: { cidr: '203.0.113.0/24' },
      });
      expectError(await read(k.secret, undefined, { 'x-forwarded-for': '203.0.113.9' }), 403, 'ip_not_allowed');
    });
  });

  describe('rights (seed 2.2, 2.4)', () => {
    it('a right for one domain does not reach another: 403 right_missing', async () => {
      const k = await api.issueKey({ environment: 'test', rights: ['domain.read'], domains: ['domivka-demo.dev'] });
      expect((await read(k.secret, '/v1/domains/domivka-demo.dev')).status).to.equal(200);
      const r = await read(k.secret, '/v1/domains/domivka-demo.com.ua');
      expectError(r, 403, 'right_missing');
      expect(r.body.error.message.en).to.contain('domain.read').and.contain('domivka-demo.com.ua');
    });
    it('a label selects every domain carrying it', async () => {
      const k = await api.issueKey({ environment: 'test', rights: ['domain.read'], label: 'prod' });
      expect((await read(k.secret, '/v1/domains/domivka-demo.dev')).status).to.equal(200);
      expect((await read(k.secret, '/v1/domains/domivka-demo.com.ua')).status).to.equal(200);
      expectError(await read(k.secret, '/v1/domains/domivka-blog.kyiv.ua'), 403, 'right_missing');
    });
    it('a key without domain.read cannot read domains even where it holds other rights', async () => {
      const k = await api.issueKey({ environment: 'test', rights: ['dns.acme_challenge'], domains: ['domivka-demo.com.ua'] });
      expectError(await read(k.secret), 403, 'right_missing');
    });
    it('last_used_at is kept', async () => {
      const k = await api.issueKey({ environment: 'test', rights: ['domain.read'], domains: ['domivka-demo.com.ua'] });
      const before = await api.call('/v1/key', { headers: bearer(k.secret) });
      expect(before.body.last_used_at).to.be.a('string');
      const row = await api.system.store.knex('api_keys').where({ id: k.id }).first();
      expect(row.last_used_at).to.equal(api.clock.now().toISOString());
    });
  });

  describe('environments', () => {
    it('a live key gets 503 environment_unavailable when no live adapters are configured', async () => {
      const k = await api.issueKey({ environment: 'live', rights: ['domain.read'], domains: ['domivka-demo.com.ua'] });
      expect(k.secret).to.match(/^dmk_live_/);
      expectError(await read(k.secret), 503, 'environment_unavailable');
    });
    it('test and live data never mix: a test key sees only test domains', async () => {
      const k = await api.issueKey({ environment: 'test', rights: ['domain.read'], label: 'prod' });
      const list = await api.call('/v1/domains', { headers: bearer(k.secret) });
      expect(list.body.data.map((d: any) => d.domain)).to.deep.equal(['domivka-demo.com.ua', 'domivka-demo.dev']);
    });
  });
});

eachStore('TRUST_PROXY', (kind) => {
  let api: TestApi;
  before(async () => {
    api = await startApi(kind, { env: { TRUST_PROXY: 'true' } });
  });
  after(async () => api.close());

  it('with TRUST_PROXY the X-Forwarded-For address is the client address', async () => {
    const k = await api.issueKey({
      environment: 'test',
      rights: ['domain.read'],
      domains: ['domivka-demo.com.ua'],
      conditions: { cidr: '203.0.113.0/24' },
    });
    const ok = await api.call('/v1/domains/domivka-demo.com.ua', { headers: { ...bearer(k.secret), 'x-forwarded-for': '203.0.113.9' } });
    expect(ok.status).to.equal(200);
    const no = await api.call('/v1/domains/domivka-demo.com.ua', { headers: { ...bearer(k.secret), 'x-forwarded-for': '198.51.100.1' } });
    expectErrorShape(no, 403, 'ip_not_allowed');
  });
});

eachStore('Rate limit per key', (kind) => {
  let api: TestApi;
  // A slow refill (1/s) so the burst, not the clock, decides: the test holds on a slow machine too.
  before(async () => {
    api = await startApi(kind, { env: { RATE_LIMIT_BURST: '100', RATE_LIMIT_PER_SECOND: '1' } });
  });
  after(async () => api.close());

  it('answers RateLimit-* headers and 429 rate_limited with Retry-After past the burst', async () => {
    const k = await api.issueKey({ environment: 'test', rights: ['domain.read'], domains: ['domivka-demo.com.ua'] });
    const read = () => api.call('/v1/domains/domivka-demo.com.ua', { headers: bearer(k.secret) });
    const first = await read();
    expect(first.headers.get('ratelimit-limit')).to.equal('100');
    expect(first.headers.get('ratelimit-remaining')).to.equal('99');
    const results = await Promise.all(Array.from({ length: 130 }, () => read()));
    const limited = results.filter((r) => r.status === 429);
    expect(results.filter((r) => r.status === 200).length).to.be.within(99, 110);
    expect(limited.length).to.be.at.least(20);
    expectError(limited[0]!, 429, 'rate_limited');
    expect(Number(limited[0]!.headers.get('retry-after'))).to.be.at.least(1);
    expect(limited[0]!.headers.get('ratelimit-remaining')).to.equal('0');
    // Another key has its own bucket.
    const other = await api.issueKey({ environment: 'test', rights: ['domain.read'], domains: ['domivka-demo.com.ua'] });
    expect((await api.call('/v1/domains/domivka-demo.com.ua', { headers: bearer(other.secret) })).status).to.equal(200);
  });
});

eachStore('Failed authentications are rate-limited per address', (kind) => {
  let api: TestApi;
  before(async () => {
    api = await startApi(kind, { env: { RATE_LIMIT_ANON_BURST: '20', RATE_LIMIT_ANON_PER_SECOND: '1' } });
  });
  after(async () => api.close());

  it('forged keys with valid checksums run into 429 rate_limited', async () => {
    const forged = Array.from({ length: 40 }, (_, i) =>
      formatToken('test', `AAAAAAAAAA${String(i).padStart(2, '0')}`, 'B'.repeat(32), (t) => crc32(t)),
    );
    const results = [];
    for (const f of forged) results.push(await api.call('/v1/domains', { headers: bearer(f) }));
    expect(results.filter((r) => r.status === 401).length).to.be.within(20, 23);
    const limited = results.filter((r) => r.status === 429);
    expect(limited.length).to.be.at.least(15);
    expectError(limited[0]!, 429, 'rate_limited');
  });
});

/** AuthenticateKey itself, over a key store that counts what it is asked (the HTTP suites above see the answers). */
describe('AuthenticateKey: the order of the checks, and last_used_at written at most once a minute', () => {
  const PEPPER = Buffer.alloc(32, 7);
  const hasher: SecretHasher = {
    hmac: (s) => createHmac('sha256', PEPPER).update(s).digest('hex'),
    sha256: (s) => createHash('sha256').update(s).digest('hex'),
    equal: (a, b) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b)),
    crc32: (t) => crc32(t),
  };
  const ID = 'AbCdEf123456'.slice(0, KEY_ID_LENGTH);
  const token = (environment: 'test' | 'live' = 'test') => formatToken(environment, ID, 's'.repeat(KEY_SECRET_LENGTH), hasher.crc32);

  const setup = (over: Partial<ApiKey> = {}, now = new Date('2026-11-21T10:00:00Z'), h: SecretHasher = hasher) => {
    const stored = apiKeyFixture({ id: ID, secretHash: hasher.hmac(token()), ...over });
    const lookups: string[] = [];
    const touches: Array<[string, Date]> = [];
    /** Whether the store's cache vouches for the key (cachedById answers it). */
    const cache = { vouches: false };
    const keys = {
      findById: async (id: string) => {
        lookups.push(id);
        return id === stored.id ? stored : null;
      },
      cachedById: (id: string) => (cache.vouches && id === stored.id ? stored : undefined),
      touchLastUsed: async (id: string, at: Date) => {
        touches.push([id, at]);
      },
    } as unknown as KeyRepository;
    const clock = new TestClock(now);
    return { auth: new AuthenticateKey(keys, h, clock), stored, lookups, touches, clock, cache };
  };

  it('a key whose checksum does not match is key_invalid before the store is asked', async () => {
    const { auth, lookups } = setup();
    const good = token();
    const last = good.at(-1) === 'A' ? 'B' : 'A';
    const e = await refusal(auth.execute(good.slice(0, -1) + last, '127.0.0.1'));
    expect(e.code).to.equal('key_invalid');
    expect(lookups).to.deep.equal([]);
    expect((await auth.execute(good, '127.0.0.1')).id).to.equal(ID);
    expect(lookups).to.deep.equal([ID]);
  });

  it('a stored key of another environment than its string says is key_invalid, even with the right secret', async () => {
    const { auth } = setup({ environment: 'live' });
    expect((await refusal(auth.execute(token(), '127.0.0.1'))).code).to.equal('key_invalid');
  });

  it('a revoked key is key_revoked naming it', async () => {
    const { auth } = setup({ revokedAt: new Date('2026-11-20T00:00:00Z'), revokedBy: 'p-1' });
    const e = await refusal(auth.execute(token(), '127.0.0.1'));
    expect(e.code).to.equal('key_revoked');
    expect(e.params).to.deep.equal({ key_id: ID });
  });

  it('a key works through the last millisecond of its Kyiv expiry day, then is key_expired', async () => {
    const { auth, clock } = setup({}, endOfKyivDay('2026-12-31'));
    expect((await auth.execute(token(), '127.0.0.1')).id).to.equal(ID);
    clock.advance(1);
    const e = await refusal(auth.execute(token(), '127.0.0.1'));
    expect(e.code).to.equal('key_expired');
    expect(e.params).to.deep.equal({ key_id: ID, expires_on: '2026-12-31' });
  });

  it('last_used_at: written on first use, not again within a minute, again once a whole minute has passed', async () => {
    const start = new Date('2026-11-21T10:00:00Z');
    const { auth, touches, clock, stored } = setup({}, start);
    await auth.execute(token(), '127.0.0.1');
    expect(touches).to.deep.equal([[ID, start]]);
    expect(stored.lastUsedAt).to.deep.equal(start);
    clock.advance(LAST_USED_RESOLUTION_MS - 1);
    await auth.execute(token(), '127.0.0.1');
    expect(touches, 'within the minute').to.have.length(1);
    expect(stored.lastUsedAt).to.deep.equal(start);
    clock.advance(1);
    await auth.execute(token(), '127.0.0.1');
    const later = new Date(start.getTime() + LAST_USED_RESOLUTION_MS);
    expect(touches).to.deep.equal([
      [ID, start],
      [ID, later],
    ]);
    expect(stored.lastUsedAt).to.deep.equal(later);
  });
  it('a token verified once is not hashed again for a while, against the same stored hash; every other check still runs', async () => {
    const hashed: string[] = [];
    const counting: SecretHasher = {
      ...hasher,
      hmac: (s) => {
        hashed.push('hmac');
        return hasher.hmac(s);
      },
      crc32: (t) => {
        hashed.push('crc32');
        return hasher.crc32(t);
      },
    };
    const setUp = setup({}, new Date('2026-11-21T10:00:00Z'), counting);
    const { auth, clock, lookups } = setUp;
    const stored = setUp.stored as { -readonly [K in keyof ApiKey]: ApiKey[K] };
    const good = token();
    expect((await auth.execute(good, '127.0.0.1')).id).to.equal(ID);
    expect(hashed).to.deep.equal(['crc32', 'hmac']);
    expect((await auth.execute(good, '127.0.0.1')).id).to.equal(ID);
    expect(hashed, 'the same bytes again: neither checksum nor HMAC').to.deep.equal(['crc32', 'hmac']);
    expect(lookups, 'the key is read every time').to.deep.equal([ID, ID]);

    // Another secret under the same id (a valid checksum): hashed, and refused.
    const forged = formatToken('test', ID, 't'.repeat(KEY_SECRET_LENGTH), hasher.crc32);
    expect((await refusal(auth.execute(forged, '127.0.0.1'))).code).to.equal('key_invalid');
    expect(hashed).to.deep.equal(['crc32', 'hmac', 'crc32', 'hmac']);
    expect((await auth.execute(good, '127.0.0.1')).id, 'the verified token is still known').to.equal(ID);
    expect(hashed).to.have.length(4);

    // Revocation and the CIDR are checked on every request, remembered or not.
    stored.conditions = { ...stored.conditions, cidr: '10.0.0.0/8' };
    expect((await refusal(auth.execute(good, '127.0.0.1'))).code).to.equal('ip_not_allowed');
    stored.conditions = { ...stored.conditions, cidr: null };
    stored.revokedAt = new Date('2026-11-21T10:00:00Z');
    expect((await refusal(auth.execute(good, '127.0.0.1'))).code).to.equal('key_revoked');
    stored.revokedAt = null;

    // A stored hash that is no longer the one it matched: compared again (and refused).
    const original = stored.secretHash;
    stored.secretHash = hasher.hmac(forged);
    expect((await refusal(auth.execute(good, '127.0.0.1'))).code).to.equal('key_invalid');
    expect(hashed).to.have.length(5);
    stored.secretHash = original;

    // Once the window has passed, the token is hashed again (and remembered again).
    expect((await auth.execute(good, '127.0.0.1')).id).to.equal(ID);
    const before = hashed.length;
    clock.advance(VERIFIED_TOKEN_MS);
    expect((await auth.execute(good, '127.0.0.1')).id).to.equal(ID);
    expect(hashed).to.have.length(before + 2);
  });
  it('known(): a token verified before, its key in memory, answered without a promise; the same refusals; undefined otherwise', async () => {
    const setUp = setup();
    const { auth, clock, lookups, cache } = setUp;
    const stored = setUp.stored as { -readonly [K in keyof ApiKey]: ApiKey[K] };
    cache.vouches = true;
    const good = token();
    expect(auth.known(good, '127.0.0.1'), 'never verified yet').to.equal(undefined);
    expect((await auth.execute(good, '127.0.0.1')).id).to.equal(ID);
    expect(lookups).to.deep.equal([ID]);
    expect(auth.known(good, '127.0.0.1')?.id).to.equal(ID);
    expect(lookups, 'the store was not asked').to.deep.equal([ID]);

    const forged = formatToken('test', ID, 't'.repeat(KEY_SECRET_LENGTH), hasher.crc32);
    expect(auth.known(forged, '127.0.0.1'), 'other bytes').to.equal(undefined);
    cache.vouches = false;
    expect(auth.known(good, '127.0.0.1'), 'the cache cannot vouch').to.equal(undefined);
    cache.vouches = true;

    const refused = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return (e as { code: string }).code;
      }
      return 'answered';
    };
    stored.revokedAt = new Date('2026-11-21T10:00:00Z');
    expect(refused(() => auth.known(good, '127.0.0.1'))).to.equal('key_revoked');
    stored.revokedAt = null;
    stored.conditions = { ...stored.conditions, cidr: '10.0.0.0/8' };
    expect(refused(() => auth.known(good, '127.0.0.1'))).to.equal('ip_not_allowed');
    stored.conditions = { ...stored.conditions, cidr: null };
    const original = stored.secretHash;
    stored.secretHash = hasher.hmac(forged);
    expect(auth.known(good, '127.0.0.1'), 'another stored hash').to.equal(undefined);
    stored.secretHash = original;

    // last_used_at due again: execute() writes it.
    clock.advance(LAST_USED_RESOLUTION_MS);
    expect(auth.known(good, '127.0.0.1')).to.equal(undefined);
  });
});
