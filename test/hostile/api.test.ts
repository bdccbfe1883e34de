import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { crc32 } from 'node:zlib';
import type { Route } from '../../adapters/http/index.js';
import { formatToken } from '../../core/access/key-token.js';
import { kyivDate } from '../../core/kernel/dates.js';
import { eachStore } from '../support/stores.js';
import { bearer, startApi, type TestApi } from '../support/system.js';
import { expectErrorShape, type Res } from '../support/error-shape.js';
import { CREDENTIAL_POLICY } from '../../core/accounts/credential-throttle.js';

/**
 * Hostile tests: what an attacker or a sloppy integrator sends. Every answer must be the seed's error
 * shape (seed 7, DESIGN "Errors") with real Ukrainian text, never a 500 for a client mistake, never a
 * stack trace, and nothing already stored may be lost.
 */

/** Sends raw bytes on a fresh connection and reads the whole answer (Connection: close). */
const raw = (api: TestApi, request: string | Buffer): Promise<Res & { text: string }> =>
  new Promise((resolve, reject) => {
    const url = new URL(api.base);
    const sock = connect(Number(url.port), url.hostname);
    const chunks: Buffer[] = [];
    sock.on('data', (c) => chunks.push(c));
    sock.on('error', reject);
    sock.on('close', () => {
      const all = Buffer.concat(chunks).toString('utf8');
      const sep = all.indexOf('\r\n\r\n');
      const head = sep >= 0 ? all.slice(0, sep) : all;
      let text = sep >= 0 ? all.slice(sep + 4) : '';
      const lines = head.split('\r\n');
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '')?.[1] ?? 0);
      const headers: Record<string, string> = {};
      for (const l of lines.slice(1)) {
        const i = l.indexOf(':');
        if (i > 0) headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
      }
      if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
        let out = '';
        let rest = text;
        for (;;) {
          const nl = rest.indexOf('\r\n');
          const n = parseInt(rest.slice(0, nl), 16);
          if (!n) break;
          out += rest.slice(nl + 2, nl + 2 + n);
          rest = rest.slice(nl + 2 + n + 2);
        }
        text = out;
      }
      let body: unknown = text;
      try {
        body = text === '' ? undefined : JSON.parse(text);
      } catch {
        /* not JSON */
      }
      resolve({ status, headers, body, text });
    });
    sock.write(request);
    sock.setTimeout(10_000, () => sock.destroy());
  });

/** A request head for raw(); `lines` are extra header lines, sent as given (bytes included). */
const head = (method: string, path: string, lines: string[] = []): string =>
  [`${method} ${path} HTTP/1.1`, 'Host: 127.0.0.1', 'Connection: close', ...lines, '', ''].join('\r\n');

const countRows = async (api: TestApi, table: string, where: Record<string, unknown> = {}) =>
  Number((await api.system.store.knex(table).where(where).count({ n: '*' }).first())!.n);

/** Large buckets: these suites send many requests from one address. */
const ENV = { RATE_LIMIT_BURST: '100000', RATE_LIMIT_ANON_BURST: '100000' };

const DEV = 'domivka-demo.dev';

eachStore('Hostile: Authorization header', (kind) => {
  let api: TestApi;
  let key: { id: string; secret: string };
  let live: { id: string; secret: string };
  before(async () => {
    api = await startApi(kind, { env: ENV });
    key = await api.issueKey({ environment: 'test', rights: ['domain.read'], domains: [DEV] });
    live = await api.issueKey({ environment: 'live', rights: ['domain.read'], domains: [DEV] });
  });
  after(async () => api.close());

  const read = (authorization: string, path = `/v1/domains/${DEV}`) => api.call(path, { headers: { authorization } });

  it('the scheme is case-insensitive (RFC 9110 §11.1): bearer / BEARER / BeArEr work', async () => {
    for (const scheme of ['bearer', 'BEARER', 'BeArEr']) {
      const r = await read(`${scheme} ${key.secret}`);
      expect(r.status, scheme).to.equal(200);
      expect(r.body.domain).to.equal(DEV);
    }
  });

  it('surrounding whitespace is tolerated; a tab, or two tokens, or a comma list is 401 key_invalid', async () => {
    expect((await read(`  Bearer ${key.secret}  `)).status).to.equal(200);
    for (const h of [
      `Bearer\t${key.secret}`,
      `Bearer ${key.secret} ${key.secret}`,
      `Bearer ${key.secret}, Bearer ${key.secret}`,
      `Bearer ${key.secret},${key.secret}`,
      `Bearer`,
      `Bearer `,
      `${key.secret}`,
      `Token ${key.secret}`,
      `Basic ${Buffer.from(`${key.secret}:`).toString('base64')}`,
      `Bearer "${key.secret}"`,
      `Bearer ${key.secret};`,
    ]) {
      expectErrorShape(await read(h), 401, 'key_invalid');
    }
  });

  it('more than one space after Bearer is either accepted (RFC 6750 1*SP) or a clean 401 key_invalid', async () => {
    const r = await read(`Bearer   ${key.secret}`);
    if (r.status !== 200) expectErrorShape(r, 401, 'key_invalid');
  });

  it('an empty Authorization header on a keyed route is 401 unauthenticated', async () => {
    const r = await raw(api, head('GET', `/v1/domains/${DEV}`, ['Authorization: ']));
    expectErrorShape(r, 401, 'unauthenticated');
  });

  it('an 8 KB header is a clean 401 key_invalid', async () => {
    expectErrorShape(await read(`Bearer ${'A'.repeat(8 * 1024)}`), 401, 'key_invalid');
    expectErrorShape(await read(`Bearer ${key.secret}${'A'.repeat(8 * 1024)}`), 401, 'key_invalid');
  });

  it('non-ASCII bytes in the header are 401 key_invalid; the key with a unicode look-alike suffix does not pass', async () => {
    const r = await raw(
      api,
      Buffer.concat([
        Buffer.from(head('GET', `/v1/domains/${DEV}`).slice(0, -2)),
        Buffer.from(`Authorization: Bearer ${key.secret.slice(0, -1)}ѕ\r\n\r\n`, 'utf8'),
      ]),
    );
    expectErrorShape(r, 401, 'key_invalid');
    const r2 = await raw(
      api,
      Buffer.concat([
        Buffer.from(head('GET', `/v1/domains/${DEV}`).slice(0, -2)),
        Buffer.from(`Authorization: Bearer ${key.secret}\u00a0\r\n\r\n`, 'latin1'),
      ]),
    );
    expect(r2.status).not.to.equal(500);
    expect(r2.status).to.be.oneOf([200, 401]);
  });

  it('a NUL or CR inside the header never reaches the app and never breaks the server', async () => {
    const r = await raw(api, head('GET', `/v1/domains/${DEV}`, [`Authorization: Bearer ${key.secret}\0`]));
    expect(r.status).to.equal(400);
    expect((await read(`Bearer ${key.secret}`)).status).to.equal(200);
  });

  it('two Authorization headers never authenticate with the second one', async () => {
    const r = await raw(
      api,
      head('GET', `/v1/domains/${DEV}`, ['Authorization: Bearer dmk_test_nonsense', `Authorization: Bearer ${key.secret}`]),
    );
    expect(r.status).to.be.within(400, 401);
  });

  it('a test key re-prefixed as live (checksum recomputed) is 401 key_invalid, and vice versa', async () => {
    const asLive = formatToken('live', key.id, key.secret.slice(21, 53), (t) => crc32(t));
    expectErrorShape(await read(`Bearer ${asLive}`), 401, 'key_invalid');
    const asTest = formatToken('test', live.id, live.secret.slice(21, 53), (t) => crc32(t));
    expectErrorShape(await read(`Bearer ${asTest}`), 401, 'key_invalid');
  });

  it("another key's id with a valid checksum and a guessed secret is 401 key_invalid, same answer as an unknown id", async () => {
    const forged = await read(`Bearer ${formatToken('test', key.id, 'x'.repeat(32), (t) => crc32(t))}`);
    const unknown = await read(`Bearer ${formatToken('test', 'ZZZZZZZZZZZZ', 'x'.repeat(32), (t) => crc32(t))}`);
    expectErrorShape(forged, 401, 'key_invalid');
    expectErrorShape(unknown, 401, 'key_invalid');
    expect(forged.body).to.deep.equal(unknown.body);
  });

  it('the id part of a key is case-sensitive: changing its case is 401', async () => {
    const flipped = key.id.replace(/[a-zA-Z]/, (c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()));
    if (flipped === key.id) return; // all digits: nothing to flip
    const t = formatToken('test', flipped, key.secret.slice(21, 53), (x) => crc32(x));
    expectErrorShape(await read(`Bearer ${t}`), 401, 'key_invalid');
  });

  it('a wrong secret never reveals that a key is revoked, expired or IP-restricted (nor its network)', async () => {
    const cookie = await api.signIn();
    const revoked = await api.issueKey({ environment: 'test', rights: ['domain.read'], domains: [DEV] }, cookie);
    expect((await api.call(`/v1/account/keys/${revoked.id}`, { method: 'DELETE', headers: { cookie } })).status).to.equal(200);
    const fenced = await api.issueKey(
      { environment: 'test', rights: ['domain.read'], domains: [DEV], conditions: { cidr: '198.51.100.0/24' } },
      cookie,
    );
    const short = await api.issueKey(
      {
        environment: 'test',
        rights: ['domain.read'],
        domains: [DEV],
        conditions: { expires_on: kyivDate(new Date(api.clock.now().getTime() + 24 * 60 * 60 * 1000)) },
      },
      cookie,
    );
    api.clock.advance(40 * 24 * 60 * 60 * 1000);
    for (const k of [revoked, fenced, short]) {
      const wrong = formatToken('test', k.id, 'w'.repeat(32), (t) => crc32(t));
      const r = await read(`Bearer ${wrong}`);
      expectErrorShape(r, 401, 'key_invalid');
      expect(JSON.stringify(r.body)).not.to.contain(k.id).and.not.to.contain('198.51.100');
    }
    // With the right secret each says what is wrong.
    expectErrorShape(await read(`Bearer ${revoked.secret}`), 401, 'key_revoked');
    expectErrorShape(await read(`Bearer ${short.secret}`), 401, 'key_expired');
    expectErrorShape(await read(`Bearer ${fenced.secret}`), 403, 'ip_not_allowed');
  });

  it('keys are not read from the query string, cookies or X-Api-Key', async () => {
    expectErrorShape(await api.call(`/v1/domains/${DEV}?access_token=${key.secret}`), 401, 'unauthenticated');
    expectErrorShape(await api.call(`/v1/domains/${DEV}`, { headers: { 'x-api-key': key.secret } }), 401, 'unauthenticated');
    expectErrorShape(await api.call(`/v1/domains/${DEV}`, { headers: { cookie: `dmk_session=${key.secret}` } }), 401, 'unauthenticated');
  });
});

