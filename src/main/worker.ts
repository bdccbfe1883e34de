import { loadClusterConfig, loadConfig } from '../config.js';
import { onShutdown, runMain } from './process.js';
import { System } from '../system.js';
import { Worker } from '../worker.js';

/** `npm run worker`: the worker alone (beside API processes that run with RUN_WORKER=false). */
const main = async () => {
  const system = new System(loadConfig());
  await system.migrate();
  const worker = new Worker(system, loadClusterConfig().workerIntervalMs);
  worker.start();
  system.logger.info('worker started');
  const keepAlive = setInterval(() => undefined, 1 << 30);
  onShutdown(async () => {
    clearInterval(keepAlive);
    await worker.drain();
    worker.stop();
    await system.close();
  });
};

runMain(main);
