import { ConfigError } from '../config.js';

/** Runs an entry point: a configuration error is one clear line, anything else its stack; exit 1. */
export const runMain = (main: () => Promise<number | void>): void => {
  main().then(
    (code) => {
      if (typeof code === 'number') process.exit(code);
    },
    (err) => {
      process.stderr.write(
        err instanceof ConfigError
          ? err.problems.length === 1
            ? `Configuration error: ${err.problems[0]}\n`
            : `Configuration errors (${err.problems.length}):\n${err.problems.map((p) => `  - ${p}\n`).join('')}`
          : `${(err as Error).stack}\n`,
      );
      process.exit(1);
    },
  );
};

/** Calls `stop` once on SIGINT or SIGTERM (whichever comes first), then exits 0, or 1 if it failed. */
export const onShutdown = (stop: () => Promise<void>): void => {
  let stopping = false;
  const handler = () => {
    if (stopping) return;
    stopping = true;
    stop().then(
      () => process.exit(0),
      (err) => {
        process.stderr.write(`${(err as Error)?.stack ?? String(err)}\n`);
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', handler);
  process.once('SIGTERM', handler);
};