eachStore('Hostile: domain scoping and names', (kind) => {
  let api: TestApi;
  let named: string;
  let labelled: string;
  before(async () => {
    api = await startApi(kind, { env: ENV });
    named = (await api.issueKey({ environment: 'test', rights: ['domain.read'], domains: [DEV] })).secret;
    labelled = (await api.issueKey({ environment: 'test', rights: ['domain.read'], label: 'blog' })).secret;
  });
  after(async () => api.close());

  const get = (path: string, secret = named) => api.call(path, { headers: bearer(secret) });

  it('spellings of the named domain reach it, and only it', async () => {
    for (const p of [
      'DOMIVKA-DEMO.DEV',
      'DOMIVKA-DEMO.DEV.',
      '%64omivka-demo.dev',
      'domivka-demo%2Edev',
      'Domivka-Demo.Dev.',
      'domivka-demo.dev%20',
      '%20domivka-demo.dev',
      encodeURIComponent('domivka-demo\u3002dev'),
    ]) {
      const r = await get(`/v1/domains/${p}`);
      expect(r.status, p).to.equal(200);
      expect(r.body.domain, p).to.equal(DEV);
    }
  });

  it('variants that are other names or not names never pass a named-domain policy', async () => {
    const variants = [
      'domivka-demo.dev%2F',
      'domivka-demo.dev%2F..',
      'domivka-demo.dev%00',
      'domivka-demo.dev..',
      '.domivka-demo.dev',
      'domivka-demo.dev%23x',
      'domivka-demo.dev%3Fx',
      'domivka-demo.dev%40domivka-demo.com.ua',
      'domivka-demo.com.ua%2F..%2Fdomivka-demo.dev',
      '..%2Faccount%2Fkeys',
      '..%2F..%2Fv1%2Faccount%2Fkeys',
      '%2E%2E',
      encodeURIComponent('dоmivka-demo.dev'), // Cyrillic о
      encodeURIComponent('domivka-demo.dеv'), // Cyrillic е
      'xn--domivka-demo-xyz.dev',
      'domivka-demo.dev.com.ua',
      'www.domivka-demo.dev',
      '*.domivka-demo.dev',
      '%2A',
      'domivka-demo.com.ua',
      'domivka-demo.com.ua%0Adomivka-demo.dev',
      'domivka-demo.dev%5C',
      'domivka-demo.dev%3A443',
      `${'a'.repeat(63)}.dev`,
      `${'a.'.repeat(140)}dev`,
      'a'.repeat(300),
      '%E0%A4%A',
    ];
    for (const v of variants) {
      const r = await get(`/v1/domains/${v}`);
      expect(r.status, v).not.to.equal(200);
      expect(r.status, `${v}: ${JSON.stringify(r.body)}`).to.be.oneOf([403, 404, 422]);
      expectErrorShape(r);
    }
  });

  it('path traversal in the domain parameter never reaches another route', async () => {
    for (const p of [
      '/v1/domains/..%2Faccount%2Fkeys',
      '/v1/domains/%2e%2e/account/keys',
      '/v1/domains/../account/keys',
      '/v1/domains/..%252Faccount',
    ]) {
      const r = await get(p);
      expect(r.status, p).not.to.equal(200);
      expectErrorShape(r);
      expect(JSON.stringify(r.body)).not.to.contain('secret');
    }
  });

  it('a very long name is a clean 422, up to the URL limits', async () => {
    for (const n of [301, 1000, 5000]) {
      const r = await get(`/v1/domains/${'a'.repeat(n)}.dev`);
      expectErrorShape(r, 422);
    }
  });

  it('a label-scoped test key never sees a live domain carrying the same label', async () => {
    await api.system.store.domains.insert({
      id: `d-${randomUUID()}`,
      accountId: api.demo.accountId,
      environment: 'live',
      name: 'live-only-blog.dev',
      labels: ['blog'],
      status: ['ok'],
      expiresOn: '2030-01-01',
      autoRenew: true,
      transferLock: true,
      nameservers: [],
      createdAt: new Date(),
    });
    expectErrorShape(await get('/v1/domains/live-only-blog.dev', labelled), 403, 'right_missing');
    const list = await get('/v1/domains', labelled);
    expect(list.status).to.equal(200);
    expect(list.body.data.map((d: any) => d.domain)).to.deep.equal(['domivka-blog.kyiv.ua']);
  });

  it('a label-scoped key learns nothing from names outside its label, existing or not (same 403 body)', async () => {
    const a = await get('/v1/domains/domivka-demo.dev', labelled);
    const b = await get('/v1/domains/nobody-has-this.dev', labelled);
    expectErrorShape(a, 403, 'right_missing');
    expectErrorShape(b, 403, 'right_missing');
    expect(a.body.error.message.en.replace('domivka-demo.dev', 'X')).to.equal(b.body.error.message.en.replace('nobody-has-this.dev', 'X'));
  });

  it('the list filter cannot widen the scope (label, LIKE metacharacters, NUL)', async () => {
    for (const label of ['prod', 'shop', '%', '_', "'", '%25', '*', 'blog%', 'BLOG']) {
      const r = await get(`/v1/domains?label=${encodeURIComponent(label)}`, labelled);
      expect(r.status, label).to.equal(200);
      for (const d of r.body.data) expect(d.domain).to.equal('domivka-blog.kyiv.ua');
      if (label !== 'blog') expect(r.body.data, label).to.deep.equal([]);
    }
    const named2 = await get('/v1/domains?label=%25');
    expect(named2.body.data).to.deep.equal([]);
  });

  // Regression guard (was a bug found by the hostile pass).
  it('a label filter with a NUL byte is a clean answer, never a 500', async () => {
    const r = await get('/v1/domains?label=%00', labelled);
    if (r.status === 200) expect(r.body.data).to.deep.equal([]);
    else expectErrorShape(r, 422);
  });

  it('search with hostile text: 422 for non-names, never 500, never SQL', async () => {
    for (const q of [
      '*',
      '%',
      '_',
      "'",
      "%_'",
      "' OR 1=1--",
      '...',
      '.',
      '..com',
      'a'.repeat(1000),
      'a'.repeat(64),
      '%00',
      '\u0000',
      '<script>',
      'a b',
      '\\',
      'xn--',
      '-a',
      'a-',
      'com.ua',
      'a..com',
    ]) {
      const r = await get(`/v1/search?q=${encodeURIComponent(q)}`);
      expect(r.status, `${JSON.stringify(q)} → ${JSON.stringify(r.body)}`).to.be.oneOf([422]);
      expectErrorShape(r);
    }
  });

  it('search: unicode is punycoded; repeated or missing q is 422; unknown params are 422', async () => {
    const r = await get(`/v1/search?q=${encodeURIComponent('київ')}`);
    expect(r.status).to.equal(200);
    for (const x of r.body.results) expect(x.domain).to.match(/^xn--/);
    expectErrorShape(await get('/v1/search?q=a&q=b'), 422, 'validation_failed');
    expectErrorShape(await get('/v1/search'), 422, 'validation_failed');
    expectErrorShape(await get('/v1/search?q=abc&limit=5'), 422, 'validation_failed');
    expectErrorShape(await get('/v1/search?q='), 422);
  });

  it('nothing was lost: the demo domains are all still there', async () => {
    const rows = await api.system.store
      .knex('domains')
      .where({ account_id: api.demo.accountId, environment: 'test' })
      .orderBy('name')
      .pluck('name');
    expect(rows).to.deep.equal(['domivka-blog.kyiv.ua', 'domivka-demo.com.ua', 'domivka-demo.dev']);
  });
});

