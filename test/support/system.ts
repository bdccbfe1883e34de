import { SignedMessages } from '../../adapters/dns/update/signed-messages.js';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { generate } from 'otplib';
import pino from 'pino';
import { httpServer, type Route } from '../../adapters/http/index.js';
import type { DemoCredentials } from '../../core/sandbox/seed-demo.use-case.js';
import { loadConfig, type Config } from '../../src/config.js';
import { System, type SystemOptions } from '../../src/system.js';
import { ZoneSync } from '../../adapters/dns/zone-sync.js';
import { EmbeddedNameserver } from '../../adapters/dns/embedded/index.js';
import { TOKENS } from '../../src/tokens.js';
import type { EnvironmentAdapters } from '../../src/modules/platform.tokens.js';
import { TestClock } from './clock.js';
import type { FreshStore, StoreKind } from './stores.js';

export const TEST_PEPPER_HEX = 'a1'.repeat(32);
export const TEST_DATA_KEY_HEX = 'b2'.repeat(32);

export interface TestApi {
  readonly base: string;
  readonly system: System;
  readonly clock: TestClock;
  readonly demo: DemoCredentials;
  readonly store: FreshStore;
  /** The DNS server's port (options.dns). */
  readonly dnsPort: number | null;
  /** The DNS server itself (options.dns), for its figures (udpMode, udpBatchStats). */
  readonly dns: EmbeddedNameserver | null;
  /** fetch relative to the API. */
  call(path: string, init?: RequestInit & { json?: unknown }): Promise<{ status: number; headers: Headers; body: any }>;
  /** Signs in a person (demo owner by default); returns the Cookie header value. */
  signIn(who?: { email: string; password: string; totpSecret: string }): Promise<string>;
  /** Issues a key as the demo owner through the API; returns {id, secret}. */
  issueKey(body: Record<string, unknown>, cookie?: string): Promise<{ id: string; secret: string; body: any }>;
  close(): Promise<void>;
}

export interface TestApiOptions {
  readonly env?: Record<string, string>;
  readonly extraRoutes?: readonly Route[];
  readonly clock?: TestClock;
  readonly logger?: import('pino').Logger;
  readonly wrapSandbox?: SystemOptions['wrapSandbox'];
  /** The keys' rate-limit buckets' time (default: the wall clock). */
  readonly rateLimitNow?: SystemOptions['rateLimitNow'];
  /** Run the embedded DNS server on a free port, fed like under npm start. */
  readonly dns?: boolean;
  /** The DNS server's port when `dns` (default: a free one). */
  readonly dnsPort?: number;
  /** Who may transfer zones unsigned (default: 127.0.0.1). */
  readonly dnsAxfrAllow?: readonly string[];
  /** How the DNS server reads UDP (default: batched through the addon on a dgram socket); see EmbeddedNameserver's config. */
  readonly dnsUdp?: { readonly udpBatch?: boolean; readonly reusePort?: boolean };
}

export const testConfig = (store: FreshStore, env: Record<string, string> = {}): Config =>
  loadConfig({
    DATABASE_URL: store.url,
    ...(store.schema ? { DATABASE_SCHEMA: store.schema } : {}),
    KEY_PEPPER: TEST_PEPPER_HEX,
    DATA_KEY: TEST_DATA_KEY_HEX,
    ARGON2_MEMORY_KIB: '1024',
    ARGON2_TIME_COST: '1',
    LOG_LEVEL: 'silent',
    VAR_DIR: '/tmp',
    ...env,
  });

/** One request to `base + path`: `json` is sent as a JSON body; the answer's body parsed when it is JSON, else its text. */
export const callJson = async (
  base: string,
  path: string,
  init: RequestInit & { json?: unknown } = {},
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
): Promise<{ status: number; headers: Headers; body: any }> => {
  const { json, ...rest } = init;
  const headers = new Headers(rest.headers);
  if (json !== undefined && !headers.has('content-type')) headers.set('content-type', 'application/json');
  const res = await fetch(base + path, { ...rest, headers, ...(json !== undefined ? { body: JSON.stringify(json) } : {}) });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, headers: res.headers, body };
};

