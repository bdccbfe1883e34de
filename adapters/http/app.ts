import { randomUUID } from 'node:crypto';
import Router from '@koa/router';
import Koa, { type Context } from 'koa';
import type { Logger } from 'pino';
import type { ApiKey } from '../../core/kernel/caller.js';
import type { RightName } from '../../core/kernel/rights.js';
import type { HumanContext } from '../../core/kernel/person.js';
import type { Domain } from '../../core/domains/domain.js';
import type { IdempotencyStore } from '../../core/kernel/idempotency-store.port.js';
import type { SecretBox } from '../../core/kernel/secret-box.port.js';
import type { Clock } from '../../core/kernel/clock.port.js';
import type { Environment } from '../../core/kernel/environment.js';
import { DomainError, isDomainError } from '../../core/kernel/errors.js';
import type { UnitOfWork } from '../../core/kernel/unit-of-work.port.js';
import { ERROR_TABLE, errorBody } from './error-table.js';
import { jsonRpcErrorOf } from './jsonrpc.js';
import { mediaTypeOf, readJsonBody, readTextBody } from './middleware/body.js';
import { fingerprintOf, parseIdempotencyKey, runIdempotent } from './middleware/idempotency.js';
import { replayableOf, sealedRequest } from './middleware/sealed-fields.js';
import { keyBucketId, RateLimiter, type BucketConfig } from './middleware/rate-limit.js';
import { RouteIndex } from './route-index.js';
import type { CookieSpec, JsonSchema, Reply, Route, RouteInput } from './route.js';
import type { ValidateFunction } from 'ajv';
import { check, rejectUnstorable } from './checks.js';

export const SESSION_COOKIE = 'dmk_session';

export interface HttpConfig {
  /** Honour X-Forwarded-For (only behind a proxy you run). */
  readonly trustProxy: boolean;
  /** How many proxies of yours append to X-Forwarded-For: the client address is the entry that many
   * places from the right; anything left of it was written by the client and is ignored. */
  readonly proxyHops: number;
  readonly maxBodyBytes: number;
  /** Idempotency-Key: how long a request's claim stays locked before a retry may take it over. */
  readonly idempotencyLockMs?: number;
  /** Session cookies carry Secure: 'auto' = unless the request is to a loopback host. */
  readonly secureCookies: boolean | 'auto';
  readonly rateLimit: { readonly key: BucketConfig; readonly anonymous: BucketConfig };
}

/** What the HTTP adapter needs from the core; wired in src/ (the composition root). */
export interface HttpDeps {
  /** `known`, when given, answers synchronously what `execute` would, or undefined (then `execute` is asked). */
  readonly authenticateKey: { execute(token: string, ip: string): Promise<ApiKey>; known?(token: string, ip: string): ApiKey | undefined };
  readonly authenticateSession: { execute(token: string): Promise<HumanContext> };
  /** `checkKnown` likewise answers what `check` would without a promise, or undefined. */
  readonly authorizer: {
    check(key: ApiKey, right: RightName | readonly RightName[], domain?: string): Promise<Domain | null>;
    checkKnown?(key: ApiKey, right: RightName | readonly RightName[], domain?: string): Domain | null | undefined;
  };
  readonly environments: { isAvailable(environment: Environment): boolean };
  readonly idempotency: IdempotencyStore;
  /** Seals a route's `secretFields` in the request kept for the completer (the data key's box). */
  readonly secretBox: SecretBox;
  readonly uow: UnitOfWork;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly config: HttpConfig;
  /** The keys' buckets, when other ways in spend them too (DNS UPDATE with a key's TSIG credential); else the app's own. */
  readonly keyLimiter?: RateLimiter;
  /** What the process serving the app wants of each request (shutdown, metrics); told by the outermost middleware. */
  readonly observer?: HttpObserver;
  /** Keys the Idempotency-Key fingerprints (fingerprintKeyOf(KEY_PEPPER)): a body's secrets are never stored under a plain hash. */
  readonly fingerprintKey?: Buffer;
}

