import { ConfigError } from '../config.js';

/** Runs an entry point: a configuration error is one clear line, anything else its stack; exit 1. */
export const runMain = (main: () => Promise<number | void>): void => {
  main().then(
    (code) => {
      if (typeof code === 'number') process.exit(code);
    },
    (err) => {
      process.stderr.write(`${err instanceof ConfigError ? `Configuration error: ${err.message}` : (err as Error).stack}\n`);
      process.exit(1);
    },
  );
};

/** Calls `stop` once on SIGINT or SIGTERM, then exits 0. */
export const onShutdown = (stop: () => Promise<void>): void => {
  const handler = () => {
    stop().then(() => process.exit(0), () => process.exit(1));
  };
  process.once('SIGINT', handler);
  process.once('SIGTERM', handler);
};