eachStore('Hostile: query strings', (kind) => {
  let api: TestApi;
  let secret: string;
  let cookie: string;
  before(async () => {
    api = await startApi(kind, { env: ENV });
    cookie = await api.signIn();
    secret = (await api.issueKey({ environment: 'test', rights: ['domain.read'], label: 'prod' }, cookie)).secret;
    await api.issueKey({ environment: 'test', rights: ['domain.read'], label: 'prod' }, cookie);
  });
  after(async () => api.close());

  const get = (q: string) => api.call(`/v1/domains${q}`, { headers: bearer(secret) });

  it('bad limits are 422 validation_failed', async () => {
    for (const q of [
      '?limit=abc',
      '?limit=1.5',
      '?limit=-1',
      '?limit=0',
      '?limit=201',
      '?limit=1e3',
      '?limit=',
      '?limit=1&limit=2',
      '?limit=NaN',
      '?limit=9007199254740993',
    ]) {
      expectErrorShape(await get(q), 422, 'validation_failed');
    }
  });

  // Regression guard (was a bug found by the hostile pass).
  it('?limit=Infinity and ?limit=-Infinity are 422 validation_failed like any other non-integer', async () => {
    for (const q of ['?limit=Infinity', '?limit=-Infinity', '?limit=%2BInfinity']) {
      expectErrorShape(await get(q), 422, 'validation_failed');
    }
    const keys = await api.call('/v1/account/keys?limit=Infinity', { headers: { cookie } });
    expectErrorShape(keys, 422, 'validation_failed');
  });

  it('unknown and prototype-named params are 422, never 500', async () => {
    for (const q of [
      '?foo=1',
      '?__proto__=1',
      '?constructor=1',
      '?__proto__[limit]=1',
      '?toString=1',
      '?label[]=prod',
      '?label=prod&label=shop',
    ]) {
      expectErrorShape(await get(q), 422, 'validation_failed');
    }
    expect(({} as Record<string, unknown>).limit).to.equal(undefined);
  });

  it('garbage cursors are 422 cursor_invalid', async () => {
    const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64url');
    for (const c of [
      'x',
      '%%%',
      b64('null'),
      b64('{"a":1}'),
      b64('{"a":{"$gt":""}}'),
      b64('[]'),
      b64('"a"'),
      b64('{"__proto__":{"a":"x"}}'),
    ]) {
      const r = await get(`?cursor=${encodeURIComponent(c)}`);
      expectErrorShape(r, 422, 'cursor_invalid');
    }
  });

  it('a cursor carrying SQL or LIKE metacharacters is a clean answer, never a 500', async () => {
    const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64url');
    for (const a of ["' OR 1=1--", '%', '_', 'zzzz\uFFFF', '']) {
      const r = await get(`?cursor=${b64(JSON.stringify({ a }))}`);
      expect(r.status, `${JSON.stringify(a)}: ${JSON.stringify(r.body)}`).to.be.oneOf([200, 422]);
      if (r.status === 200) for (const d of r.body.data) expect(['domivka-demo.com.ua', 'domivka-demo.dev']).to.include(d.domain);
      else expectErrorShape(r, 422, 'cursor_invalid');
    }
  });

  // Regression guard (was a bug found by the hostile pass).
  it('a cursor carrying a NUL byte is a clean answer, never a 500', async () => {
    const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64url');
    for (const a of ['\u0000', 'domivka\u0000']) {
      const r = await get(`?cursor=${b64(JSON.stringify({ a }))}`);
      expect(r.status, `${JSON.stringify(a)}: ${JSON.stringify(r.body)}`).to.be.oneOf([200, 422]);
      if (r.status === 200) for (const d of r.body.data) expect(['domivka-demo.com.ua', 'domivka-demo.dev']).to.include(d.domain);
      else expectErrorShape(r, 422, 'cursor_invalid');
    }
  });

  it('a cursor from another list never widens the scope', async () => {
    const keys = await api.call('/v1/account/keys?limit=1', { headers: { cookie } });
    expect(keys.body.next_cursor).to.be.a('string');
    const r = await get(`?cursor=${keys.body.next_cursor}`);
    expect(r.status).to.be.oneOf([200, 422]);
    if (r.status === 200) for (const d of r.body.data) expect(['domivka-demo.com.ua', 'domivka-demo.dev']).to.include(d.domain);
  });

  it('list keys: bad limit/cursor/params are 422', async () => {
    for (const q of ['?limit=abc', '?limit=-1', '?cursor=x', '?foo=bar', '?limit=1&limit=2']) {
      const r = await api.call(`/v1/account/keys${q}`, { headers: { cookie } });
      expectErrorShape(r, 422);
    }
  });
});