/**
 * The serving process's part in each request, kept in the outermost middleware rather than in layers of
 * their own: each layer of middleware costs a keyed read promises, and each promise its async hooks.
 */
export interface HttpObserver {
  /** True while the process drains: each response then closes its keep-alive connection. */
  closing?(): boolean;
  /** Once per request, answered: the route's template (`unmatched` when no route matched), method, status, seconds. */
  answered?(route: string, method: string, status: number, seconds: number): void;
}

/** Text chunks handed on one by one, letting other requests run between them. */
async function* textChunks(chunks: readonly string[]): AsyncIterable<string> {
  for (const c of chunks) {
    yield c;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

const koaPath = (p: string) => p.replace(/\{(\w+)\}/g, ':$1');
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

const bearerOf = (header: string | undefined): string | null => {
  if (header === undefined) return null;
  const m = /^Bearer ([^\s]+)$/i.exec(header.trim());
  if (!m) throw new DomainError('key_invalid');
  return m[1]!;
};

const cookieOf = (header: string | undefined, name: string): string | null => {
  if (!header) return null;
  for (const part of header.split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === name) {
      try {
        return decodeURIComponent(part.slice(i + 1).trim());
      } catch {
        return null; // a malformed escape is simply no session
      }
    }
  }
  return null;
};

const isLocalHost = (host: string) => /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])(:\d+)?$/i.test(host);

/** HttpOnly, SameSite=Strict, Secure except on localhost (issue: Accounts). */
const setCookieHeader = (c: CookieSpec, host: string, secure: boolean | 'auto'): string => {
  const parts = [`${c.name}=${encodeURIComponent(c.value)}`, 'Path=/', 'HttpOnly', 'SameSite=Strict'];
  if (c.expires) parts.push(`Expires=${c.expires.toUTCString()}`);
  if (c.maxAgeMs !== undefined) parts.push(`Max-Age=${Math.floor(c.maxAgeMs / 1000)}`);
  if (secure === true || (secure === 'auto' && !isLocalHost(host))) parts.push('Secure');
  return parts.join('; ');
};

/**
 * A header value Node will send: octets outside visible ASCII are percent-encoded (what a URI in
 * Location wants anyway). Headers are set after a write committed, and a value Node refuses would turn
 * a stored success into a 500, again on every idempotent replay.
 */
const headerSafe = (v: string): string =>
  v.replace(/[^\x20-\x7e]/gu, (c) => {
    try {
      return encodeURIComponent(c);
    } catch {
      return '%EF%BF%BD'; // a lone surrogate: no UTF-8 for it
    }
  });

const sendError = (ctx: Context, err: DomainError): void => {
  ctx.status = ERROR_TABLE[err.code].status;
  // "Try again later" errors say when (429 rate_limited, 409 idempotency_key_in_use).
  const retryAfter = (err.params as { retry_after?: unknown } | undefined)?.retry_after;
  if (typeof retryAfter === 'number' && Number.isFinite(retryAfter)) ctx.set('Retry-After', String(Math.max(1, Math.ceil(retryAfter))));
  const body = errorBody(err.code, err.params, err.details);
  ctx.body = ctx.state.errorFormat === 'jsonrpc' ? jsonRpcErrorOf(ctx.status, body) : body;
};

/** The schema compiler (ajv), loaded by the first request that needs a schema, not by every start. */
let compiler: Promise<typeof import('./validation.js').compile> | null = null;

/**
 * A schema's validator, compiled when first asked for: the function itself once compiled (no promise on
 * the request path), until then the promise of it.
 */
const compiledOnUse = (schema: JsonSchema, coerce = false): (() => ValidateFunction | Promise<ValidateFunction>) => {
  let validate: ValidateFunction | null = null;
  return () => validate ?? loadCompiler().then((compile) => (validate ??= compile(schema, coerce)));
};

