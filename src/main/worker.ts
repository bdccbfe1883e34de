import { loadClusterConfig, loadConfig } from '../config.js';
import { onShutdown, runMain } from './process.js';
import { System } from '../system.js';
import { Worker } from '../worker.js';
import { Metrics } from '../../adapters/metrics/index.js';
import { answerScrapes, instrumentSystem, serveGroupMetrics, workerHooks } from '../metrics.js';

/** `npm run worker`: the worker alone (beside API processes that run with RUN_WORKER=false). */
const main = async () => {
  const config = loadConfig();
  const system = await System.create(config);
  // Under npm run cluster the supervisor serves this worker's metrics; alone, it serves its own.
  const child = process.env.DOMIVKA_METRICS_CHILD === '1';
  const metrics = config.metrics.port !== 0 || child ? new Metrics() : null;
  if (metrics) instrumentSystem(system, metrics);
  await system.migrate();
  const worker = new Worker(system, loadClusterConfig().workerIntervalMs, metrics ? workerHooks(metrics) : undefined);
  if (metrics && child) answerScrapes(metrics.registry, () => []);
  const metricsServer = metrics && !child ? await serveGroupMetrics(config, metrics.registry, system.logger, () => []) : null;
  worker.start();
  system.logger.info('worker started');
  const keepAlive = setInterval(() => undefined, 1 << 30);
  onShutdown(async () => {
    clearInterval(keepAlive);
    // The job running finishes (within SHUTDOWN_TIMEOUT_MS), then the store closes.
    await worker.finish(config.shutdownTimeoutMs);
    worker.stop();
    metricsServer?.close();
    await system.close();
  });
};

runMain(main);
