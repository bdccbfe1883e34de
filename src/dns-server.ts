import type { Logger } from 'pino';
import { DnsCluster } from '../adapters/dns/cluster.js';
import { EmbeddedNameserver, type EmbeddedNameserverConfig } from '../adapters/dns/embedded/index.js';
import type { CatalogVersion } from '../adapters/dns/catalog.js';
import { ZoneSync } from '../adapters/dns/zone-sync.js';
import { AesGcmSecretBox } from '../adapters/crypto/node/index.js';
import type { ZoneRepository } from '../core/dns/ports/zone-repository.port.js';
import type { ZonePublisher } from '../core/dns/zone/zone-service.js';
import type { ChangeFeed } from '../core/kernel/change-feed.port.js';
import type { Environment } from '../core/kernel/environment.js';
import type { DnsObserver } from '../adapters/dns/embedded/observer.js';
import type { Config } from './config.js';
import { SignedMessages, type SignedDnsUseCases } from '../adapters/dns/update/signed-messages.js';

/** A running DNS server: where zone changes are published, and how to stop it. */
export interface DnsServing {
  readonly publisher: ZonePublisher;
  /** "1 process" or "N workers", for the start-up banner. */
  readonly shape: string;
  /** Loads every zone whose version changed now (the cluster primary asks its workers for this). */
  resync(): Promise<unknown>;
  /** Stops serving; `graceMs` lets TCP connections (transfers in flight) take what was written to them first. */
  stop(graceMs?: number): Promise<void>;
}

export interface DnsServingOptions {
  readonly config: Config;
  /** The zones, and the catalog zone's version beside them. */
  readonly zones: ZoneRepository & CatalogVersion;
  readonly changes: ChangeFeed;
  readonly log: Logger;
  /** The script a cluster worker runs; needed when DNS_WORKERS > 1 and this is not a worker. */
  readonly workerEntry?: string;
  /** Set in a cluster worker: its index (worker 0 alone NOTIFYs the secondaries). */
  readonly workerIndex?: number;
  /** Test and bench overrides of the embedded server's settings (ports, answer cache…). */
  readonly overrides?: Partial<EmbeddedNameserverConfig>;
  /** Counts what the server(s) of this process serve (metrics). */
  readonly observer?: DnsObserver;
  /** DNS UPDATE and TSIG-signed messages: the core use cases they reach (without them, UPDATE is not served). */
  readonly signed?: SignedDnsUseCases;
}

/**
 * The one way a process serves DNS from the store: DNS_WORKERS > 1 runs a cluster of workers (each
 * calls this again with its index); otherwise one embedded server in this process, loaded with every
 * zone and kept in step by ZoneSync (its poll, plus the change feed for other processes' writes).
 */
export const serveDns = async (o: DnsServingOptions): Promise<DnsServing> => {
  const { config, log } = o;
  if (o.workerIndex === undefined && config.dnsWorkers > 1) {
    if (!o.workerEntry) throw new Error('serveDns: DNS_WORKERS > 1 needs the worker entry point');
    const cluster = new DnsCluster({
      workers: config.dnsWorkers,
      workerEntry: o.workerEntry,
      log: log.child({ component: 'dns-cluster' }),
    });
    await cluster.start();
    return { publisher: cluster, shape: `${config.dnsWorkers} workers`, resync: () => cluster.resync(), stop: () => cluster.stop() };
  }
  const worker = o.workerIndex;
  // Signed zones carry their keys sealed; the server opens them to sign when it compiles a zone.
  const box = new AesGcmSecretBox(config.dataKey);
  const openKey = (sealed: string): string => box.open(sealed);
  const one = async (port: number, only: Environment | undefined, secondaries: boolean, axfrAllow: readonly string[]) => {
    const dns = new EmbeddedNameserver({
      host: config.dnsHost,
      port,
      axfrAllow: [...axfrAllow],
      secondaries: secondaries && (worker === undefined || worker === 0) ? [...config.dnsSecondaries] : [],
      logger: log,
      openKey,
      ...(config.dnsNsid ? { nsid: config.dnsNsid } : {}),
      ...(config.dnsRrl ? { rrl: config.dnsRrl } : {}),
      // Worker 0 NOTIFYs after the cluster primary has synced the other workers (adapters/dns/cluster.ts),
      // then checks each secondary's serial, NOTIFYing again while it is behind.
      ...(worker !== undefined ? { notify: { verifyMs: 250 }, reusePort: true } : {}),
      ...o.overrides,
    });
    if (o.observer) dns.observe(o.observer);
    if (o.signed) dns.acceptSigned(new SignedMessages(o.signed, { serves: only ?? null, log: log.child({ component: 'dns-update' }) }));
    // The catalog (RFC 9432) goes with the server the secondaries transfer from: never the sandbox's.
    const catalog = secondaries && config.dnsCatalogZone ? { name: config.dnsCatalogZone, version: o.zones } : null;
    const sync = new ZoneSync(o.zones, dns, log.child({ component: 'zone-sync', ...(only ? { environment: only } : {}) }), {
      ...(only ? { only } : {}),
      catalog,
    });
    await sync.load();
    await dns.start();
    sync.start();
    sync.follow(o.changes); // every zone change of any process, within a second
    return { dns, sync };
  };
  // Development: one server for both environments on DNS_PORT (the tour digs sandbox zones there).
  if (!config.sandboxDns) {
    const { dns, sync } = await one(config.dnsPort, undefined, true, config.axfrAllow);
    return {
      publisher: dns,
      shape: '1 process',
      resync: () => sync.load(),
      stop: async (graceMs?: number) => {
        sync.stop();
        await dns.stop(graceMs);
      },
    };
  }
  // Production: live zones alone on DNS_PORT (transferred to and NOTIFYed to the secondaries); sandbox
  // zones on SANDBOX_DNS_PORT, which no secondary is told of and which transfers nothing.
  const live = await one(config.dnsPort, 'live', true, config.axfrAllow);
  const sandbox = await one(config.sandboxDns.port, 'test', false, []);
  // A change is served once each server has re-read the store (as the DNS cluster does): which
  // server a zone belongs to is the stored zone's environment, and a name may be in both.
  const both = async (): Promise<void> => {
    await Promise.all([live.sync.kick(), sandbox.sync.kick()]);
  };
  const publisher: ZonePublisher = { publish: both, withdraw: both };
  return {
    publisher,
    shape: '1 process',
    resync: () => Promise.all([live.sync.load(), sandbox.sync.load()]),
    stop: async (graceMs?: number) => {
      live.sync.stop();
      sandbox.sync.stop();
      await Promise.all([live.dns.stop(graceMs), sandbox.dns.stop(graceMs)]);
    },
  };
};
