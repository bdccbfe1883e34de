import { ConfigError, loadConfig } from '../config.js';
import { System } from '../system.js';
import { Worker } from '../worker.js';

/** `npm run worker`: the worker alone (beside API processes that run with RUN_WORKER=false). */
const main = async () => {
  const system = new System(loadConfig());
  await system.migrate();
  const worker = new Worker(system);
  worker.start();
  system.logger.info('worker started');
  const keepAlive = setInterval(() => undefined, 1 << 30);
  const stop = async () => {
    clearInterval(keepAlive);
    worker.stop();
    await system.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
};

main().catch((err) => {
  process.stderr.write(`${err instanceof ConfigError ? `Configuration error: ${err.message}` : (err as Error).stack}\n`);
  process.exit(1);
});
