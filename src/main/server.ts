import { loadConfig } from '../config.js';
import { runMain } from './process.js';
import { DNS_WORKER_ENTRY } from './dns-worker-entry.js';
import { forkDnsWorkers } from '../../adapters/dns/cluster.js';

/**
 * `npm start`: the API, the worker and the DNS server (src/api-process.ts). The DNS workers (DNS_WORKERS > 1)
 * are forked first, before this process loads the rest of its code, so that their start overlaps its own
 * (issue 21); they read the zones of a store that exists meanwhile, and serve once the store is migrated and
 * the API process starts them.
 */
const main = async () => {
  const config = loadConfig();
  // The API process answers the workers' signed messages (DNS UPDATE, TSIG): src/api-process.ts passes them.
  const held = config.runDns && config.dnsWorkers > 1 ? forkDnsWorkers(config.dnsWorkers, DNS_WORKER_ENTRY, true) : undefined;
  const { serveApi } = await import('../api-process.js');
  await serveApi(config, held);
};

runMain(main);
