import pino from 'pino';
import { SqlStore } from '../../adapters/sql/index.js';
import { loadConfig } from '../config.js';
import { DNS_WORKER_ENTRY } from './dns-worker-entry.js';
import { serveDns } from '../dns-server.js';
import { onShutdown, runMain } from './process.js';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { DnsMetrics } from '../../adapters/metrics/index.js';
import { answerScrapes } from '../metrics.js';
import { TOKENS } from '../tokens.js';
import type { SignedDnsUseCases } from '../../adapters/dns/update/signed-messages.js';
import type { ZonePublisher } from '../../core/dns/zone/zone-service.js';

/**
 * The DNS process of `npm run cluster`: the one embedded DNS server set of the whole cluster —
 * the hidden primary that Knot/NSD secondaries transfer from and that NOTIFYs them (DNS_SECONDARIES).
 * It serves every zone from the store and follows every zone change of every process through the change
 * feed (LISTEN/NOTIFY on Postgres, the polled change log on SQLite), with ZoneSync's 2 s poll as the
 * backstop. DNS_WORKERS > 1 runs that many DNS workers (src/main/dns-worker.ts), each following the feed.
 * Tells its parent {type: 'ready'} once it serves.
 */
/** Our module on demand: import() as ES modules; require where tsx runs this as CommonJS (one copy of core/ and the tokens). */
const loadOwn = async <M>(specifier: string, load: () => Promise<M>): Promise<M> =>
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  typeof __filename === 'string' ? (require(specifier) as M) : load();

const main = async () => {
  const config = loadConfig();
  const log = pino({ level: config.logLevel }).child({ component: 'dns-primary' });
  const store = new SqlStore({ url: config.databaseUrl, ...(config.databaseSchema ? { schema: config.databaseSchema } : {}) });
  // Metrics: this process's and its DNS workers', summed and handed to the cluster supervisor's /metrics.
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const observer = new DnsMetrics(registry);
  answerScrapes(registry);
  // The core for its DNS workers' signed messages, loaded on the first one; a message that comes while the
  // workers are still starting waits for the publisher they make (declared before serveDns, which may call it).
  let served!: (publisher: ZonePublisher) => void;
  const publisher = new Promise<ZonePublisher>((resolve) => (served = resolve));
  let system: Promise<{ signedDns(): SignedDnsUseCases; close(): Promise<void> }> | null = null;
  const signedUseCases = async (): Promise<SignedDnsUseCases> => {
    system ??= loadOwn('../system.js', () => import('../system.js'))
      .then(async ({ System }) => {
        const s = await System.create(config, { logger: log.child({ component: 'dns-update' }) });
        s.get(TOKENS.ZonePublisher).attach(await publisher);
        return s;
      })
      .catch((err: unknown) => {
        system = null; // tried again by the next signed message
        throw err;
      });
    return (await system).signedDns();
  };
  const dns = await serveDns({
    config,
    zones: store.zones,
    signatures: store.signatures,
    changes: store.changes,
    log,
    workerEntry: DNS_WORKER_ENTRY,
    observer,
    // Its DNS workers' UPDATEs and signed messages: the core, loaded on the first such message (this process
    // serves none itself, as before); an UPDATE it applies is published to every worker before its answer.
    ...(config.dnsWorkers > 1 ? { signed: () => signedUseCases() } : {}),
  });
  served(dns.publisher);
  await store.changes.start();
  onShutdown(async () => {
    await dns.stop(config.shutdownTimeoutMs);
    await system?.then(
      (s) => s.close(),
      () => undefined, // a core that never loaded has nothing to close
    );
    await store.close();
  });
  log.info({ host: config.dnsHost, port: config.dnsPort, workers: config.dnsWorkers }, 'DNS hidden primary serving');
  process.send?.({ type: 'ready' });
};

runMain(main);
