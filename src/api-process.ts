import { writeFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import type { Server } from 'node:http';
import type { Config } from './config.js';
import { onShutdown } from './main/process.js';
import { System } from './system.js';
import { TOKENS } from './tokens.js';
import { Worker } from './worker.js';
import { DNS_WORKER_ENTRY } from './main/dns-worker-entry.js';
import { serveDns } from './dns-server.js';
import type { HeldDnsWorkers } from '../adapters/dns/cluster.js';
import { httpServer } from '../adapters/http/index.js';
import { Metrics } from '../adapters/metrics/index.js';
import { answerScrapes, httpObserved, instrumentSystem, serveGroupMetrics, workerHooks } from './metrics.js';

/**
 * The API process of `npm start` (src/main/server.ts loads this once it has forked the DNS workers): API on
 * PORT, store at DATABASE_URL, migrations applied, the sandbox demo account seeded on first start (its
 * sign-in printed once and written to var/demo-credentials.txt, mode 0600), and the worker running
 * in-process unless RUN_WORKER=false. `heldWorkers`: the DNS workers already forked, started once the store
 * is migrated.
 */
export const serveApi = async (config: Config, heldWorkers?: HeldDnsWorkers): Promise<void> => {
  // Where the start goes (logged once started; npm run bench:start reads it): from process start.
  const phasesMs: Record<string, number> = { modules: performance.now() };
  let mark = performance.now();
  const phase = (name: string) => {
    const now = performance.now();
    phasesMs[name] = now - mark;
    mark = now;
  };
  const system = await System.create(config);
  const log = system.logger;
  // Metrics: served here on METRICS_PORT (with the DNS workers' summed in), or, in an API process of
  // npm run cluster, handed to the supervisor that serves them for the whole cluster.
  const metricsChild = process.env.DOMIVKA_METRICS_CHILD === '1';
  const metrics = config.metrics.port !== 0 || metricsChild ? new Metrics() : null;
  if (metrics) instrumentSystem(system, metrics);
  phase('config');
  await system.migrate();
  phase('migrate');
  let credentials = '';
  const credentialsFile = join(config.varDir, 'demo-credentials.txt');
  if (config.seedDemo) {
    const seeded = await system.get(TOKENS.SeedDemo).execute();
    if (seeded) {
      credentials = [
        `Sandbox demo owner (shown once; also in ${credentialsFile}):`,
        `  e-mail:      ${seeded.email}`,
        `  password:    ${seeded.password}`,
        `  TOTP secret: ${seeded.totpSecret}`,
        `  TOTP URI:    ${seeded.totpUri}`,
      ].join('\n');
      writeFileSync(credentialsFile, `${credentials}\n`, { mode: 0o600 });
      chmodSync(credentialsFile, 0o600);
    }
  }
  phase('seed');
  let draining = false;
  // While draining, each response closes its keep-alive connection, so clients reconnect elsewhere; each
  // request's duration goes to the metrics by route template.
  const { app } = system.http({ closing: () => draining, ...(metrics ? { answered: httpObserved(metrics) } : {}) });
  phase('api');
  // The authoritative DNS server: every zone from the store, kept in step by ZoneSync.
  const dns = config.runDns
    ? await serveDns({
        config,
        zones: system.store.zones,
        signatures: system.store.signatures,
        changes: system.store.changes,
        log: log.child({ component: 'dns' }),
        workerEntry: DNS_WORKER_ENTRY,
        ...(heldWorkers ? { heldWorkers } : {}),
        signed: system.signedDns(),
        ...(metrics ? { observer: metrics.dns() } : {}),
      })
    : null;
  if (dns) system.get(TOKENS.ZonePublisher).attach(dns.publisher);
  phase('dns');
  const worker = config.runWorker ? new Worker(system, undefined, metrics ? workerHooks(metrics) : undefined) : null;
  // Slow clients are bound (headers, a silent body, the whole request); keep-alive as explained there.
  const server: Server = httpServer(app, config.clientTimeouts).listen(config.port, config.host);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', () => resolve());
    server.once('error', reject);
  });
  phase('listen');
  const metricsServer = metrics && !metricsChild ? await serveGroupMetrics(config, metrics.registry, log) : null;
  if (metrics && metricsChild) answerScrapes(metrics.registry);
  system.markStarted();
  phase('metrics');
  // The job worker's first pass (its queries take a few hundred ms on a large account) runs once the API
  // answers, not in the way of its start.
  worker?.start();
  log.info({ phasesMs: Object.fromEntries(Object.entries(phasesMs).map(([k, v]) => [k, Math.round(v)])) }, 'started');
  const base = `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${config.port}`;
  process.stdout.write(
    [
      `Domivka is running (store: ${system.store.engine}${system.store.engine === 'sqlite' ? ` ${config.databaseUrl}` : ''}).`,
      `  API:      ${base}/v1/…  (the routes: ${base}/v1/openapi.json; health: ${base}/healthz)`,
      `  DNS:      ${config.runDns ? `${config.dnsHost}:${config.dnsPort} UDP+TCP${dns && config.dnsWorkers > 1 ? `, ${dns.shape}` : ''} (try: dig @${config.dnsHost} -p ${config.dnsPort} domivka-demo.com.ua A)` : 'off (RUN_DNS=false)'}`,
      `  Worker:   ${worker ? 'in this process' : 'off (RUN_WORKER=false; run `npm run worker`)'}`,
      config.sandboxDns ? `  Sandbox DNS: ${config.sandboxDns.host}:${config.sandboxDns.port} (sandbox zones; never on DNS_PORT)` : '',
      ...config.secretFiles.map((f) => `  Secret:   ${f}`),
      // The demo owner's sign-in is printed on the first start only; later starts say where it is kept.
      `  Console:  ${base}/console/  (sign in as the demo owner: e-mail, password, TOTP code ${credentials ? 'below' : `in ${credentialsFile}`})`,
      `  Test key: npm run sandbox:key -- --rights domain.read --label prod`,
      credentials,
      '',
    ]
      .filter((l) => l !== '')
      .join('\n') + '\n',
  );
  // SIGTERM: /readyz says draining; no new connection is accepted; requests in flight and the worker's
  // current job finish (each within SHUTDOWN_TIMEOUT_MS); then DNS stops, letting transfers in flight
  // finish within the same bound; then the store closes; exit 0.
  onShutdown(async () => {
    log.info('shutting down');
    draining = true;
    system.markDraining();
    metrics?.draining.set(1);
    const bound = config.shutdownTimeoutMs;
    const closed = new Promise<boolean>((resolve) => server.close(() => resolve(true)));
    server.closeIdleConnections();
    const [served, worked] = await Promise.all([
      Promise.race([closed, new Promise<boolean>((r) => setTimeout(() => r(false), bound).unref())]),
      worker ? worker.finish(bound) : true,
    ]);
    if (!served) {
      log.warn({ boundMs: bound }, 'requests still in flight at the shutdown bound; closing their connections');
      server.closeAllConnections();
    }
    if (!worked) log.warn({ boundMs: bound }, 'the worker was still busy at the shutdown bound');
    await dns?.stop(bound);
    metricsServer?.close();
    await system.close();
    log.info('stopped');
  });
};
