// inversify keeps its binding ids in Reflect metadata (every bind): the polyfill is loaded before it. (It came
// with @peculiar/x509's adapters until they were loaded on first use, issue 21.)
import 'reflect-metadata';
import { dnssecModule, dnssecUseCases } from './modules/dnssec.module.js';
import { Container, type ServiceIdentifier } from 'inversify';
import type Koa from 'koa';
import type { Logger } from 'pino';
import { allRoutes, buildApi, keyBucketId, RateLimiter, type HttpObserver, type Route, type UseCases } from '../adapters/http/index.js';
import { fingerprintKeyOf } from '../adapters/http/middleware/idempotency.js';
import type { SignedDnsUseCases } from '../adapters/dns/update/signed-messages.js';
import { completeAbandoned, type CompleterReport } from '../adapters/http/completer.js';
import type { SqlStore } from '../adapters/sql/index.js';
import type { Clock } from '../core/kernel/clock.port.js';
import type { EnvironmentAdapters } from './tokens.js';
import type { Config } from './config.js';
import {
  configModule,
  kernelModule,
  liveAdaptersModule,
  loadLiveAdapterCode,
  type LiveAdapterCode,
  mailModule,
  mcpModule,
  platformModule,
  sandboxAdaptersModule,
  sqlModule,
} from './modules/platform.module.js';
import { accessModule, accessUseCases } from './modules/access.module.js';
import { accountsModule, accountsUseCases } from './modules/accounts.module.js';
import { billingModule, billingUseCases } from './modules/billing.module.js';
import { domainsModule, domainsUseCases } from './modules/domains.module.js';
import { dnsModule, dnsUseCases } from './modules/dns.module.js';
import { certificatesModule, certificatesUseCases } from './modules/certificates.module.js';
import { operationsModule, operationsUseCases } from './modules/operations.module.js';
import { monitoringModule, monitoringUseCases } from './modules/monitoring.module.js';
import { sandboxModule, sandboxUseCases } from './modules/sandbox.module.js';
import { noticesModule, noticesUseCases } from './modules/notices.module.js';
import { webhooksModule, webhooksUseCases } from './modules/webhooks.module.js';
import { eventsModule, eventsUseCases } from './modules/events.module.js';
import { consoleModule, consoleUseCases } from './modules/console.module.js';
import { mcpRoutes } from '../adapters/http/routes/mcp.routes.js';
import { TOKENS as T } from './tokens.js';

export interface SystemOptions {
  readonly clock?: Clock;
  readonly logger?: Logger;
  /** Extra routes (tests): routes are data. */
  readonly extraRoutes?: readonly Route[];
  /** Wraps the sandbox adapter set (tests: fault injection around the registry or the card). */
  readonly wrapSandbox?: (adapters: EnvironmentAdapters) => EnvironmentAdapters;
  /** The keys' rate-limit buckets' time in ms (tests: buckets that refill only when the test moves it); default the wall clock. */
  readonly rateLimitNow?: () => number;
  /** The live adapters' code when LIVE_REGISTRAR is set (System.create loads it). */
  readonly live?: LiveAdapterCode | null;
  /** Wraps the live adapter set when one is configured (tests: checks around the registry, the CA, the card). */
  readonly wrapLive?: (adapters: EnvironmentAdapters) => EnvironmentAdapters;
}

/**
 * The composition root: builds the container from its modules and hands out the few objects the
 * entry points need. Nothing else in the code base asks the container for anything.
 */
export class System {
  readonly container = new Container();
  private started = false;

  constructor(
    readonly config: Config,
    private readonly options: SystemOptions = {},
  ) {
    this.container.load(
      configModule(config, options.logger),
      platformModule(options.clock),
      sqlModule(),
      sandboxAdaptersModule(options.wrapSandbox),
      liveAdaptersModule(config, options.live, options.wrapLive),
      mcpModule(),
      mailModule(config),
      kernelModule(),
      accessModule(),
      accountsModule(),
      billingModule(),
      domainsModule(),
      dnsModule(),
      dnssecModule(),
      certificatesModule(),
      operationsModule(),
      monitoringModule(),
      sandboxModule(),
      noticesModule(),
      webhooksModule(),
      eventsModule(),
      consoleModule(),
    );
  }

  /** Builds the system after loading only the adapters' code its configuration needs (Stripe, EPP). */
  static async create(config: Config, options: SystemOptions = {}): Promise<System> {
    return new System(config, { ...options, live: options.live ?? (await loadLiveAdapterCode(config)) });
  }

  get store(): SqlStore {
    return this.container.get(T.Store);
  }

  get logger(): Logger {
    return this.container.get(T.Logger);
  }

