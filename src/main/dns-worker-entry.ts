import { fileURLToPath } from 'node:url';

/** The script a DNS cluster worker runs (src/main/dns-worker.ts). */
export const DNS_WORKER_ENTRY = fileURLToPath(new URL('./dns-worker.ts', import.meta.url));
