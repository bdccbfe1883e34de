import cluster, { type Worker as ClusterWorker } from 'node:cluster';
import { fork, type ChildProcess } from 'node:child_process';
import { loadClusterConfig, loadConfig } from '../config.js';
import { System } from '../system.js';
import { TOKENS } from '../tokens.js';
import { onShutdown, runMain } from './process.js';
import { siblingEntry as here } from './dns-worker-entry.js';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { clusterWorkers, serveGroupMetrics } from '../metrics.js';

/**
 * `npm run cluster`: the production shape on one machine, all on one DATABASE_URL.
 *
 *   - this process: migrates and seeds once, then supervises (it serves nothing itself);
 *   - API_PROCESSES API processes (src/main/server.ts with RUN_DNS=false RUN_WORKER=false) sharing PORT
 *     through node:cluster — put a reverse proxy in front and set TRUST_PROXY;
 *   - WORKERS workers (src/main/worker.ts): claims are leases taken with FOR UPDATE SKIP LOCKED, so any
 *     number may run; every charge runs in one transaction with its checks;
 *   - exactly one DNS process (src/main/dns-primary.ts; RUN_DNS=false leaves it out): the hidden primary
 *     on DNS_HOST:DNS_PORT that secondaries (DNS_SECONDARIES, AXFR_ALLOW) transfer from. One, so that one
 *     server set answers AXFR/IXFR and sends NOTIFY; DNS_WORKERS scale it inside that process.
 *
 * A child that dies is started again (at once if it lived a minute, else after 1, 2, 4 … 30 s).
 * Prints one line "cluster ready …" on stdout once every API process listens and the DNS serves.
 */
const HEALTHY_AFTER_MS = 60_000;

const main = async () => {
  const config = loadConfig();
  const shape = loadClusterConfig();
  // Migrations and the demo seed once, before any child starts (children still run migrate: a no-op).
  const system = await System.create(config);
  const log = system.logger.child({ component: 'cluster' });
  await system.migrate();
  if (config.seedDemo) {
    const seeded = await system.get(TOKENS.SeedDemo).execute();
    if (seeded) {
      process.stdout.write(
        `Sandbox demo owner (shown once): e-mail ${seeded.email}, password ${seeded.password}, TOTP secret ${seeded.totpSecret}\n`,
      );
    }
  }
  await system.close();

  let stopping = false;
  // Children hand their metrics to this process, which serves one /metrics for the whole cluster.
  const childEnv = { RUN_DNS: 'false', RUN_WORKER: 'false', SEED_DEMO: 'false', DOMIVKA_METRICS_CHILD: '1' };
  const restarts = new Map<string, number>();
  const backoff = (name: string, lived: number): number => {
    const n = lived >= HEALTHY_AFTER_MS ? 0 : (restarts.get(name) ?? 0);
    restarts.set(name, n + 1);
    return n === 0 ? 0 : Math.min(30_000, 1000 * 2 ** (n - 1));
  };

  // Plain children: the DNS process and the workers.
  const children = new Map<string, ChildProcess>();
  const startChild = (name: string, file: string, env: Record<string, string>): Promise<void> => {
    const at = Date.now();
    const child = fork(here(file), [], { env: { ...process.env, ...env } });
    children.set(name, child);
    const ready = new Promise<void>((resolve, reject) => {
      child.on('message', (m: { type?: string }) => m?.type === 'ready' && resolve());
      child.once('exit', (code) => reject(new Error(`${name} exited with ${code} before it was ready`)));
      if (file === 'worker') child.once('spawn', () => resolve());
    });
    child.once('exit', (code, signal) => {
      if (stopping || children.get(name) !== child) return;
      const delay = backoff(name, Date.now() - at);
      log.error({ child: name, code, signal, restartInMs: delay }, 'child exited; starting another');
      setTimeout(() => !stopping && void startChild(name, file, env).catch(() => undefined), delay);
    });
    return ready;
  };

  // API processes: node:cluster shares PORT between them.
  const apis = new Map<number, ClusterWorker>();
  // Round-robin: this process accepts and hands each connection to the next API process in turn.
  cluster.schedulingPolicy = cluster.SCHED_RR;
  cluster.setupPrimary({ exec: here('server') });
  const startApi = (index: number): Promise<void> => {
    const at = Date.now();
    const w = cluster.fork({ ...childEnv, DOMIVKA_API_PROCESS: String(index) });
    apis.set(index, w);
    w.once('exit', (code, signal) => {
      if (stopping || apis.get(index) !== w) return;
      const delay = backoff(`api-${index}`, Date.now() - at);
      log.error({ child: `api-${index}`, code, signal, restartInMs: delay }, 'API process exited; starting another');
      setTimeout(() => !stopping && void startApi(index).catch(() => undefined), delay);
    });
    return new Promise((resolve, reject) => {
      w.once('listening', () => resolve());
      w.once('exit', (code) => reject(new Error(`API process ${index} exited with ${code} before it listened`)));
    });
  };

  onShutdown(async () => {
    stopping = true;
    const exits: Promise<unknown>[] = [];
    for (const w of apis.values()) {
      if (w.isDead()) continue;
      exits.push(new Promise((r) => w.once('exit', r)));
      w.process.kill('SIGTERM');
    }
    for (const c of children.values()) {
      if (c.exitCode !== null || c.signalCode !== null) continue;
      exits.push(new Promise((r) => c.once('exit', r)));
      c.kill('SIGTERM');
    }
    await Promise.race([Promise.all(exits), new Promise((r) => setTimeout(r, 10_000).unref())]);
  });

  const waits: Promise<void>[] = [];
  if (config.runDns) waits.push(startChild('dns', 'dns-primary', { ...childEnv }));
  for (let i = 0; i < shape.workers; i++) waits.push(startChild(`worker-${i}`, 'worker', { ...childEnv, DOMIVKA_WORKER: String(i) }));
  for (let i = 0; i < shape.apiProcesses; i++) waits.push(startApi(i));
  await Promise.all(waits);
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const live = (c: ChildProcess) => c.connected && c.exitCode === null;
  await serveGroupMetrics(config, registry, log, () => [...clusterWorkers(), ...([...children.values()].filter(live) as never[])]);
  process.stdout.write(
    `cluster ready: ${shape.apiProcesses} API processes on ${config.host}:${config.port}, ${shape.workers} workers, ` +
      `DNS hidden primary ${config.runDns ? `on ${config.dnsHost}:${config.dnsPort} (${config.dnsWorkers} DNS workers)` : 'off'}, ` +
      `store ${system.store.engine}\n`,
  );
};

runMain(main);