/** A whole system in-process over a fresh store, with the demo account seeded and the API listening. */
export const startApi = async (kind: StoreKind, options: TestApiOptions = {}): Promise<TestApi> => {
  const store = await kind.fresh();
  const clock = options.clock ?? new TestClock();
  // The adapters that reach a peer outside our database (a live registry over EPP, an ACME CA, the card
  // processor, the world's DNS) are called outside any transaction: on SQLite a transaction holds the one
  // write lock, and a slow peer would stop every write of the service. Every suite checks it: close() fails
  // with the calls made inside one (checked before the store is dropped, so a failing close still says it).
  // Not simulateTransferOut: the sandbox registry's own act, in our database.
  let uowRef: { inTransaction(): boolean } | null = null;
  const inTransaction: string[] = [];
  const outside = <T extends object>(name: string, target: T): T =>
    new Proxy(target, {
      get(t, prop, receiver) {
        const v = Reflect.get(t, prop, receiver) as unknown;
        if (typeof v !== 'function') return v;
        return (...args: unknown[]) => {
          if (uowRef?.inTransaction() && prop !== 'simulateTransferOut')
            inTransaction.push(`${name}.${String(prop)} ${new Error().stack!.split('\n').slice(2, 8).join(' ')}`);
          return (v as (...x: unknown[]) => unknown).apply(t, args);
        };
      },
    });
  const watched = (w: EnvironmentAdapters): EnvironmentAdapters => ({
    ...w,
    registrar: outside('registrar', w.registrar),
    payments: outside('payments', w.payments),
    ca: outside('ca', w.ca),
    delegations: outside('delegations', w.delegations),
  });
  const wrapSandbox = (a: EnvironmentAdapters): EnvironmentAdapters => watched(options.wrapSandbox ? options.wrapSandbox(a) : a);
  const system = await System.create(testConfig(store, options.env), {
    clock,
    logger: options.logger ?? pino({ level: 'silent' }),
    ...(options.extraRoutes ? { extraRoutes: options.extraRoutes } : {}),
    wrapSandbox,
    // The live set too (LIVE_REGISTRAR in a suite's env: EPP against the test registry), the slow peer of all.
    wrapLive: watched,
    ...(options.rateLimitNow ? { rateLimitNow: options.rateLimitNow } : {}),
  });
  await system.migrate();
  uowRef = system.store.uow;
  const demo = (await system.get(TOKENS.SeedDemo).execute())!;
  const { app } = system.http();
  let dns: EmbeddedNameserver | null = null;
  if (options.dns) {
    const box = system.get(TOKENS.SecretBox);
    dns = new EmbeddedNameserver({
      host: '127.0.0.1',
      port: options.dnsPort ?? 0,
      axfrAllow: [...(options.dnsAxfrAllow ?? ['127.0.0.1'])],
      secondaries: [],
      ...options.dnsUdp,
      openKey: (sealed) => box.open(sealed), // the signer of signed zones (DNSSEC), as serveDns in one process
      signatures: system.store.signatures,
    });
    await dns.start();
    system.get(TOKENS.ZonePublisher).attach(dns);
    dns.acceptSigned(new SignedMessages(system.signedDns(), { serves: null, log: pino({ level: 'silent' }) }));
    await new ZoneSync(system.store.zones, dns, pino({ level: 'silent' })).load();
  }
  system.markStarted();
  const server: Server = await new Promise((resolve) => {
    // As under npm start: the same timeouts (and keep-alive, so a loaded machine never drops a
    // connection fetch reuses).
    const s = httpServer(app, system.config.clientTimeouts).listen(0, '127.0.0.1', () => resolve(s));
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const call: TestApi['call'] = (path, init = {}) => callJson(base, path, init);

  const signIn: TestApi['signIn'] = async (who) => {
    const p = who ?? { email: demo.email, password: demo.password, totpSecret: demo.totpSecret };
    // Each sign-in needs a fresh TOTP step (codes are never accepted twice): move the clock on.
    clock.advance(31_000);
    const totp = await generate({ secret: p.totpSecret, epoch: Math.floor(clock.now().getTime() / 1000) });
    const r = await call('/v1/account/sessions', { method: 'POST', json: { email: p.email, password: p.password, totp } });
    if (r.status !== 201) throw new Error(`sign-in failed: ${r.status} ${JSON.stringify(r.body)}`);
    return r.headers.getSetCookie()[0]!.split(';')[0]!;
  };

  let ownerCookie: string | null = null;
  const issueKey: TestApi['issueKey'] = async (body, cookie) => {
    const c = cookie ?? (ownerCookie ??= await signIn());
    const r = await call('/v1/account/keys', { method: 'POST', headers: { cookie: c }, json: body });
    if (r.status !== 201) throw new Error(`issue failed: ${r.status} ${JSON.stringify(r.body)}`);
    return { id: r.body.key.id, secret: r.body.secret, body: r.body };
  };

  return {
    base,
    system,
    clock,
    demo,
    store,
    call,
    signIn,
    issueKey,
    dnsPort: dns ? dns.address().port : null,
    dns,
    async close() {
      await dns?.stop();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections?.();
      const violations = [...new Set(inTransaction)];
      const closed = await system.close().then(
        () => store.drop().then(() => null),
        (err: unknown) => err,
      );
      if (violations.length > 0) throw new Error(`a peer outside the database was called inside a transaction:\n${violations.join('\n')}`);
      if (closed !== null) throw closed;
    },
  };
};

export const bearer = (secret: string): Record<string, string> => ({ authorization: `Bearer ${secret}` });

/** Adds a person to the demo account (people management is a console feature of a later issue). */
export const addPerson = async (api: TestApi, role: 'owner' | 'member', email: string) => {
  const password = `pw-${email}`;
  const totpSecret = api.system.get(TOKENS.Totp).generateSecret();
  const id = `p-${email}`;
  await api.system.store.accounts.insertPerson({
    id,
    accountId: api.demo.accountId,
    email,
    name: email,
    role,
    passwordHash: await api.system.get(TOKENS.PasswordHasher).hash(password),
    totpSecret: api.system.get(TOKENS.SecretBox).seal(totpSecret),
    totpLastStep: null,
    lastSignInAt: null,
    createdAt: api.clock.now(),
  });
  return { id, email, password, totpSecret };
};
