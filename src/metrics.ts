import cluster from 'node:cluster';
import type { Server } from 'node:http';
import type { Logger } from 'pino';
import { AggregatorRegistry, type Registry } from 'prom-client';
import { aggregate, Metrics, serveMetrics, statusClass, type MetricsJson } from '../adapters/metrics/index.js';
import type { SendOutcome, WebhookSender } from '../core/webhooks/ports/webhook-sender.port.js';
import type { Config } from './config.js';
import type { System } from './system.js';
import { TOKENS } from './tokens.js';
import type { WorkerHooks } from './worker.js';
import type { EnvironmentAdapters } from './modules/platform.tokens.js';

/**
 * Wires the metrics adapter into a process from the outside: core and the HTTP adapter know nothing of
 * it. Ports are wrapped where the container activates them, the API gets one outer middleware, the
 * worker reports through its hooks, and the DNS workers answer the primary's scrape over IPC.
 */

/** Asked of each DNS worker (a node:cluster worker) at every scrape; it answers with its registry as JSON. */
const ASK = 'domivka:metrics';
const ASK_TIMEOUT_MS = 2000;

/** Times every method of an adapter that returns a promise, by method name (bounded: the adapter's own methods). */
const timed = <T extends object>(target: T, metrics: Metrics, peer: string, environment: string): T =>
  new Proxy(target, {
    get(t, prop, receiver) {
      const v = Reflect.get(t, prop, receiver) as unknown;
      if (typeof v !== 'function' || typeof prop !== 'string' || prop === 'constructor' || prop === 'then') return v;
      return (...args: unknown[]) => {
        const out = (v as (...a: unknown[]) => unknown).apply(t, args);
        if (!(out instanceof Promise)) return out;
        const end = metrics.peerCalls.startTimer({ peer, environment, operation: prop });
        return out.then(
          (r) => {
            end({ outcome: 'ok' });
            return r;
          },
          (err: unknown) => {
            end({ outcome: 'error' });
            metrics.peerErrors.inc({ peer, environment, operation: prop });
            throw err;
          },
        );
      };
    },
  });

const timedAdapters = (a: EnvironmentAdapters, metrics: Metrics, environment: string): EnvironmentAdapters => ({
  ...a,
  registrar: timed(a.registrar, metrics, 'registry', environment),
  payments: timed(a.payments, metrics, 'payments', environment),
  ca: timed(a.ca, metrics, 'ca', environment),
});

const webhookOutcome = (o: SendOutcome): string =>
  o.kind === 'error' ? o.error : o.status >= 200 && o.status < 300 ? 'success' : 'http_error';

/** Wraps the system's ports (registry, payments, CA, webhook sender) and reads its database pool. Call before first use. */
export const instrumentSystem = (system: System, metrics: Metrics): void => {
  const c = system.container;
  c.onActivation(TOKENS.TestAdapters, (_ctx, a) => timedAdapters(a, metrics, 'test'));
  c.onActivation(TOKENS.LiveAdapters, (_ctx, a) => timedAdapters(a, metrics, 'live'));
  c.onActivation(TOKENS.WebhookSender, (_ctx, sender) => {
    const send = sender.send.bind(sender) as WebhookSender['send'];
    sender.send = async (req) => {
      const outcome = await send(req);
      const label = webhookOutcome(outcome);
      metrics.webhookDeliveries.inc({ outcome: label });
      metrics.webhookDuration.observe({ outcome: label }, outcome.latencyMs / 1000);
      return outcome;
    };
    return sender;
  });
  const pool = (system.store.knex.client as { pool?: TarnPool }).pool;
  metrics.gauge('domivka_db_pool_connections', 'Database pool connections, by state (used, free, pending acquires).', ['state'], () => {
    const p = (system.store.knex.client as { pool?: TarnPool }).pool ?? pool;
    if (!p) return [];
    return [
      [{ state: 'used' }, p.numUsed()],
      [{ state: 'free' }, p.numFree()],
      [{ state: 'pending' }, p.numPendingAcquires()],
    ];
  });
  metrics.gauge('domivka_db_pool_max_connections', 'The most connections the database pool opens.', [], () => {
    const p = (system.store.knex.client as { pool?: TarnPool }).pool;
    return p ? [[{}, p.max]] : [];
  });
  instrumentWebhookHealth(system, metrics);
};

const ENVIRONMENTS = ['test', 'live'] as const;
const ENDPOINT_STATES = ['healthy', 'failing', 'disabled'] as const;

/**
 * Webhook endpoint health, read from the store at scrape time (a grouped count, not a row per endpoint):
 * endpoints by environment and state, and how long the oldest failing streak has lasted. Labels are bounded
 * (environment × state), never an endpoint id or URL. Every API process reads the same store, so the
 * process group keeps one value (max), not their sum.
 */
