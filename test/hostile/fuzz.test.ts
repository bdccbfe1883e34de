import { expect } from 'chai';
import fc from 'fast-check';
import type { Route } from '../../adapters/http/index.js';
import { ERROR_TABLE } from '../../adapters/http/error-table.js';
import { RIGHT_NAMES } from '../../core/kernel/rights.js';
import { eachStore } from '../support/stores.js';
import { startApi, type TestApi } from '../support/system.js';
import { expectErrorShape } from '../support/error-shape.js';
import { diffSnapshots, FastClient, mountedRoutes, plantKey, snapshot, type Answer } from './support/harness.js';
import { sampleOf } from './support/samples.js';

/**
 * Property-based fuzzing of every mounted route (fast-check). Properties: never a 5xx; every
 * error in the seed's shape with uk and en text and a code from the error table; a refused request
 * changes nothing stored (row count and checksum of every table before and after).
 *
 * FUZZ_RUNS sets the count per engine (npm test: 1500; npm run test:hostile: 20 000); FUZZ_SEED replays
 * a run (a failure prints its seed, path and the shrunk request). CI uses the fixed seed below.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 1500);
const SEED =
  process.env.FUZZ_SEED !== undefined
    ? process.env.FUZZ_SEED === 'random'
      ? Date.now() ^ (Math.random() * 0x7fffffff)
      : Number(process.env.FUZZ_SEED)
    : 1414;
/** A bound on the whole run, shrinking included, so a failure found late cannot eat CI's time (FUZZ_TIME_LIMIT_MS). */
const TIME_LIMIT_MS = Number(process.env.FUZZ_TIME_LIMIT_MS ?? 900_000);
const TARGET = 'domivka-demo.dev';
/** The Idempotency-Key store keeps business errors by design (DESIGN); it is bookkeeping, not account data. */
const SNAP_SKIP = ['idempotency_keys'];
const ENV = { RATE_LIMIT_BURST: '10000000', RATE_LIMIT_ANON_BURST: '10000000' };

interface FuzzRequest {
  route: string;
  method: string;
  path: string;
  headers: Record<string, string | string[]>;
  body?: string;
}

// ---- Generators ---------------------------------------------------------------------------------------------
const nasty = fc.constantFrom(
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '..',
  '../../etc/passwd',
  '%2e%2e%2f',
  '%00',
  '%',
  '%zz',
  '%C0%AE',
  '\uD800',
  '\uFFFF',
  '💥',
  'приклад.укр',
  'xn--80aswg.xn--j1amh',
  'ДОМІВКА.УКР',
  'a'.repeat(300),
  'a'.repeat(70000),
  '${jndi:ldap://x}',
  "' or 1=1 --",
  '<script>',
  '-1',
  '1e309',
  'NaN',
  'Infinity',
  '__proto__',
  'constructor',
  TARGET,
  `${TARGET}.`,
  `*.${TARGET}`,
  `_acme-challenge.${TARGET}`,
  'domivka-blog.kyiv.ua',
  'ёїґ.com.ua',
);
const text = fc.oneof(
  nasty,
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
);
const deep = (n: number, open: string, close: string) => open.repeat(n) + close.repeat(n);
const mutateValue = (v: unknown): fc.Arbitrary<unknown> =>
  fc.oneof(
    fc.constant(v),
    text,
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.array(text, { maxLength: 3 }),
    fc.dictionary(text, text, { maxKeys: 3 }),
    fc.constant(-1),
    fc.constant(Number.MAX_SAFE_INTEGER),
    fc.constant(2 ** 64),
  );
