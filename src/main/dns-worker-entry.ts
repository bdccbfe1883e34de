import { fileURLToPath } from 'node:url';

/**
 * A sibling entry point of this file, with this file's own extension: `.js` when running compiled from
 * dist/ (npm start), `.ts` when tests run the sources through tsx. A forked process inherits how its
 * parent loads code, so each must be given the file kind its parent can run.
 */
export const siblingEntry = (name: string): string =>
  fileURLToPath(new URL(`./${name}.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`, import.meta.url));

/** The script a DNS cluster worker runs (src/main/dns-worker.ts). */
export const DNS_WORKER_ENTRY = siblingEntry('dns-worker');
