import type Koa from 'koa';
import { createHttpApp, type HttpDeps } from './app.js';
import { buildOpenApi } from './openapi.js';
import { keyRoutes } from './routes/keys.routes.js';
import { accountRoutes } from './routes/account.routes.js';
import { domainRoutes } from './routes/domains.routes.js';
import { transferRoutes } from './routes/transfers.routes.js';
import { hostedDomainRoutes } from './routes/hosted-domains.routes.js';
import { dnsRoutes } from './routes/dns.routes.js';
import { dnssecRoutes } from './routes/dnssec.routes.js';
import { billingRoutes } from './routes/billing.routes.js';
import { noticeRoutes } from './routes/notices.routes.js';
import { sandboxRoutes } from './routes/sandbox.routes.js';
import { certificateRoutes } from './routes/certificates.routes.js';
import { operationRoutes } from './routes/operations.routes.js';
import { eventRoutes } from './routes/events.routes.js';
import { webhookRoutes } from './routes/webhooks.routes.js';
import { monitorRoutes } from './routes/monitors.routes.js';
import { metaRoutes, type MetaDeps } from './routes/meta.routes.js';
import type { UseCases } from './use-cases.js';
import type { Route } from './route.js';
import type { Middleware } from 'koa';

export { createHttpApp, SESSION_COOKIE, type HttpConfig, type HttpDeps, type HttpObserver } from './app.js';
export { ERROR_TABLE, errorBody } from './error-table.js';
export { buildOpenApi } from './openapi.js';
export { httpServer, type ClientTimeouts } from './http-server.js';
export { keyBucketId, RateLimiter } from './middleware/rate-limit.js';
export type { Route, RouteInput, Reply } from './route.js';
export type { UseCases } from './use-cases.js';

export const API_VERSION = '1.0.0';

/**
 * One of our modules, on demand: `load` (an import() with the module's literal path, which the build's
 * bundler follows) when running as ES modules; the module's own require when the code runs compiled to
 * CommonJS (mocha through tsx), where import() would load a second copy of core/ (two DomainError classes,
 * so `instanceof` fails). As src/modules/platform.module.ts loads the live adapters.
 */
const loadOwn = async <M>(specifier: string, load: () => Promise<M>): Promise<M> =>
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  typeof __filename === 'string' ? (require(specifier) as M) : load();

/** Every route of the API. Tests may append routes (routes are data). */
export const allRoutes = (uc: UseCases, meta: Omit<MetaDeps, 'openapi'>, extra: readonly Route[] = []): Route[] => {
  const routes: Route[] = [];
  const openapi = () => buildOpenApi(routes, API_VERSION);
  routes.push(
    ...metaRoutes({ ...meta, openapi }),
    ...keyRoutes(uc),
    ...accountRoutes(uc),
    ...domainRoutes(uc),
    ...transferRoutes(uc),
    ...hostedDomainRoutes(uc),
    ...dnsRoutes(uc),
    ...dnssecRoutes(uc),
    ...billingRoutes(uc),
    ...noticeRoutes(uc),
    ...sandboxRoutes(uc),
    ...certificateRoutes(uc),
    ...operationRoutes(uc),
    ...eventRoutes(uc),
    ...webhookRoutes(uc),
    ...monitorRoutes(uc),
    ...extra,
  );
  return routes;
};

export const buildApi = (
  uc: UseCases,
  meta: Omit<MetaDeps, 'openapi'>,
  deps: HttpDeps,
  extra: readonly Route[] = [],
): { app: Koa; routes: Route[] } => {
  const routes = allRoutes(uc, meta, extra);
  const app = createHttpApp(routes, deps);
  // The humans' console at /console/: after the API router, on the same process and port. Its page code
  // (a third of the API's modules by size) is loaded on the first request under /console, not at start.
  let consolePages: Promise<Middleware> | null = null;
  app.use(async (ctx, next) => {
    if (ctx.path !== '/console' && !ctx.path.startsWith('/console/')) return next();
    consolePages ??= loadOwn('./console/console.app.js', () => import('./console/console.app.js')).then(({ consoleMiddleware }) =>
      consoleMiddleware(uc, {
        authenticateSession: deps.authenticateSession,
        secureCookies: deps.config.secureCookies,
        logger: deps.logger,
        clock: deps.clock,
        ...(deps.fingerprintKey ? { fingerprintKey: deps.fingerprintKey } : {}),
      }),
    );
    return (await consolePages)(ctx, next);
  });
  return { app, routes };
};