/** A body: the route's valid sample with fields replaced or added, random JSON, broken JSON, deep or huge. */
const bodyFor = (route: Route): fc.Arbitrary<string | undefined> => {
  const sample = (route.body ? sampleOf(route.body, TARGET) : {}) as Record<string, unknown>;
  const keys = Object.keys(sample ?? {});
  const mutated = fc
    .record({
      drop: fc.subarray(keys),
      extra: fc.dictionary(text, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 2 }),
      changed: fc.dictionary(
        keys.length ? fc.constantFrom(...keys) : fc.constant('x'),
        fc.constant(null).chain(() => mutateValue(sample?.[keys[0] ?? ''] ?? null)),
        { maxKeys: 3 },
      ),
    })
    .map(({ drop, extra, changed }) => {
      const out: Record<string, unknown> = { ...sample, ...changed, ...extra };
      for (const k of drop) delete out[k];
      return JSON.stringify(out);
    });
  return fc.oneof(
    { weight: 6, arbitrary: mutated },
    { weight: 2, arbitrary: fc.constant(JSON.stringify(sample)) },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        '{',
        '{"a":',
        '[1,2',
        'nul',
        '\u0000',
        '{"a":"\u0000"}',
        '{"a":1,"a":2}',
        '"\\ud800"',
        '{"__proto__":{"x":1}}',
        '1e999',
        '',
        ' ',
        '\uFEFF{}',
        '{"amount":1e400}',
      ),
    },
    { weight: 1, arbitrary: fc.integer({ min: 100, max: 100_000 }).map((n) => deep(n, '[', ']')) },
    { weight: 1, arbitrary: fc.integer({ min: 100, max: 50_000 }).map((n) => '{"a":'.repeat(n) + '1' + '}'.repeat(n)) },
    {
      weight: 1,
      arbitrary: fc.integer({ min: 1, max: 3 }).map((mb) => JSON.stringify({ domains: [TARGET], pad: 'x'.repeat(mb * 1024 * 1024) })),
    },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
};
const PARAM_NAMES = /\{(\w+)\}/g;
const pathFor = (route: Route): fc.Arbitrary<string> => {
  const names = [...route.path.matchAll(PARAM_NAMES)].map((m) => m[1]!);
  const param = fc.oneof(
    { weight: 5, arbitrary: fc.constant(TARGET) },
    { weight: 1, arbitrary: fc.constant('hostile-id') },
    { weight: 3, arbitrary: text },
  );
  return fc
    .record({
      values: fc.tuple(...names.map(() => fc.tuple(param, fc.boolean()))),
      query: fc.array(
        fc.tuple(
          fc.oneof(fc.constantFrom('q', 'limit', 'cursor', 'domain', 'type', 'name', 'limit[]', '__proto__'), text),
          fc.oneof(fc.constantFrom('1', '0', '-1', '201', '1e3', 'abc', '', TARGET, 'A'), text),
        ),
        { maxLength: 4 },
      ),
      suffix: fc.oneof(
        { weight: 10, arbitrary: fc.constant('') },
        { weight: 2, arbitrary: fc.constantFrom('/', '//', '/..', '/%2e%2e/%2e%2e/healthz', '/./', '.json', '?', '#frag', ';x=1') },
      ),
    })
    .map(({ values, query, suffix }) => {
      let i = 0;
      const p = route.path.replace(PARAM_NAMES, () => {
        const [v0, raw] = values[i++]!;
        const v = v0.replace(/[\uD800-\uDFFF]/g, '\uFFFD');
        // raw: the value as bytes (only what a request line may carry), else percent-encoded.
        return raw
          ? v.replace(/[^\x21-\x7e]/g, (c) => encodeURIComponent(c).replace(/%EF%BF%BD/g, '%FF')).replace(/[?#]/g, '')
          : encodeURIComponent(v);
      });
      const qs = query
        .map(
          ([k, v]) => `${encodeURIComponent(k.replace(/[\uD800-\uDFFF]/g, ''))}=${encodeURIComponent(v.replace(/[\uD800-\uDFFF]/g, ''))}`,
        )
        .join('&');
      return p + suffix + (qs ? (suffix.includes('?') ? '' : '?') + qs : '');
    });
};
/** Header values a client can put on the wire (latin-1, no CR/LF). */
const headerText = text.map((s) => s.replace(/[^\x20-\x7e\x80-\xff]/g, '').replace(/[\r\n]/g, ''));

export const requestArb = (routes: readonly Route[], tokens: { good: string; live: string; cookie: string }): fc.Arbitrary<FuzzRequest> =>
  fc
    .constantFrom(...routes)
    .chain((route) =>
      fc.record({
        route: fc.constant(route.id),
        method: fc.oneof(
          { weight: 8, arbitrary: fc.constant(route.method) },
          {
            weight: 2,
            arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'TRACE', 'PROPFIND', 'FOO', 'M-SEARCH'),
          },
        ),
        path: pathFor(route),
        auth: fc.oneof(
          { weight: 6, arbitrary: fc.constant(`Bearer ${tokens.good}`) },
          { weight: 1, arbitrary: fc.constant(`Bearer ${tokens.live}`) },
          { weight: 1, arbitrary: fc.constant(undefined) },
          {
            weight: 2,
            arbitrary: fc.oneof(
              fc.constantFrom(
                'Bearer',
                'Bearer ',
                'Basic dXNlcjpwYXNz',
                'bearer ' + tokens.good,
                `Bearer ${tokens.good} extra`,
                `Bearer ${tokens.good.slice(0, -1)}x`,
                `Bearer ${tokens.good.replace('test', 'live')}`,
                `Bearer dmk_test_${'0'.repeat(50)}`,
                'Bearer ' + 'A'.repeat(60_000),
              ),
              headerText.map((s) => `Bearer ${s}`),
            ),
          },
        ),
        cookie: fc.oneof(
          { weight: 4, arbitrary: fc.constant(undefined) },
          { weight: 1, arbitrary: fc.constant(tokens.cookie) },
          { weight: 1, arbitrary: headerText.map((s) => `dmk_session=${s}`) },
        ),
        idem: fc.oneof(
          { weight: 6, arbitrary: fc.uuid() },
          { weight: 1, arbitrary: fc.constant(undefined) },
          {
            weight: 2,
            arbitrary: fc.oneof(
              fc.constantFrom('', ' ', 'a b', 'x'.repeat(256), 'x'.repeat(10_000), '\u00e9t\u00e9', 'fixed-key-1'),
              headerText,
            ),
          },
        ),
        contentType: fc.constantFrom(
          'application/json',
          'application/json',
          'application/json; charset=utf-8',
          'text/plain',
          'application/x-www-form-urlencoded',
          'multipart/form-data; boundary=x',
          'application/json; charset=latin1',
          undefined,
        ),
        extra: fc.oneof(
          { weight: 5, arbitrary: fc.constant({}) },
          { weight: 1, arbitrary: fc.record({ 'x-forwarded-for': fc.constantFrom('10.0.0.1', '1.2.3.4, 127.0.0.1', 'garbage') }) },
          { weight: 1, arbitrary: fc.record({ 'x-long': fc.integer({ min: 1000, max: 15_000 }).map((n) => 'h'.repeat(n)) }) },
        ),
        body: bodyFor(route),
      }),
    )
    .map((g) => {
      const headers: Record<string, string | string[]> = { ...(g.extra as Record<string, string>) };
      if (g.auth !== undefined) headers.authorization = g.auth;
      if (g.cookie !== undefined) headers.cookie = g.cookie;
      if (g.idem !== undefined) headers['idempotency-key'] = g.idem;
      if (g.contentType !== undefined && g.body !== undefined) headers['content-type'] = g.contentType;
      return {
        route: g.route,
        method: g.method,
        path: g.path,
        headers,
        ...(g.body !== undefined && !['GET', 'HEAD'].includes(g.method) ? { body: g.body } : {}),
      };
    });

const show = (r: FuzzRequest): string =>
  JSON.stringify({
    ...r,
    body: r.body && r.body.length > 400 ? `${r.body.slice(0, 200)}…(${r.body.length} chars)` : r.body,
    headers: Object.fromEntries(
      Object.entries(r.headers).map(([k, v]) => [k, String(v).length > 200 ? `${String(v).slice(0, 60)}…(${String(v).length})` : v]),
    ),
  });

/** Checks one answer against the properties; returns what is wrong (empty when fine). */
export const judge = (r: Answer, method = 'GET', route?: string): string | null => {
  // DESIGN: a live key answers 503 environment_unavailable while no live adapters are configured.
  if (r.status === 503 && r.body?.error?.code === 'environment_unavailable') return null;
  if (r.status >= 500) return `answered ${r.status}: ${r.text.slice(0, 300)}`;
  if (r.status < 400) return null;
  if (method === 'HEAD') return null; // no body by definition (RFC 9110 9.3.2)
  if (r.status === 431 || r.status === 414 || (r.status === 400 && r.body === undefined && r.text === '')) return null; // Node's own parser refusals (no body reached Koa)
  // POST /mcp speaks JSON-RPC 2.0: its refusals are JSON-RPC errors, never a stack.
  if (route === 'mcp' && r.body?.jsonrpc === '2.0') {
    const e = r.body.error;
    if (!e || !Number.isInteger(e.code) || typeof e.message !== 'string' || !e.message)
      return `JSON-RPC error without code and message: ${r.text.slice(0, 300)}`;
    if (/\bat .+:\d+:\d+\)?/.test(r.text) || /"stack"/.test(r.text)) return `JSON-RPC error carries a stack: ${r.text.slice(0, 300)}`;
    return null;
  }
  try {
    expectErrorShape({ status: r.status, headers: {}, body: r.body });
  } catch (err) {
    return `error not in the seed's shape: ${(err as Error).message.slice(0, 300)}`;
  }
  const code = r.body.error.code as keyof typeof ERROR_TABLE;
  if (!Object.hasOwn(ERROR_TABLE, code)) return `code ${code} is not in the error table`;
  if (ERROR_TABLE[code].status !== r.status) return `code ${code} answered ${r.status}, the table says ${ERROR_TABLE[code].status}`;
  return null;
};