  get<X>(token: ServiceIdentifier<X>): X {
    return this.container.get(token);
  }

  useCases(): UseCases {
    const c = this.container;
    return {
      ...accountsUseCases(c),
      ...accessUseCases(c),
      ...domainsUseCases(c),
      ...noticesUseCases(c),
      ...billingUseCases(c),
      ...sandboxUseCases(c),
      ...dnsUseCases(c),
      ...dnssecUseCases(c),
      ...certificatesUseCases(c),
      ...consoleUseCases(c),
      ...operationsUseCases(c),
      ...eventsUseCases(c),
      ...webhooksUseCases(c),
      ...monitoringUseCases(c),
    };
  }

  /** Applies migrations; then the system is ready to serve. */
  async migrate(): Promise<void> {
    await this.store.migrate();
  }

  markStarted(): void {
    this.started = true;
  }

  private draining = false;

  /** Shutdown began: /readyz answers 503 from now on. */
  markDraining(): void {
    this.draining = true;
  }

  private meta() {
    const store = this.store;
    return { started: () => this.started, ping: () => store.ping(), draining: () => this.draining };
  }

  private extraRoutes(): Route[] {
    return [...mcpRoutes(this.container.get(T.Mcp), this.config.rateLimit.anonymous), ...(this.options.extraRoutes ?? [])];
  }

  private keyLimiter: RateLimiter | null = null;

  /** The keys' token buckets in this process: the API's, spent also by DNS UPDATEs and signed transfers. */
  keyRateLimiter(): RateLimiter {
    return (this.keyLimiter ??= new RateLimiter(this.config.rateLimit.key, this.options.rateLimitNow));
  }

  /** What a signed DNS message (UPDATE, signed query or transfer) reaches: the core's use cases and the key's rate limit. */
  signedDns(): SignedDnsUseCases {
    const limiter = this.keyRateLimiter();
    return {
      tsigKeys: this.container.get(T.ResolveTsigKey),
      update: this.container.get(T.ApplyDnsUpdate),
      transfer: this.container.get(T.AuthorizeTransfer),
      throttle: this.container.get(T.CredentialThrottle),
      keyRate: { takeForKey: (keyId) => limiter.take(keyBucketId(keyId)) },
    };
  }

  /** The API; `observer`: the serving process's part in each request (api-process.ts: draining, metrics). */
  http(observer?: HttpObserver): { app: Koa; routes: Route[] } {
    const c = this.container;
    const store = this.store;
    return buildApi(
      this.useCases(),
      this.meta(),
      {
        authenticateKey: c.get(T.AuthenticateKey),
        authenticateSession: c.get(T.AuthenticateSession),
        authorizer: c.get(T.Authorizer),
        environments: c.get(T.Environments),
        idempotency: store.idempotency,
        secretBox: c.get(T.SecretBox),
        uow: store.uow,
        clock: c.get(T.Clock),
        logger: this.logger,
        keyLimiter: this.keyRateLimiter(),
        fingerprintKey: fingerprintKeyOf(this.config.keyPepper),
        ...(observer ? { observer } : {}),
        config: {
          secureCookies: this.config.secureCookies,
          trustProxy: this.config.trustProxy,
          proxyHops: this.config.proxyHops,
          maxBodyBytes: this.config.maxBodyBytes,
          idempotencyLockMs: this.config.idempotencyLockMs,
          rateLimit: this.config.rateLimit,
        },
      },
      this.extraRoutes(),
    );
  }

  private completerRoutes: Route[] | null = null;

  /** The worker's completer pass (adapters/http/completer.ts): finishes phased requests whose client went away. */
  async completeAbandonedRequests(): Promise<CompleterReport> {
    const store = this.store;
    this.completerRoutes ??= allRoutes(this.useCases(), this.meta(), this.extraRoutes());
    return completeAbandoned(
      {
        store: store.idempotency,
        uow: store.uow,
        clock: this.container.get(T.Clock),
        lockTimeoutMs: this.config.idempotencyLockMs,
        keys: store.keys,
        secretBox: this.container.get(T.SecretBox),
        logger: this.logger.child({ component: 'completer' }),
      },
      this.completerRoutes,
      { abandonedAfterMs: this.config.abandonedRequestMs },
    );
  }

  async close(): Promise<void> {
    if (this.container.isBound(T.IssuanceQueue)) await this.container.get(T.IssuanceQueue).close();
    this.container.get(T.WebhookSender).close();
    // The live registrar's sessions (EPP: logout, close TLS).
    if (this.container.isBound(T.LiveAdapters))
      await (this.container.get(T.LiveAdapters).registrar as { close?: () => Promise<void> }).close?.();
    await this.store.close();
  }
}
