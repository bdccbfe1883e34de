import pino from 'pino';
import { loadConfig } from '../config.js';
import { serveDns } from '../dns-server.js';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { DnsMetrics } from '../../adapters/metrics/index.js';
import { SqlDnsStore } from '../../adapters/sql/dns-store.js';
import { remoteSignedUseCases } from '../../adapters/dns/signed-ipc.js';
import { answerScrapes } from '../metrics.js';

/**
 * One DNS worker of `npm start` when DNS_WORKERS > 1 (node:cluster). Each worker binds its own UDP
 * socket on DNS_PORT with SO_REUSEPORT (the udp_batch addon; the kernel spreads senders among the
 * workers), and shares the TCP listener that the cluster primary — the API process — binds. Without the
 * addon, or with DNS_PORT=0, the workers share one UDP socket bound by the primary instead. Each worker
 * serves every zone from the store, kept in step by ZoneSync; the primary asks for a sync after each
 * change and waits for every worker's answer. Only worker 0 sends NOTIFY, and the primary syncs it
 * last, so a secondary that hears NOTIFY finds the new serial on whichever worker answers.
 *
 * A worker loads no core: it reads zones, signatures and the change feed (SqlDnsStore). DNS UPDATE and
 * signed messages are verified and answered here, but what the core decides for them (the key, the
 * credential limiter, the replay claim, the key's rate limit, the UPDATE, a transfer's authorisation) is
 * asked of the primary (adapters/dns/signed-ipc.ts), which applies an UPDATE once, publishes it to every
 * worker and only then answers; a primary that is gone or silent makes it SERVFAIL.
 *
 * Once its code is loaded a worker says {type: 'loaded'} and serves only when the primary answers
 * {type: 'start'} (the store is migrated): `npm start` forks its workers first thing (src/main/server.ts),
 * so they load their code while the primary loads its own. A store that exists already (a restart) is read
 * meanwhile, and what was read is kept unless a migration came before the start (the store's migration
 * mark then differs), and brought up to date then; a new store is read once the primary says start.
 */
const config = loadConfig();
const index = Number(process.env.DOMIVKA_DNS_WORKER ?? '0');
const log = pino({ level: config.logLevel }).child({ component: 'dns', worker: index });

// This worker's metrics, summed into the primary's /metrics at each scrape.
const registry = new Registry();
collectDefaultMetrics({ register: registry });
const observer = new DnsMetrics(registry);
answerScrapes(registry, () => []);

/** Whether this worker replaces one that died (the cluster serves meanwhile), or is one of its start. */
const restart = process.env.DOMIVKA_DNS_RESTART === '1';

/** Resolves when the primary says {type: 'start'}: the store is migrated (and the signer has run). */
const started = new Promise<void>((resolve) => {
  const onStart = (m: { type?: string }): void => {
    if (m?.type !== 'start') return;
    process.off('message', onStart);
    resolve();
  };
  process.on('message', onStart);
});

const main = async () => {
  const store = new SqlDnsStore({ url: config.databaseUrl, ...(config.databaseSchema ? { schema: config.databaseSchema } : {}) });
  // The zones are read at once when the store exists, while the primary loads its code and migrates; what
  // was read stands if no migration came in between (the same mark after the start), else it is read again.
  const before = await store.schemaMark();
  if (before === null) await started;
  const hold = async (): Promise<boolean> => {
    await started;
    return (await store.schemaMark()) === before;
  };
  const dns = await serveDns({
    config,
    zones: store.zones,
    signatures: store.signatures,
    changes: store.changes,
    log,
    workerIndex: index,
    restart,
    ...(before !== null ? { hold } : {}),
    observer,
    ...(process.env.DOMIVKA_DNS_SIGNED === '1' ? { signed: remoteSignedUseCases(process as never) } : {}),
  });
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
    void dns.stop(config.shutdownTimeoutMs).finally(() => store.close().finally(() => process.exit(0)));
  });
  process.send?.({ type: 'ready' });
};

process.send?.({ type: 'loaded' });
main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