eachStore('Hostile: fuzzing every route (fast-check)', (kind) => {
  let api: TestApi;
  let client: FastClient;
  let routes: Route[];
  let tokens: { good: string; live: string; cookie: string };

  before(async function () {
    this.timeout(120_000);
    api = await startApi(kind, { env: ENV });
    client = new FastClient(api.base);
    routes = mountedRoutes(api);
    const all = RIGHT_NAMES.map((right) => ({ right, resources: { label: 'prod' } }));
    const good = await plantKey(api, { environment: 'test', policies: all, cidr: null, expiresOn: '2099-12-31', revoked: false });
    const live = await plantKey(api, { environment: 'live', policies: all, cidr: null, expiresOn: '2099-12-31', revoked: false });
    tokens = { good: good.token, live: live.token, cookie: await api.signIn() };
    // First uses write last_used_at; do them before any snapshot.
    await client.send('GET', '/v1/key', { authorization: `Bearer ${good.token}` });
    await client.send('GET', '/v1/key', { authorization: `Bearer ${live.token}` });
  });
  after(async () => {
    client?.close();
    await api?.close();
  });

  it(`${RUNS} generated requests: no 5xx, every error in the seed's shape, nothing stored changes on a refusal (seed ${SEED})`, async function () {
    this.timeout(TIME_LIMIT_MS + 60_000);
    let before = await snapshot(api, SNAP_SKIP);
    let count = 0;
    const byStatus = new Map<number, number>();
    const started = Date.now();
    let firstFailure: string | undefined;
    try {
      await fc.assert(
        fc
          .asyncProperty(requestArb(routes, tokens), async (req) => {
            try {
              await one(req);
            } catch (err) {
              // Said at once: shrinking re-runs requests and can take long (bounded by FUZZ_TIME_LIMIT_MS).
              if (firstFailure === undefined)
                console.log(
                  `      fuzz [${kind.engine}] first failure (request ${count}, ${((Date.now() - started) / 1000).toFixed(1)} s): ${String((err as Error).message).slice(0, 500)} — ${show(req).slice(0, 800)}`,
                );
              firstFailure ??= String(err);
              throw err;
            }
          })
          .beforeEach(() => undefined),
        {
          numRuns: RUNS,
          seed: SEED,
          verbose: 0,
          includeErrorInReport: true,
          interruptAfterTimeLimit: TIME_LIMIT_MS,
          markInterruptAsFailure: true,
        },
      );
      async function one(req: FuzzRequest): Promise<void> {
        count++;
        let r: Answer;
        try {
          r = await client.send(req.method, req.path, req.headers, req.body);
        } catch (err) {
          // Node refuses to send some requests at all (invalid characters): not a server property.
          if (/Invalid character|ERR_INVALID|ERR_UNESCAPED|Request path contains/i.test(String((err as NodeJS.ErrnoException).code ?? err)))
            return;
          throw err;
        }
        byStatus.set(r.status, (byStatus.get(r.status) ?? 0) + 1);
        // HEAD carries no body, so its 5xx cannot say which it is: the one allowed 5xx (503 for a live key
        // while no live adapters are configured) is told from the request itself, never by asking again.
        const wrong =
          req.method === 'HEAD' && r.status >= 500
            ? r.status === 503 && String(req.headers.authorization ?? '') === `Bearer ${tokens.live}`
              ? null
              : `HEAD answered ${r.status} (authorization: ${String(req.headers.authorization ?? 'none').slice(0, 20)}…)`
            : judge(r, req.method, req.route);
        if (wrong) throw new Error(wrong);
        if (r.status >= 400) {
          const after = await snapshot(api, SNAP_SKIP);
          // The one write a refusal may make: a failed password or one-time-code check is counted by the
          // credential limiter (DESIGN: credential_attempts), and only for a request that carried a credential.
          const carriesCredential = /"(password|totp|current_password)"\s*:/.test(String(req.body ?? ''));
          const changed = diffSnapshots(before, after).filter((c) => !(carriesCredential && c.startsWith('credential_attempts:')));
          before = after;
          if (changed.length)
            throw new Error(`refused with ${r.status} ${r.body?.error?.code} but the store changed: ${changed.join('; ')}`);
        } else {
          // A success may have started background work (a certificate is issued by the in-process
          // queue): let it finish before the next baseline, so its writes are not blamed on a refusal.
          for (
            let i = 0;
            i < 200 && Number((await api.system.store.knex('certificates').where({ status: 'pending' }).count({ n: '*' }).first())!.n) > 0;
            i++
          ) {
            await new Promise((res) => setTimeout(res, 50));
          }
          before = await snapshot(api, SNAP_SKIP);
        }
      }
    } catch (err) {
      const m = (err as Error).message;
      throw new Error(
        `fuzz failed [${kind.engine}] — replay with FUZZ_SEED=${SEED}\n${m.replace(/"body":"(.{200}).*?"(,|\})/g, '"body":"$1…"$2').slice(0, 6000)}`,
      );
    }
    const secs = (Date.now() - started) / 1000;
    console.log(
      `      fuzz [${kind.engine}]: ${count} requests (seed ${SEED}) in ${secs.toFixed(1)} s; statuses ${[...byStatus]
        .sort((a, b) => a[0] - b[0])
        .map(([s, n]) => `${s}×${n}`)
        .join(' ')}`,
    );
    expect(count).to.be.at.least(RUNS);
  });
});

export { show };