/** The compiler's module, loaded once; a load that failed (a chunk gone under a rebuild, say) is tried again by the next request. */
const loadCompiler = (): Promise<typeof import('./validation.js').compile> =>
  (compiler ??= import('./validation.js').then(
    (m) => m.compile,
    (err: unknown) => {
      compiler = null;
      throw err;
    },
  ));

export const createHttpApp = (routes: readonly Route[], deps: HttpDeps): Koa => {
  const app = new Koa({ proxy: deps.config.trustProxy, maxIpsCount: deps.config.proxyHops });
  const router = new Router();
  const keyLimiter = deps.keyLimiter ?? new RateLimiter(deps.config.rateLimit.key);
  const anonLimiter = new RateLimiter(deps.config.rateLimit.anonymous);

  const closing = deps.observer?.closing;
  const fingerprintKey = deps.fingerprintKey;
  const answered = deps.observer?.answered;
  // Outermost: request id, one log line per request (never headers, bodies or secrets), error mapping, and
  // the observer's part (a draining process's Connection: close, the request's duration by route).
  app.use(async (ctx, next) => {
    const started = process.hrtime.bigint();
    const requestId = randomUUID();
    ctx.state.requestId = requestId;
    ctx.set('Request-Id', requestId);
    if (closing?.()) ctx.set('Connection', 'close');
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        const match = router.match(ctx.path, ctx.method);
        const allowed = [...new Set(match.path.flatMap((l) => l.methods))];
        if (match.path.length > 0 && allowed.length > 0) {
          ctx.set('Allow', allowed.join(', '));
          sendError(ctx, new DomainError('method_not_allowed', { method: ctx.method, path: ctx.path, allow: allowed.join(', ') }));
        } else {
          sendError(ctx, new DomainError('not_found', { path: ctx.path }));
        }
      }
    } catch (err) {
      if (isDomainError(err)) {
        sendError(ctx, err);
      } else {
        deps.logger.error({ req_id: requestId, err }, 'unhandled error');
        sendError(ctx, new DomainError('internal_error'));
      }
    }
    // Again once answered: a request that began before SIGTERM (a slow upload) ends after it, and its
    // connection, idle once answered, would otherwise keep server.close() waiting until the shutdown bound.
    if (closing?.()) ctx.set('Connection', 'close');
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    if (answered) {
      // What the route index (or @koa/router) matched: the route's template, never the concrete path.
      const route = (ctx as { _matchedRoute?: unknown })._matchedRoute;
      answered(typeof route === 'string' ? route : 'unmatched', ctx.method, ctx.status, ms / 1000);
    }
    if (!deps.logger.isLevelEnabled('info')) return;
    deps.logger.info(
      {
        req_id: requestId,
        method: ctx.method,
        path: ctx.path,
        status: ctx.status,
        ms: Math.round(ms * 100) / 100,
        key_id: (ctx.state.key as ApiKey | undefined)?.id,
        person_id: (ctx.state.human as HumanContext | undefined)?.person.id,
        code: (ctx.body as { error?: { code?: string } } | undefined)?.error?.code,
      },
      'request',
    );
  });

  for (const route of routes) {
    // Each schema is compiled on the route's first request: compiling all of them took most of the start's
    // time building the API (~100 routes), and most processes serve few of them.
    const validateParams = route.params ? compiledOnUse(route.params) : null;
    const validateQuery = route.query ? compiledOnUse(route.query, true) : null;
    const validateBody = route.body ? compiledOnUse(route.body) : null;
    const method = route.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';

    router[method](koaPath(route.path), async (ctx: Context): Promise<void> => {
      if (route.errorFormat) ctx.state.errorFormat = route.errorFormat;
      const access = route.access;
      const input: RouteInput = {
        // The route index made this object for this request alone.
        params: ctx.params as Record<string, string>,
        // Nothing to parse without a query string (most reads).
        query: ctx.querystring === '' ? {} : { ...ctx.query },
        body: undefined,
        ip: ctx.ip,
      };
      let limiter = anonLimiter;
      let limitId: string | null = null; // the client address's bucket unless a person or key is known

      // 1. Who is calling. Human-only routes refuse any key outright (seed A6).
      if (access.kind === 'human') {
        if (ctx.get('Authorization') !== '') throw new DomainError('human_only', { console: access.console });
        if (access.session) {
          const token = cookieOf(ctx.get('Cookie'), SESSION_COOKIE);
          if (!token) throw new DomainError('session_required');
          input.human = await deps.authenticateSession.execute(token);
          ctx.state.human = input.human;
          limitId = `person:${input.human.person.id}`;
          limiter = keyLimiter;
        }
      } else if (access.kind === 'key') {
        const token = bearerOf(ctx.get('Authorization') || undefined);
        if (token === null) throw new DomainError('unauthenticated');
        try {
          // Each promise costs here (async hooks track every one): a key known in memory is answered without.
          input.key = deps.authenticateKey.known?.(token, input.ip) ?? (await deps.authenticateKey.execute(token, input.ip));
        } catch (err) {
          // Failed authentications spend the caller's per-address bucket, so forged keys (the checksum
          // is public) cannot be tried without limit.
          if (isDomainError(err) && ERROR_TABLE[err.code].status === 401) {
            const d = anonLimiter.take(`ip:${ctx.ip}`);
            if (!d.allowed) {
              ctx.set('Retry-After', String(d.retryAfterSeconds));
              throw new DomainError('rate_limited', { retry_after: d.retryAfterSeconds });
            }
          }
          throw err;
        }
        ctx.state.key = input.key;
        limitId = keyBucketId(input.key.id);
        limiter = keyLimiter;
      }

      // 2. Rate limit (DESIGN: RateLimit-* headers; 429 with Retry-After).
      if (access.kind !== 'public') {
        const d = limiter.take(limitId ?? `ip:${input.ip}`);
        ctx.set('RateLimit-Limit', String(d.limit));
        ctx.set('RateLimit-Remaining', String(d.remaining));
        ctx.set('RateLimit-Reset', String(d.resetSeconds));
        if (!d.allowed) {
          ctx.set('Retry-After', String(d.retryAfterSeconds));
          throw new DomainError('rate_limited', { retry_after: d.retryAfterSeconds });
        }
      }
      if (access.kind === 'key' && access.sandboxOnly && input.key?.environment !== 'test') throw new DomainError('sandbox_only');
      if (input.key && !deps.environments.isAvailable(input.key.environment)) {
        throw new DomainError('environment_unavailable', { environment: input.key.environment });
      }

      // 3. Body and schemas.
      if (BODY_METHODS.has(route.method)) {
        const limit = route.maxBodyBytes ?? deps.config.maxBodyBytes;
        if (route.textBody?.includes(mediaTypeOf(ctx.req))) {
          const text = await readTextBody(ctx.req, limit);
          input.body = { text_sha256: text.sha256 };
          input.text = textChunks(text.chunks);
        } else input.body = await readJsonBody(ctx.req, limit);
      }
      rejectUnstorable(input.params, 'params');
      rejectUnstorable(input.query, 'query');
      rejectUnstorable(input.body, 'body');
      if (validateParams) {
        const v = validateParams();
        check(typeof v === 'function' ? v : await v, input.params, 'params');
      }
      if (validateQuery) {
        const v = validateQuery();
        check(typeof v === 'function' ? v : await v, input.query, 'query');
        rejectUnstorable(input.query, 'query'); // coercion may have made ±Infinity of "Infinity"
      }
      if (validateBody && !input.text) {
        const v = validateBody();
        check(typeof v === 'function' ? v : await v, input.body === undefined ? {} : input.body, 'body');
      }
      if (validateBody && input.body === undefined) input.body = {};

      // 4. Rights (seed 2.2: a policy pairs the right with a selection containing the domain).
      if (access.kind === 'key' && input.key) {
        if (access.right) {
          const domain = access.domainParam ? input.params[access.domainParam] : undefined;
          const known = deps.authorizer.checkKnown?.(input.key, access.right, domain);
          const loaded = known !== undefined ? known : await deps.authorizer.check(input.key, access.right, domain);
          // Only reads reuse it: a write reads the domain again inside its own transaction or lock.
          if (!route.writes) input.domain = loaded;
        }
        if (access.rights) for (const pair of access.rights.of(input)) await deps.authorizer.check(input.key, pair.right, pair.domain);
      }

      // 5. Idempotency (seed 4): required on keyed writes, optional on the console's session writes.
      let reply: Reply & { replayed?: boolean };
      // Not on sign-in: a replayed "signed in" would carry no session, and each sign-in needs a fresh code.
      const idempotent = route.writes && (access.kind === 'key' || (access.kind === 'human' && access.session));
      const idemKey = idempotent ? parseIdempotencyKey(ctx.get('Idempotency-Key') || undefined, access.kind === 'key') : null;
      if (idemKey !== null) {
        const scope = input.key ? `key:${input.key.id}` : `person:${input.human!.person.id}`;
        reply = await runIdempotent(
          {
            store: deps.idempotency,
            uow: deps.uow,
            clock: deps.clock,
            ...(deps.config.idempotencyLockMs ? { lockTimeoutMs: deps.config.idempotencyLockMs } : {}),
          },
          scope,
          idemKey,
          {
            keyed: fingerprintOf(route.method, ctx.path, input.body, fingerprintKey),
            plain: fingerprintOf(route.method, ctx.path, input.body),
          },
          (checkpoints) => route.handle(checkpoints ? { ...input, checkpoints } : input),
          replayableOf(route, input.body),
          route.phased === true,
          // Kept with a phased keyed request, so the worker's completer can finish it (completer.ts); the
          // route's secret fields sealed, never in the clear (sealed-fields.ts).
          input.key && route.phased === true
            ? sealedRequest(
                deps.secretBox,
                {
                  route: route.id,
                  keyId: input.key.id,
                  params: input.params,
                  query: route.query ? input.query : {},
                  body: input.body,
                  ip: input.ip,
                },
                route.secretFields,
              )
            : undefined,
        );
        if (reply.replayed) ctx.set('Idempotent-Replayed', 'true');
      } else {
        reply = await route.handle(input);
      }

      ctx.status = reply.status;
      if (reply.headers) for (const [k, v] of Object.entries(reply.headers)) ctx.set(k, headerSafe(v));
      if (reply.cookies) for (const c of reply.cookies) ctx.append('Set-Cookie', setCookieHeader(c, ctx.host, deps.config.secureCookies));
      if (reply.contentType) ctx.type = reply.contentType;
      if (reply.body !== undefined) ctx.body = reply.body;
      // No body means none: not Koa's status text ("Accepted") in text/plain.
      else if (ctx.body === undefined) {
        ctx.body = '';
        ctx.remove('Content-Type');
      }
    });
  }

  // The router's own dispatch tests every route's pattern and composes a chain on each request; the
  // index tests a few of the same patterns (route-index.ts). The router still answers 404/405 above.
  const index = RouteIndex.of<(ctx: Context) => Promise<void>>(router);
  app.use((ctx, next) => {
    const found = index.find(ctx.method, ctx.path);
    if (!found) return next();
    ctx.params = found.params;
    // What @koa/router sets and the metrics read (the route's template, never the concrete path).
    (ctx as { _matchedRoute?: string })._matchedRoute = found.route.path;
    return found.route.handler(ctx);
  });
  return app;
};
