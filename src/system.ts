import { Container, type ServiceIdentifier } from 'inversify';
import type Koa from 'koa';
import type { Logger } from 'pino';
import { allRoutes, buildApi, type Route, type UseCases } from '../adapters/http/index.js';
import { completeAbandoned, type CompleterReport } from '../adapters/http/completer.js';
import type { SqlStore } from '../adapters/sql/index.js';
import type { Clock } from '../core/kernel/clock.port.js';
import type { EnvironmentAdapters } from './tokens.js';
import type { Config } from './config.js';
import { configModule, coreModule, liveModule, mailModule, platformModule, sandboxModule, sqlModule } from './modules.js';
import { humanActionsModule } from './modules.js';
import { eventsModule } from './modules.js';
import { monitoringModule } from './modules.js';
import { mcpModule } from './modules.js';
import { mcpRoutes } from '../adapters/http/routes/mcp.routes.js';
import { TOKENS as T } from './tokens.js';

export interface SystemOptions {
  readonly clock?: Clock;
  readonly logger?: Logger;
  /** Extra routes (tests): routes are data. */
  readonly extraRoutes?: readonly Route[];
  /** Wraps the sandbox adapter set (tests: fault injection around the registry or the card). */
  readonly wrapSandbox?: (adapters: EnvironmentAdapters) => EnvironmentAdapters;
}

/**
 * The composition root: builds the container from its modules and hands out the few objects the
 * entry points need. Nothing else in the code base asks the container for anything.
 */
export class System {
  readonly container = new Container();
  private started = false;

  constructor(readonly config: Config, private readonly options: SystemOptions = {}) {
    this.container.load(
      configModule(config, options.logger),
      platformModule(options.clock),
      sqlModule(),
      sandboxModule(options.wrapSandbox),
      liveModule(config),
      mcpModule(),
      mailModule(config),
      coreModule(),
      humanActionsModule(),
      eventsModule(),
      monitoringModule(),
    );
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
      signIn: c.get(T.SignIn), signOut: c.get(T.SignOut), issueKey: c.get(T.IssueKey), listKeys: c.get(T.ListKeys),
      revokeKey: c.get(T.RevokeKey), describeKey: c.get(T.DescribeKey), getDomain: c.get(T.GetDomain),
      listDomains: c.get(T.ListDomains), searchDomains: c.get(T.SearchDomains), listNotices: c.get(T.ListNotices),
      registerDomain: c.get(T.RegisterDomain), renewDomain: c.get(T.RenewDomain), setAutoRenew: c.get(T.SetAutoRenew),
      readBilling: c.get(T.ReadBilling), topUp: c.get(T.TopUpBalance), listKeyNotices: c.get(T.ListKeyNotices),
      advanceSandboxClock: c.get(T.AdvanceSandboxClock),
      readZone: c.get(T.ReadZone), dnsPlans: c.get(T.DnsPlans), acmeChallenges: c.get(T.AcmeChallenges),
      certificates: c.get(T.Certificates),
      // the six human-only actions and the console (issue 10)
      reauthenticate: c.get(T.Reauthenticate), managePeople: c.get(T.ManagePeople), disableTwoFactor: c.get(T.DisableTwoFactor),
      enableTwoFactor: c.get(T.EnableTwoFactor),
      deleteAccount: c.get(T.DeleteAccount), revealTransferCode: c.get(T.RevealTransferCode), changeRegistrant: c.get(T.ChangeRegistrant),
      changePaymentMethod: c.get(T.ChangePaymentMethod), humanReads: c.get(T.HumanReads),
      requestOperation: c.get(T.RequestOperation), confirmOperation: c.get(T.ConfirmOperation), cancelOperation: c.get(T.CancelOperation),
      getOperation: c.get(T.GetOperation), listOperations: c.get(T.ListOperations), lockTransfer: c.get(T.LockTransfer),
      listEvents: c.get(T.ListEvents), webhooks: c.get(T.ManageWebhooks),
      monitors: {
        create: c.get(T.CreateMonitor), update: c.get(T.UpdateMonitor), delete: c.get(T.DeleteMonitor), list: c.get(T.ListMonitors),
        get: c.get(T.GetMonitor), results: c.get(T.ListMonitorResults), report: c.get(T.MonitorReport),
      },
    };
  }

  /** Applies migrations; then the system is ready to serve. */
  async migrate(): Promise<void> {
    await this.store.migrate();
  }

  markStarted(): void {
    this.started = true;
  }

  private meta() {
    const store = this.store;
    return { started: () => this.started, ping: () => store.ping() };
  }

  private extraRoutes(): Route[] {
    return [...mcpRoutes(this.container.get(T.Mcp), this.config.rateLimit.anonymous), ...(this.options.extraRoutes ?? [])];
  }

  http(): { app: Koa; routes: Route[] } {
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
        uow: store.uow,
        clock: c.get(T.Clock),
        logger: this.logger,
        config: { secureCookies: this.config.secureCookies, trustProxy: this.config.trustProxy, proxyHops: this.config.proxyHops, maxBodyBytes: this.config.maxBodyBytes, idempotencyLockMs: this.config.idempotencyLockMs, rateLimit: this.config.rateLimit },
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
        store: store.idempotency, uow: store.uow, clock: this.container.get(T.Clock), lockTimeoutMs: this.config.idempotencyLockMs,
        keys: store.keys, logger: this.logger.child({ component: 'completer' }),
      },
      this.completerRoutes,
      { abandonedAfterMs: this.config.abandonedRequestMs },
    );
  }

  async close(): Promise<void> {
    if (this.container.isBound(T.IssuanceQueue)) await this.container.get(T.IssuanceQueue).close();
    this.container.get(T.WebhookSender).close();
    // The live registrar's sessions (EPP: logout, close TLS).
    if (this.container.isBound(T.LiveAdapters)) await (this.container.get(T.LiveAdapters).registrar as { close?: () => Promise<void> }).close?.();
    await this.store.close();
  }
}
