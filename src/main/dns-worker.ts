import pino from 'pino';
import { System } from '../system.js';
import { TOKENS } from '../tokens.js';
import { loadConfig } from '../config.js';
import { serveDns } from '../dns-server.js';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { DnsMetrics } from '../../adapters/metrics/index.js';
import { answerScrapes } from '../metrics.js';

/**
 * One DNS worker of `npm start` when DNS_WORKERS > 1 (node:cluster). Each worker binds its own UDP
 * socket on DNS_PORT with SO_REUSEPORT (the udp_batch addon; the kernel spreads senders among the
 * workers), and shares the TCP listener that the cluster primary — the API process — binds. Without the
 * addon, or with DNS_PORT=0, the workers share one UDP socket bound by the primary instead. Each worker
 * serves every zone from the store, kept in step by ZoneSync; the primary asks for a sync after each
 * change and waits for every worker's answer. Only worker 0 sends NOTIFY, and the primary syncs it
 * last, so a secondary that hears NOTIFY finds the new serial on whichever worker answers. A DNS UPDATE
 * reaching a worker is applied by that worker through the core (one commit in the store, like an API
 * apply); the other workers and the secondaries follow the change feed.
 */
const config = loadConfig();
const index = Number(process.env.DOMIVKA_DNS_WORKER ?? '0');
const log = pino({ level: config.logLevel }).child({ component: 'dns', worker: index });
// The core's use cases for DNS UPDATE and signed messages (the same as the API process's), over this worker's store.
const system = await System.create(config, { logger: log });
const store = system.store;

// This worker's metrics, summed into the primary's /metrics at each scrape.
const registry = new Registry();
collectDefaultMetrics({ register: registry });
const observer = new DnsMetrics(registry);
answerScrapes(registry, () => []);

const main = async () => {
  const dns = await serveDns({
    config,
    zones: store.zones,
    signatures: store.signatures,
    changes: store.changes,
    log,
    workerIndex: index,
    observer,
    signed: system.signedDns(),
  });
  // An UPDATE applied here is published as an API apply is: the cluster primary syncs every worker
  // (worker 0, which NOTIFYs, last) and only then does this worker answer its client.
  let seq = 0;
  const waiting = new Map<number, (error?: string) => void>();
  process.on('message', (m: { type?: string; id?: number; error?: string }) => {
    if (m?.type === 'published' && m.id !== undefined) waiting.get(m.id)?.(m.error);
  });
  const viaPrimary = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const id = ++seq;
      waiting.set(id, (error) => {
        waiting.delete(id);
        if (error) reject(new Error(error));
        else resolve();
      });
      process.send?.({ type: 'publish', id });
    });
  system.get(TOKENS.ZonePublisher).attach({ publish: viaPrimary, withdraw: viaPrimary });
  process.on('message', (m: { type?: string; id?: number }) => {
    if (m?.type !== 'sync') return;
    dns.resync().then(
      () => process.send?.({ type: 'synced', id: m.id }),
      (err: unknown) => {
        log.error({ err }, 'sync failed');
        process.send?.({ type: 'synced', id: m.id, error: String(err) });
      },
    );
  });
  process.once('SIGTERM', () => {
    // Zone transfers in flight finish (within SHUTDOWN_TIMEOUT_MS) before the store closes.
    void dns.stop(config.shutdownTimeoutMs).finally(() => system.close().finally(() => process.exit(0)));
  });
  process.send?.({ type: 'ready' });
};

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