eachStore('Hostile: human-only routes and sessions', (kind) => {
  let api: TestApi;
  let cookie: string;
  let key: { id: string; secret: string };
  before(async () => {
    api = await startApi(kind, { env: ENV });
    cookie = await api.signIn();
    key = await api.issueKey({ environment: 'test', rights: ['domain.read'], domains: [DEV] }, cookie);
  });
  after(async () => api.close());

  const routes: Array<[string, string, unknown?]> = [
    ['GET', '/v1/account'],
    ['GET', '/v1/account/keys'],
    ['POST', '/v1/account/keys', { environment: 'test', rights: ['domain.read'], domains: [DEV] }],
    ['POST', '/v1/account/keys/preview', { environment: 'test', rights: ['domain.read'], domains: [DEV] }],
    ['DELETE', '/v1/account/keys/AAAAAAAAAAAA'],
    ['GET', '/v1/account/notices'],
    ['DELETE', '/v1/account/sessions/current'],
    ['POST', '/v1/account/sessions', { email: 'x@example.com', password: 'x', totp: '000000' }],
  ];

  it('every /v1/account route refuses a key in any spelling, with or without a valid session', async () => {
    const keysBefore = await countRows(api, 'api_keys');
    for (const [method, path, json] of routes) {
      for (const authorization of [
        `Bearer ${key.secret}`,
        `bearer ${key.secret}`,
        `BEARER   ${key.secret}`,
        `Bearer\t${key.secret}`,
        key.secret,
        'Bearer x',
        'Basic eDp4',
      ]) {
        for (const withCookie of [false, true]) {
          const r = await api.call(path, {
            method,
            headers: { authorization, 'idempotency-key': randomUUID(), ...(withCookie ? { cookie } : {}) },
            ...(json !== undefined ? { json } : {}),
          });
          expectErrorShape(r, 403, 'human_only');
          expect(r.body.error.actions[0].type).to.equal('open_console');
        }
      }
    }
    expect(await countRows(api, 'api_keys')).to.equal(keysBefore);
    // The session survived every attempt (DELETE …/sessions/current with a key did not sign it out).
    expect((await api.call('/v1/account', { headers: { cookie } })).status).to.equal(200);
  });

  it('no spelling of a /v1/account path lets a key in, and no method override turns a read into a write', async () => {
    const before = await countRows(api, 'api_keys');
    const paths = [
      '/V1/ACCOUNT/KEYS',
      '/v1/account/keys/',
      '/v1/Account/Keys',
      '/v1//account/keys',
      '/v1/account/./keys',
      '/v1/account/keys;x',
      '/v1/account/%6Beys',
      '/v1/account/keys%2F',
      '/v1/domains/../account/keys',
      '/v1/account/keys?limit=1',
      '/v1/account/keys#x',
      '/v1/account',
    ];
    for (const path of paths) {
      for (const method of ['GET', 'POST', 'DELETE', 'PUT', 'PATCH', 'HEAD', 'OPTIONS']) {
        const r = await api.call(path, {
          method,
          headers: { ...bearer(key.secret), 'x-http-method-override': 'POST', 'idempotency-key': randomUUID() },
          ...(method === 'POST' || method === 'PUT' || method === 'PATCH'
            ? { json: { environment: 'test', rights: ['domain.read'], domains: [DEV] } }
            : {}),
        });
        expect(r.status, `${method} ${path}`).to.be.within(400, 499);
        if (method !== 'HEAD') expectErrorShape(r);
      }
    }
    expect(await countRows(api, 'api_keys')).to.equal(before);
  });

  it('a forged, random or empty session cookie is 401 session_required', async () => {
    const tokenHash = (await api.system.store.knex('sessions').first()).token_hash as string;
    for (const c of [
      'dmk_session=',
      'dmk_session=x',
      `dmk_session=${'A'.repeat(43)}`,
      `dmk_session=${tokenHash}`,
      `dmk_session=${key.secret}`,
      'dmk_session=%00',
      `dmk_session=${'A'.repeat(4000)}`,
      'DMK_SESSION=x',
    ]) {
      expectErrorShape(await api.call('/v1/account', { headers: { cookie: c } }), 401, 'session_required');
    }
  });

  // Regression guard (was a bug found by the hostile pass).
  it('a malformed percent-escape in the session cookie is 401 session_required, not 500', async () => {
    for (const c of ['dmk_session=%', 'dmk_session=%E0%A4%A', 'dmk_session=%ZZ']) {
      expectErrorShape(await api.call('/v1/account', { headers: { cookie: c } }), 401, 'session_required');
    }
    // The first dmk_session cookie counts (as in the next test); a malformed one after it changes nothing.
    expect((await api.call('/v1/account', { headers: { cookie: `${cookie}; dmk_session=%` } })).status).to.equal(200);
  });

  it('a second dmk_session cookie after a valid one does not swap the identity; a forged one before it does not help', async () => {
    const r = await api.call('/v1/account', { headers: { cookie: `${cookie}; dmk_session=forged` } });
    expect(r.status).to.equal(200);
    expectErrorShape(await api.call('/v1/account', { headers: { cookie: `dmk_session=forged; ${cookie}` } }), 401, 'session_required');
  });

  it('session fixation: a cookie the client chose before signing in is never adopted', async () => {
    const planted = 'dmk_session=' + 'P'.repeat(43);
    api.clock.advance(31_000);
    const { generate } = await import('otplib');
    const totp = await generate({ secret: api.demo.totpSecret, epoch: Math.floor(api.clock.now().getTime() / 1000) });
    const r = await api.call('/v1/account/sessions', {
      method: 'POST',
      headers: { cookie: planted },
      json: { email: api.demo.email, password: api.demo.password, totp },
    });
    expect(r.status).to.equal(201);
    const set = r.headers.getSetCookie()[0]!.split(';')[0]!;
    expect(set).not.to.equal(planted);
    expectErrorShape(await api.call('/v1/account', { headers: { cookie: planted } }), 401, 'session_required');
    expect((await api.call('/v1/account', { headers: { cookie: set } })).status).to.equal(200);
  });

  it('a signed-out session and an expired session are 401 session_required on every human route', async () => {
    const c1 = await api.signIn();
    expect((await api.call('/v1/account/sessions/current', { method: 'DELETE', headers: { cookie: c1 } })).status).to.equal(204);
    const c2 = await api.signIn();
    api.clock.advance(12 * 60 * 60 * 1000 + 1000);
    for (const c of [c1, c2]) {
      for (const [method, path, json] of routes.filter(([, p]) => p !== '/v1/account/sessions')) {
        const r = await api.call(path, { method, headers: { cookie: c }, ...(json !== undefined ? { json } : {}) });
        expectErrorShape(r, 401, 'session_required');
      }
    }
    cookie = await api.signIn();
  });

  it('sign-in failures are indistinguishable: unknown e-mail, wrong password, wrong code, odd inputs', async () => {
    const bodies: unknown[] = [];
    const attempts = [
      { email: 'nobody@example.com', password: api.demo.password, totp: '123456' },
      { email: api.demo.email, password: 'wrong', totp: '123456' },
      { email: api.demo.email.toUpperCase(), password: 'wrong', totp: '123456' },
      { email: api.demo.email, password: api.demo.password, totp: '000000' },
      { email: api.demo.email, password: api.demo.password, totp: 'abcdef' },
      { email: api.demo.email, password: api.demo.password, totp: '' },
      { email: ` ${api.demo.email} `, password: 'x'.repeat(1024), totp: '123456' },
      { email: '%', password: '%', totp: '%' },
      { email: "' OR 1=1--", password: "' OR 1=1--", totp: '1' },
    ];
    for (const json of attempts) {
      // Past the credential throttle's wait, so every attempt is checked (its refusals are tested elsewhere).
      api.clock.advance(CREDENTIAL_POLICY.person.capMs);
      const r = await api.call('/v1/account/sessions', { method: 'POST', json });
      expectErrorShape(r, 401, 'sign_in_failed');
      expect(r.headers.getSetCookie()).to.deep.equal([]);
      bodies.push(r.body);
    }
    for (const b of bodies) expect(b).to.deep.equal(bodies[0]);
  });

  // Regression guard (was a bug found by the hostile pass).
  it('sign-in with a NUL byte in the e-mail is 401 sign_in_failed (or 422), never 500', async () => {
    const r = await api.call('/v1/account/sessions', {
      method: 'POST',
      json: { email: `${api.demo.email}\u0000`, password: api.demo.password, totp: '123456' },
    });
    expect(r.status, JSON.stringify(r.body)).to.be.oneOf([401, 422]);
    expectErrorShape(r);
  });

  it('sign-in bodies with extra or prototype fields are 422, and no prototype is polluted', async () => {
    for (const text of [
      `{"email":"a@b.c","password":"x","totp":"1","__proto__":{"polluted":1}}`,
      `{"email":"a@b.c","password":"x","totp":"1","constructor":{"prototype":{"polluted":1}}}`,
      `{"email":{"$ne":null},"password":"x","totp":"1"}`,
      `{"email":["a@b.c"],"password":"x","totp":"1"}`,
    ]) {
      const r = await api.call('/v1/account/sessions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: text });
      expectErrorShape(r, 422, 'validation_failed');
    }
    expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
    expect((Object.prototype as unknown as Record<string, unknown>).polluted).to.equal(undefined);
  });
});

eachStore('Hostile: request bodies', (kind) => {
  let api: TestApi;
  let cookie: string;
  before(async () => {
    api = await startApi(kind, { env: ENV });
    cookie = await api.signIn();
  });
  after(async () => api.close());

  const good = { environment: 'test', rights: ['domain.read'], domains: [DEV] };
  const post = (path: string, body: string | Buffer, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
    api.call(path, { method: 'POST', headers: { cookie, ...headers }, body: typeof body === 'string' ? body : new Uint8Array(body) });

  it('a huge body is 413, by Content-Length and by a chunked stream; nothing is issued', async () => {
    const before = await countRows(api, 'api_keys');
    const big = JSON.stringify({ ...good, name: 'x'.repeat(400 * 1024) });
    expectErrorShape(await post('/v1/account/keys', big), 413, 'payload_too_large');
    const r = await raw(
      api,
      Buffer.concat([
        Buffer.from(
          head('POST', '/v1/account/keys', [`Cookie: ${cookie}`, 'Content-Type: application/json', 'Transfer-Encoding: chunked']),
        ),
        Buffer.from(`${big.length.toString(16)}\r\n${big}\r\n0\r\n\r\n`),
      ]),
    );
    expectErrorShape(r, 413, 'payload_too_large');
    expect(await countRows(api, 'api_keys')).to.equal(before);
  });

  it('a valid chunked body without Content-Length works', async () => {
    const body = JSON.stringify(good);
    const r = await raw(
      api,
      Buffer.concat([
        Buffer.from(
          head('POST', '/v1/account/keys/preview', [`Cookie: ${cookie}`, 'Content-Type: application/json', 'Transfer-Encoding: chunked']),
        ),
        Buffer.from(`5\r\n${body.slice(0, 5)}\r\n${(body.length - 5).toString(16)}\r\n${body.slice(5)}\r\n0\r\n\r\n`),
      ]),
    );
    expect(r.status, r.text).to.equal(200);
    expect(r.body.class).to.equal(0);
  });

  it('deeply nested JSON (10 000 and ~120 000 levels) is a clean 4xx, never 500', async () => {
    for (const depth of [10_000, 120_000]) {
      const nested = '['.repeat(depth) + ']'.repeat(depth);
      for (const text of [
        nested,
        `{"environment":"test","name":${nested}}`,
        `{"environment":"test","rights":["domain.read"],"domains":["${DEV}"],"conditions":{"cidr":${nested}}}`,
      ]) {
        const r = await post('/v1/account/keys', text);
        expect(r.status, `${depth}: ${JSON.stringify(r.body).slice(0, 200)}`).to.be.oneOf([400, 413, 422]);
        expectErrorShape(r);
      }
    }
    expect((await api.call('/v1/account', { headers: { cookie } })).status).to.equal(200);
  });

  it('__proto__ / constructor keys are refused and pollute nothing', async () => {
    const texts = [
      `{"environment":"test","rights":["domain.read"],"domains":["${DEV}"],"__proto__":{"polluted":1}}`,
      `{"environment":"test","rights":["domain.read"],"domains":["${DEV}"],"conditions":{"__proto__":{"polluted":1}}}`,
      `{"environment":"test","policies":[{"right":"domain.read","resources":{"domains":["${DEV}"],"__proto__":{"polluted":1}}}]}`,
      `{"environment":"test","policies":[{"right":"domain.read","resources":{"domains":["${DEV}"]},"__proto__":{"label":"prod"}}]}`,
      `{"environment":"test","rights":["domain.read"],"domains":["${DEV}"],"constructor":{"prototype":{"polluted":1}}}`,
      `{"environment":"test","rights":["__proto__"],"domains":["${DEV}"]}`,
      `{"environment":"test","rights":["constructor"],"domains":["${DEV}"]}`,
      `{"environment":"test","rights":["toString"],"domains":["${DEV}"]}`,
      `{"environment":"test","template":"__proto__","domains":["${DEV}"]}`,
      `{"environment":"test","template":"constructor","domains":["${DEV}"]}`,
      `{"environment":"test","policies":[{"right":"hasOwnProperty","resources":{"domains":["${DEV}"]}}]}`,
    ];
    const before = await countRows(api, 'api_keys');
    for (const t of texts) {
      for (const path of ['/v1/account/keys/preview', '/v1/account/keys']) {
        const r = await post(path, t);
        expectErrorShape(r, 422, 'validation_failed');
      }
    }
    expect(await countRows(api, 'api_keys')).to.equal(before);
    expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
    expect(({} as Record<string, unknown>).label).to.equal(undefined);
  });

  it('duplicate JSON keys: the issued key is what the response says (last one wins consistently)', async () => {
    const r = await post('/v1/account/keys', `{"environment":"live","environment":"test","rights":["domain.read"],"domains":["${DEV}"]}`);
    expect(r.status).to.equal(201);
    expect(r.body.key.environment).to.equal('test');
    expect(r.body.secret).to.match(/^dmk_test_/);
  });

  it('odd numbers and types are 422, not 500', async () => {
    for (const amount of ['1e309', '-1e309', '9223372036854775808', '1.5', '-1', '0', '"100"', 'null', 'true', '[]', '{}', '1e400', '-0']) {
      const t = `{"environment":"test","rights":["billing.topup"],"conditions":{"cidr":"127.0.0.0/8","spend_limit":{"amount":${amount},"currency":"UAH"}}}`;
      const r = await post('/v1/account/keys/preview', t);
      expect(r.status, `${amount}: ${JSON.stringify(r.body)}`).to.equal(422);
      expectErrorShape(r);
    }
  });

  it('the largest safe spend limit is stored exactly', async () => {
    const t = `{"environment":"test","rights":["billing.topup"],"conditions":{"cidr":"127.0.0.0/8","spend_limit":{"amount":9007199254740991,"currency":"UAH"}}}`;
    const r = await post('/v1/account/keys', t);
    expect(r.status, JSON.stringify(r.body)).to.equal(201);
    const k = await api.call('/v1/key', { headers: bearer(r.body.secret) });
    expect(k.body.conditions.spend_limit).to.deep.equal({ amount: 9007199254740991, currency: 'UAH' });
  });

  // Regression guard (was a bug found by the hostile pass).
  it('a NUL byte in the key name is refused (422) or kept exactly, never 500', async () => {
    const r = await post('/v1/account/keys', JSON.stringify({ ...good, name: 'a\u0000b' }));
    expect(r.status, JSON.stringify(r.body)).to.be.oneOf([201, 422]);
    if (r.status === 201) expect(r.body.key.name).to.equal('a\u0000b');
    else expectErrorShape(r, 422);
  });

  it('a NUL byte in a domain name is 422 domain_invalid or validation_failed', async () => {
    const r = await post('/v1/account/keys', JSON.stringify({ ...good, domains: [`${DEV}\u0000`] }));
    expectErrorShape(r, 422);
  });

  it('Content-Type variants: charset parameters are fine, other types are 415, no type is 415', async () => {
    const body = JSON.stringify(good);
    for (const ct of [
      'application/json; charset=utf-8',
      'application/json; charset=latin1',
      'APPLICATION/JSON',
      'application/problem+json',
    ]) {
      expect((await post('/v1/account/keys/preview', body, { 'content-type': ct })).status, ct).to.equal(200);
    }
    for (const ct of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/jsonx',
      'application/json-seq',
      'text/json',
    ]) {
      expectErrorShape(await post('/v1/account/keys/preview', body, { 'content-type': ct }), 415, 'unsupported_media_type');
    }
    const r = await raw(
      api,
      Buffer.concat([
        Buffer.from(head('POST', '/v1/account/keys/preview', [`Cookie: ${cookie}`, `Content-Length: ${Buffer.byteLength(body)}`])),
        Buffer.from(body),
      ]),
    );
    expectErrorShape(r, 415, 'unsupported_media_type');
  });

  // Regression guard (was a bug found by the hostile pass).
  it('a body that is not valid UTF-8 is 400 malformed_json, not silently mangled', async () => {
    const bytes = Buffer.concat([
      Buffer.from(`{"environment":"test","rights":["domain.read"],"domains":["${DEV}"],"name":"Caf`),
      Buffer.from([0xe9]),
      Buffer.from('"}'),
    ]);
    const r = await post('/v1/account/keys', bytes, { 'content-type': 'application/json; charset=latin1' });
    expectErrorShape(r, 400, 'malformed_json');
  });

  it('an empty body, or a body that is not an object, on POST routes is 422 (or 400), never 500', async () => {
    for (const path of ['/v1/account/keys', '/v1/account/keys/preview', '/v1/account/sessions']) {
      for (const text of ['', ' ', 'null', '[]', '"x"', '1', 'true', '{}']) {
        const r = await post(path, text);
        expect(r.status, `${path} ${JSON.stringify(text)}: ${JSON.stringify(r.body)}`).to.be.oneOf([400, 422]);
        expectErrorShape(r);
      }
      for (const text of ['{', '{"a":1,}', "{'a':1}", '{"a":NaN}', '\u0000', '{"a":"\\u00"}', '\ufeff{}']) {
        const r = await post(path, text);
        expect(r.status, `${path} ${JSON.stringify(text)}`).to.be.oneOf([400, 422]);
        expectErrorShape(r);
      }
    }
  });

  it('a GET with a body ignores the body', async () => {
    const r = await raw(
      api,
      Buffer.concat([
        Buffer.from(head('GET', '/v1/account', [`Cookie: ${cookie}`, 'Content-Type: application/json', 'Content-Length: 11'])),
        Buffer.from('{"a":"b"}\r\n'),
      ]),
    );
    expect(r.status, r.text).to.equal(200);
    expect(r.body.person.email).to.equal(api.demo.email);
  });
});

eachStore('Hostile: key issuance abuse through the session', (kind) => {
  let api: TestApi;
  let cookie: string;
  before(async () => {
    api = await startApi(kind, { env: ENV });
    api.clock.set(new Date('2026-01-10T10:00:00Z'));
    cookie = await api.signIn();
  });
  after(async () => api.close());

  const preview = (json: unknown) => api.call('/v1/account/keys/preview', { method: 'POST', headers: { cookie }, json });
  const issue = (json: unknown) => api.call('/v1/account/keys', { method: 'POST', headers: { cookie }, json });
  const money = { environment: 'test', rights: ['domain.renew'], domains: [DEV] };

  it('spend limits that are not positive safe integers are 422', async () => {
    for (const amount of [-100, 0, 1.5, 2 ** 63, 2 ** 53, Number.MAX_VALUE]) {
      const r = await preview({ ...money, conditions: { cidr: '127.0.0.0/8', spend_limit: { amount, currency: 'UAH' } } });
      expectErrorShape(r, 422);
    }
    expectErrorShape(
      await preview({ ...money, conditions: { cidr: '127.0.0.0/8', spend_limit: { amount: 100, currency: 'USD' } } }),
      422,
      'validation_failed',
    );
    expectErrorShape(await preview({ ...money, conditions: { cidr: '127.0.0.0/8', spend_limit: 100 } }), 422, 'validation_failed');
    expectErrorShape(await preview({ ...money, conditions: { cidr: '127.0.0.0/8', spend_limit: null } }), 422, 'spend_limit_required');
  });

  it('CIDRs: too wide for class 2, malformed ones are 422; 0.0.0.0/0 is fine for class 0', async () => {
    const lim = { amount: 100, currency: 'UAH' };
    expectErrorShape(await preview({ ...money, conditions: { cidr: '0.0.0.0/0', spend_limit: lim } }), 422, 'ip_restriction_too_wide');
    expectErrorShape(await preview({ ...money, conditions: { cidr: '10.0.0.0/7', spend_limit: lim } }), 422, 'ip_restriction_too_wide');
    expectErrorShape(await preview({ ...money, conditions: { cidr: '', spend_limit: lim } }), 422, 'ip_restriction_required');
    for (const cidr of [
      '127.0.0.1/33',
      '127.0.0.1',
      '256.0.0.0/8',
      '127.0.0.01/8',
      '0127.0.0.1/8',
      ' 127.0.0.0/8',
      '127.0.0.0/8 ',
      '::1/128',
      '::ffff:127.0.0.1/104',
      '127.0.0.0/08',
      '127.0.0.0/-1',
      '127.1/8',
      '0x7f.0.0.1/8',
      '127.0.0.0/8,10.0.0.0/8',
      '127.0.0.0\u0000/8',
      'localhost/8',
    ]) {
      expectErrorShape(await preview({ ...money, conditions: { cidr, spend_limit: lim } }), 422);
    }
    const r = await preview({ environment: 'test', rights: ['domain.read'], domains: [DEV], conditions: { cidr: '0.0.0.0/0' } });
    expect(r.status).to.equal(200);
    expect(r.body.conditions.cidr).to.equal('0.0.0.0/0');
  });

  it('impossible or out-of-range expiry dates are 422', async () => {
    for (const expires_on of [
      '2026-02-30',
      '2026-02-29',
      '2026-13-01',
      '2026-00-10',
      '2026-1-20',
      '20260120',
      '2026-01-20T00:00:00Z',
      '+2026-01-20',
      '2026-01-09',
      '2027-01-11',
      '9999-12-31',
      '0000-01-01',
    ]) {
      const r = await preview({ environment: 'test', rights: ['domain.read'], domains: [DEV], conditions: { expires_on } });
      expectErrorShape(r, 422);
    }
    const ok = await preview({ environment: 'test', rights: ['domain.read'], domains: [DEV], conditions: { expires_on: '2026-01-10' } });
    expect(ok.status).to.equal(200);
  });

  it('rights: duplicates, unknown names, case variants are 422', async () => {
    for (const rights of [
      ['domain.read', 'domain.read'],
      ['Domain.Read'],
      ['domain.*'],
      ['*'],
      [],
      ['domain.read '],
      Array.from({ length: 17 }, () => 'domain.read'),
    ]) {
      expectErrorShape(await preview({ environment: 'test', rights, domains: [DEV] }), 422);
    }
  });

  it('selection: domains and a label together, template with policies, policies with both, are 422', async () => {
    expectErrorShape(await preview({ environment: 'test', rights: ['domain.read'], domains: [DEV], label: 'prod' }), 422);
    expectErrorShape(
      await preview({ environment: 'test', template: 'read_only', policies: [{ right: 'domain.read', resources: { domains: [DEV] } }] }),
      422,
    );
    expectErrorShape(
      await preview({ environment: 'test', rights: ['dns.read'], policies: [{ right: 'domain.read', resources: { domains: [DEV] } }] }),
      422,
    );
    expectErrorShape(
      await preview({ environment: 'test', policies: [{ right: 'domain.read', resources: { domains: [DEV], label: 'prod' } }] }),
      422,
    );
    expectErrorShape(await preview({ environment: 'test', policies: [{ right: 'domain.read', resources: {} }] }), 422, 'domains_required');
    expectErrorShape(
      await preview({ environment: 'test', policies: [{ right: 'domain.read', resources: { domains: [] } }] }),
      422,
      'domains_required',
    );
  });

  it('labels must be lower-case label syntax; wildcards and non-names are refused as domains', async () => {
    for (const label of ['Prod', 'PROD', 'prod ', '-prod', 'prod-', 'pr od', 'пром', '%', '*', 'a'.repeat(64), '']) {
      expectErrorShape(await preview({ environment: 'test', rights: ['domain.read'], label }), 422);
    }
    for (const d of [
      '*.domivka-demo.dev',
      '*',
      '%',
      'domivka-demo',
      'dev',
      '127.0.0.1',
      'domivka-demo.dev/x',
      'http://domivka-demo.dev',
      'a@domivka-demo.dev',
      '.',
      '',
    ]) {
      expectErrorShape(await preview({ environment: 'test', rights: ['domain.read'], domains: [d] }), 422);
    }
  });

  it('names in a policy are normalised and de-duplicated: case, trailing dot, unicode', async () => {
    const r = await preview({
      environment: 'test',
      rights: ['domain.read'],
      domains: ['DOMIVKA-DEMO.DEV.', DEV, 'київ.dev', 'КИЇВ.DEV', 'xn--b1alf1j.dev'],
    });
    expect(r.status).to.equal(200);
    expect(r.body.policies[0].resources.domains).to.deep.equal([DEV, 'xn--b1alf1j.dev']);
  });

  it('500 domains are accepted and the key reaches the last one; 501 are 422', async () => {
    const domains = Array.from({ length: 500 }, (_, i) => `d${i}.example.com`);
    domains[499] = DEV;
    const r = await issue({ environment: 'test', rights: ['domain.read'], domains });
    expect(r.status, JSON.stringify(r.body).slice(0, 300)).to.equal(201);
    expect((await api.call(`/v1/domains/${DEV}`, { headers: bearer(r.body.secret) })).status).to.equal(200);
    expectErrorShape(await api.call('/v1/domains/domivka-demo.com.ua', { headers: bearer(r.body.secret) }), 403, 'right_missing');
    expectErrorShape(
      await preview({ environment: 'test', rights: ['domain.read'], domains: [...domains, 'x.example.com'] }),
      422,
      'validation_failed',
    );
  });

  it('names, environments and unknown fields: over-long, wrong case, extra are 422', async () => {
    expectErrorShape(await preview({ environment: 'test', rights: ['domain.read'], domains: [DEV], name: 'x'.repeat(101) }), 422);
    expectErrorShape(await preview({ environment: 'TEST', rights: ['domain.read'], domains: [DEV] }), 422);
    expectErrorShape(await preview({ environment: 'prod', rights: ['domain.read'], domains: [DEV] }), 422);
    expectErrorShape(await preview({ rights: ['domain.read'], domains: [DEV] }), 422);
    expectErrorShape(await preview({ environment: 'test', rights: ['domain.read'], domains: [DEV], class: 0 }), 422);
    expectErrorShape(await preview({ environment: 'test', rights: ['domain.read'], domains: [DEV], account_id: 'other' }), 422);
    expectErrorShape(
      await preview({ environment: 'test', rights: ['domain.read'], domains: [DEV], conditions: { cidr: null, ip: '1.2.3.4' } }),
      422,
    );
  });

  it('a class-3 right hidden in explicit policies still makes the key class 3 (IP and 30-day cap apply)', async () => {
    const base = {
      environment: 'test',
      policies: [
        { right: 'domain.read', resources: { domains: [DEV] } },
        { right: 'domain.lock', resources: { label: 'prod' } },
      ],
    };
    expectErrorShape(await preview(base), 422, 'ip_restriction_required');
    const r = await preview({ ...base, conditions: { cidr: '127.0.0.0/8' } });
    expect(r.body.class).to.equal(3);
    expect(r.body.conditions.expires_on).to.equal('2026-02-09');
    expectErrorShape(
      await preview({ ...base, conditions: { cidr: '127.0.0.0/8', expires_on: '2026-02-10' } }),
      422,
      'key_lifetime_exceeded',
    );
  });

  it('a member cannot issue class ≥ 2 however the rights are spelled', async () => {
    const { addPerson } = await import('../support/system.js');
    const m = await addPerson(api, 'member', `m${randomUUID().slice(0, 8)}@example.com`);
    const mc = await api.signIn(m);
    for (const body of [
      {
        environment: 'test',
        template: 'registrar',
        domains: [DEV],
        conditions: { cidr: '127.0.0.0/8', spend_limit: { amount: 1, currency: 'UAH' } },
      },
      {
        environment: 'test',
        policies: [
          { right: 'dns.read', resources: { domains: [DEV] } },
          { right: 'domain.nameservers', resources: { domains: [DEV] } },
        ],
        conditions: { cidr: '127.0.0.0/8' },
      },
      { environment: 'test', rights: ['billing.topup'], conditions: { cidr: '127.0.0.0/8', spend_limit: { amount: 1, currency: 'UAH' } } },
    ]) {
      const r = await api.call('/v1/account/keys', { method: 'POST', headers: { cookie: mc }, json: body });
      expectErrorShape(r, 403, 'role_forbidden');
    }
  });
});

/** A keyed write, for the cross-scope Idempotency-Key check (the foundation has no keyed write yet). */
const echoRoute: Route = {
  id: 'hostileEcho',
  method: 'POST',
  path: '/v1/test/hostile-echo',
  tag: 'Test',
  writes: true,
  summary: 'echo',
  access: { kind: 'key', anyKey: true },
  body: { type: 'object', additionalProperties: false, properties: { n: { type: 'integer' } } },
  responses: { 201: { description: 'echoed' } },
  handle: async (i) => ({ status: 201, body: { n: (i.body as { n?: number }).n ?? null, nonce: randomUUID() } }),
};

eachStore('Hostile: Idempotency-Key', (kind) => {
  let api: TestApi;
  let cookie: string;
  before(async () => {
    api = await startApi(kind, { env: ENV, extraRoutes: [echoRoute] });
    cookie = await api.signIn();
  });
  after(async () => api.close());

  const body = (name: string) => ({ environment: 'test', rights: ['domain.read'], domains: [DEV], name });
  const issueWith = (idem: string, name: string) =>
    api.call('/v1/account/keys', { method: 'POST', headers: { cookie, 'idempotency-key': idem }, json: body(name) });

  it('255 visible ASCII characters are accepted, 256 are 400 idempotency_key_invalid and nothing is issued', async () => {
    const ok = await issueWith('k'.repeat(255), 'len255');
    expect(ok.status).to.equal(201);
    const before = await countRows(api, 'api_keys');
    expectErrorShape(await issueWith('k'.repeat(256), 'len256'), 400, 'idempotency_key_invalid');
    expect(await countRows(api, 'api_keys')).to.equal(before);
  });

  it('unicode, spaces and control characters in the key are 400 idempotency_key_invalid, nothing issued', async () => {
    const before = await countRows(api, 'api_keys');
    const bodyText = JSON.stringify(body('unicode'));
    for (const value of ['ключ-1', 'a b', 'é', '\u00a0x', 'x\ty']) {
      const r = await raw(
        api,
        Buffer.concat([
          Buffer.from(
            head('POST', '/v1/account/keys', [
              `Cookie: ${cookie}`,
              'Content-Type: application/json',
              `Content-Length: ${Buffer.byteLength(bodyText)}`,
            ]).slice(0, -2),
          ),
          Buffer.from(`Idempotency-Key: ${value}\r\n\r\n`, 'utf8'),
          Buffer.from(bodyText),
        ]),
      );
      expectErrorShape(r, 400, 'idempotency_key_invalid');
    }
    expect(await countRows(api, 'api_keys')).to.equal(before);
  });

  it('the same value used by the session and by a key lives in separate scopes', async () => {
    const idem = randomUUID();
    const a = await issueWith(idem, 'scoped');
    expect(a.status).to.equal(201);
    const k = await api.issueKey(body('echo-key'), cookie);
    const b = await api.call('/v1/test/hostile-echo', {
      method: 'POST',
      headers: { ...bearer(k.secret), 'idempotency-key': idem },
      json: { n: 1 },
    });
    expect(b.status, JSON.stringify(b.body)).to.equal(201);
    expect(b.headers.get('idempotent-replayed')).to.equal(null);
    expect(b.body.n).to.equal(1);
    // And the session's own replay is still the session's.
    const c = await issueWith(idem, 'scoped');
    expect(c.status).to.equal(201);
    expect(c.body.key.id).to.equal(a.body.key.id);
  });

  it('a key with a different body under the same Idempotency-Key is 422 idempotency_key_reused and issues nothing', async () => {
    const idem = randomUUID();
    expect((await issueWith(idem, 'first')).status).to.equal(201);
    const before = await countRows(api, 'api_keys');
    expectErrorShape(await issueWith(idem, 'second'), 422, 'idempotency_key_reused');
    expect(await countRows(api, 'api_keys')).to.equal(before);
  });

  // Regression guard (was a bug found by the hostile pass).
  it('the plain key string is never persisted, not even in the idempotency record', async () => {
    const idem = randomUUID();
    const r = await issueWith(idem, 'persisted-secret');
    expect(r.status).to.equal(201);
    const rows = await api.system.store.knex('idempotency_keys').select();
    expect(JSON.stringify(rows)).not.to.contain(r.body.secret.slice(21, 53));
  });

  // Regression guard (was a bug found by the hostile pass).
  it('a replayed key issuance does not show the key string a second time', async () => {
    const idem = randomUUID();
    const first = await issueWith(idem, 'shown-once');
    expect(first.status).to.equal(201);
    const again = await issueWith(idem, 'shown-once');
    expect(JSON.stringify(again.body ?? {})).not.to.contain(first.body.secret);
  });

  // Regression guard (was a bug found by the hostile pass).
  it('a repeated sign-in with the same Idempotency-Key never answers 201 without a working session cookie', async () => {
    const { generate } = await import('otplib');
    api.clock.advance(31_000);
    const totp = await generate({ secret: api.demo.totpSecret, epoch: Math.floor(api.clock.now().getTime() / 1000) });
    const json = { email: api.demo.email, password: api.demo.password, totp };
    const idem = randomUUID();
    const first = await api.call('/v1/account/sessions', { method: 'POST', headers: { 'idempotency-key': idem }, json });
    expect(first.status).to.equal(201);
    const second = await api.call('/v1/account/sessions', { method: 'POST', headers: { 'idempotency-key': idem }, json });
    if (second.status === 201) {
      const set = second.headers.getSetCookie();
      expect(set, 'a 201 sign-in must set a session cookie').to.have.length(1);
      expect((await api.call('/v1/account', { headers: { cookie: set[0]!.split(';')[0]! } })).status).to.equal(200);
    } else {
      expectErrorShape(second, 401, 'sign_in_failed'); // the code was used once already (RFC 6238 §5.2)
    }
  });
});

eachStore('Hostile: TRUST_PROXY and X-Forwarded-For', (kind) => {
  let api: TestApi;
  let cookie: string;
  before(async () => {
    api = await startApi(kind, { env: { ...ENV, TRUST_PROXY: 'true' } });
    cookie = await api.signIn();
  });
  after(async () => api.close());

  // Regression guard (was a bug found by the hostile pass).
  it('behind a proxy that appends the client address, a spoofed left-most X-Forwarded-For does not pass the CIDR', async () => {
    const k = await api.issueKey(
      { environment: 'test', rights: ['domain.read'], domains: [DEV], conditions: { cidr: '203.0.113.0/24' } },
      cookie,
    );
    // The client sent "X-Forwarded-For: 203.0.113.9"; the proxy appended the real peer, 198.51.100.1.
    const r = await api.call(`/v1/domains/${DEV}`, { headers: { ...bearer(k.secret), 'x-forwarded-for': '203.0.113.9, 198.51.100.1' } });
    expectErrorShape(r, 403, 'ip_not_allowed');
  });

  it('a garbage X-Forwarded-For is a clean 403 for a CIDR key, not a 500', async () => {
    const k = await api.issueKey(
      { environment: 'test', rights: ['domain.read'], domains: [DEV], conditions: { cidr: '203.0.113.0/24' } },
      cookie,
    );
    for (const xff of ['garbage', '', ',', '999.999.999.999', '203.0.113.9/24', `${'9'.repeat(500)}`]) {
      const r = await api.call(`/v1/domains/${DEV}`, { headers: { ...bearer(k.secret), 'x-forwarded-for': xff } });
      expect(r.status, xff).to.be.oneOf([403]);
      expectErrorShape(r, 403, 'ip_not_allowed');
    }
  });

  // Regression guard (was a bug found by the hostile pass).
  it('a long X-Forwarded-For with an Idempotency-Key on sign-in is never a 500', async () => {
    const r = await api.call('/v1/account/sessions', {
      method: 'POST',
      headers: { 'x-forwarded-for': 'x'.repeat(200), 'idempotency-key': randomUUID() },
      json: { email: 'nobody@example.com', password: 'x', totp: '000000' },
    });
    expectErrorShape(r, 401, 'sign_in_failed');
  });
});