export const instrumentWebhookHealth = (system: System, metrics: Metrics, now: () => number = Date.now): void => {
  const read = async (): Promise<Array<{ environment: string; state: string; n: number; oldest: string | null }>> => {
    try {
      const rows = (await system.store
        .knex('webhooks')
        .where({ deleted: false })
        .select('environment')
        .select(
          system.store.knex.raw(
            "case when not enabled then 'disabled' when failing_since is null then 'healthy' else 'failing' end as state",
          ),
        )
        .count({ n: '*' })
        .min({ oldest: 'failing_since' })
        .groupByRaw('1, 2')) as Array<{ environment: string; state: string; n: number | string; oldest: string | null }>;
      return rows.map((r) => ({ environment: r.environment, state: r.state, n: Number(r.n), oldest: r.oldest }));
    } catch {
      return []; // the store is closing or away: no figure rather than a failed scrape
    }
  };
  metrics.asyncGauge(
    'domivka_webhook_endpoints',
    'Webhook endpoints (not deleted), by environment and state: healthy, failing (its deliveries fail, not yet disabled), disabled.',
    ['environment', 'state'],
    async () => {
      const rows = await read();
      return ENVIRONMENTS.flatMap((environment) =>
        ENDPOINT_STATES.map((state): [Record<string, string>, number] => [
          { environment, state },
          rows.filter((r) => r.environment === environment && r.state === state).reduce((a, r) => a + r.n, 0),
        ]),
      );
    },
  );
  metrics.asyncGauge(
    'domivka_webhook_endpoint_failing_seconds_max',
    'How long the oldest failing streak of an enabled webhook endpoint has lasted, by environment (0: none failing).',
    ['environment'],
    async () => {
      const rows = await read();
      return ENVIRONMENTS.map((environment): [Record<string, string>, number] => {
        const oldest = rows
          .filter((r) => r.environment === environment && r.state === 'failing' && r.oldest)
          .map((r) => Date.parse(r.oldest!))
          .reduce((a, b) => Math.min(a, b), Infinity);
        return [{ environment }, oldest === Infinity ? 0 : Math.max(0, (now() - oldest) / 1000)];
      });
    },
  );
};

interface TarnPool {
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
  readonly max: number;
}

/** One observation per request, by the route template the router matched (the HTTP app's observer, app.ts). */
export const httpObserved =
  (metrics: Metrics) =>
  (route: string, method: string, status: number, seconds: number): void =>
    metrics.httpDuration.observe({ route, method, status_class: statusClass(status) }, seconds);

/** A process this one asks at each scrape: a node:cluster worker or a forked child. */
interface Asked {
  send(message: unknown): unknown;
  on(event: 'message', listener: (m: never) => void): unknown;
  off(event: 'message', listener: (m: never) => void): unknown;
}

/** Each process's metrics (itself summed with its own children), asked over IPC; one that does not answer in time is left out. */
const ask = async (targets: readonly Asked[]): Promise<MetricsJson[]> =>
  (
    await Promise.all(
      targets.map(
        (w) =>
          new Promise<MetricsJson | null>((resolve) => {
            const id = `${process.pid}-${Math.random()}`;
            const done = (v: MetricsJson | null) => {
              clearTimeout(timer);
              w.off('message', onMessage);
              resolve(v);
            };
            const timer = setTimeout(() => done(null), ASK_TIMEOUT_MS);
            const onMessage = (m: { type?: string; id?: string; metrics?: MetricsJson }) => {
              if (m?.type === ASK && m.id === id) done(m.metrics ?? null);
            };
            w.on('message', onMessage);
            try {
              w.send({ type: ASK, id });
            } catch {
              done(null);
            }
          }),
      ),
    )
  ).filter((x): x is MetricsJson => x !== null);

/** This process's node:cluster workers that are up (npm start: its DNS workers; the supervisor: its API processes). */
export const clusterWorkers = (): Asked[] =>
  Object.values(cluster.workers ?? {}).filter((w) => w !== undefined && w.isConnected()) as unknown as Asked[];

/** The metrics of this process and of everything it asks (its DNS workers, or the cluster's children), as JSON parts. */
const groupParts = async (registry: Registry, children: () => readonly Asked[]): Promise<MetricsJson[]> => [
  (await registry.getMetricsAsJSON()) as MetricsJson,
  ...(await ask(children())),
];

/** In a child process: answers its parent's scrape with its own metrics summed with its children's. */
export const answerScrapes = (registry: Registry, children: () => readonly Asked[] = clusterWorkers): void => {
  process.on('message', (m: { type?: string; id?: string }) => {
    if (m?.type !== ASK) return;
    void groupParts(registry, children)
      .then(async (parts) =>
        parts.length === 1 ? parts[0]! : ((await AggregatorRegistry.aggregate(parts).getMetricsAsJSON()) as MetricsJson),
      )
      .then((json) => process.send?.({ type: ASK, id: m.id, metrics: json }));
  });
};

/**
 * `GET /metrics` on METRICS_HOST:METRICS_PORT for the whole process group: this process's registry and
 * those of the processes it asks (its DNS workers; under npm run cluster every child), summed.
 * METRICS_PORT=0 serves none.
 */
export const serveGroupMetrics = async (
  config: Config,
  registry: Registry,
  log: Logger,
  children: () => readonly Asked[] = clusterWorkers,
): Promise<Server | null> => {
  if (config.metrics.port === 0) return null;
  const server = await serveMetrics(
    config.metrics.host,
    config.metrics.port,
    async () => aggregate(await groupParts(registry, children)),
    (err) => log.error({ err, host: config.metrics.host, port: config.metrics.port }, 'metrics: cannot serve /metrics'),
  );
  if (server) log.info({ url: `http://${config.metrics.host}:${(server.address() as { port: number }).port}/metrics` }, 'metrics served');
  return server;
};

/** The worker's hooks that feed the job metrics. */
export const workerHooks = (metrics: Metrics): WorkerHooks => ({
  jobRan: (job, seconds, ok) => {
    metrics.jobRuns.inc({ job, outcome: ok ? 'ok' : 'error' });
    metrics.jobDuration.observe({ job }, seconds);
  },
  passLag: (seconds) => metrics.workerLag.set(seconds),
});
