import { join } from 'node:path';
import type { Logger } from 'pino';
import { DnsCluster, type HeldDnsWorkers } from '../adapters/dns/cluster.js';
import { EmbeddedNameserver, type EmbeddedNameserverConfig } from '../adapters/dns/embedded/index.js';
import type { CatalogVersion } from '../adapters/dns/catalog.js';
import { ZoneSync } from '../adapters/dns/zone-sync.js';
import { ZoneSnapshot } from '../adapters/dns/zone-snapshot.js';
import { forgetCheckedValues } from '../adapters/dns/embedded/compiled-zone.js';
import { AesGcmSecretBox } from '../adapters/crypto/node/index.js';
import { SignPool } from '../adapters/dns/embedded/sign-pool.js';
import { ZoneSignatures } from '../adapters/dns/embedded/zone-signatures.js';
import type { ZoneSignatureRepository } from '../core/dns/ports/zone-signature-repository.port.js';
import type { ZoneRepository } from '../core/dns/ports/zone-repository.port.js';
import type { ZonePublisher } from '../core/dns/zone/zone-service.js';
import type { ChangeFeed } from '../core/kernel/change-feed.port.js';
import type { Environment } from '../core/kernel/environment.js';
import type { DnsObserver } from '../adapters/dns/embedded/observer.js';
import type { Config } from './config.js';
import { SignedMessages, type SignedDnsUseCases } from '../adapters/dns/update/signed-messages.js';
import { servfailOnError } from '../adapters/dns/signed-ipc.js';
import { compactHeap } from './heap.js';

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
  /** The RRSIGs of signed zones: written by the one signer, read by every DNS server (README "DNSSEC: one signer"). */
  readonly signatures: ZoneSignatureRepository;
  readonly changes: ChangeFeed;
  readonly log: Logger;
  /** The script a cluster worker runs; needed when DNS_WORKERS > 1 and this is not a worker. */
  readonly workerEntry?: string;
  /** The cluster's workers, forked earlier and holding (forkDnsWorkers): adopted instead of forking new ones. */
  readonly heldWorkers?: HeldDnsWorkers;
  /** Set in a cluster worker: its index (worker 0 alone NOTIFYs the secondaries). */
  readonly workerIndex?: number;
  /**
   * A cluster worker that replaces one that died, the others serving meanwhile: it does everything before it
   * serves (the snapshot written, the heap compacted), since no start waits for it — answering late for a
   * moment would only lose queries the kernel gives its new socket.
   */
  readonly restart?: boolean;
  /**
   * A cluster worker that loads its zones before the store is known to be migrated (src/main/dns-worker.ts):
   * it loads at once, then waits for `hold` — true when what it read stands (no migration since), false to
   * load again from nothing — and serves once up to date.
   */
  readonly hold?: () => Promise<boolean>;
  /** Test and bench overrides of the embedded server's settings (ports, answer cache…). */
  readonly overrides?: Partial<EmbeddedNameserverConfig>;
  /** Counts what the server(s) of this process serve (metrics). */
  readonly observer?: DnsObserver;
  /**
   * DNS UPDATE and TSIG-signed messages: the core use cases they reach (without them, UPDATE is not served),
   * or how to load them on the first message. In a cluster the primary answers them for every worker.
   */
  readonly signed?: SignedDnsUseCases | (() => Promise<SignedDnsUseCases>);
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
    // This process is the signer of the cluster: it signs every new version of a signed zone and stores the
    // signatures before any worker is asked to serve it; the workers never open a private key.
    const signer = startSigner(o);
    await signer.load();
    const cluster = new DnsCluster({
      workers: config.dnsWorkers,
      workerEntry: o.workerEntry,
      log: log.child({ component: 'dns-cluster' }),
      beforeSync: signer.load,
      ...(o.signed ? { signed: o.signed } : {}),
      ...(o.heldWorkers ? { held: o.heldWorkers } : {}),
    });
    await cluster.start();
    return {
      publisher: cluster,
      shape: `${config.dnsWorkers} workers`,
      resync: () => cluster.resync(),
      stop: async () => {
        signer.stop();
        await cluster.stop();
        await signPool.close();
      },
    };
  }
  const worker = o.workerIndex;
  if (typeof o.signed === 'function') throw new Error('serveDns: use cases loaded on demand are for a cluster primary');
  const signed = o.signed;
  // One process alone serves (no cluster): it is the signer, opens the sealed keys and stores what it signs.
  // A cluster worker is not: it serves the signatures its primary stored.
  const openKey = worker === undefined ? opener(config) : null;
  /** One server and the ZoneSync that keeps it in step (not loaded yet, not serving). */
  const build = (port: number, only: Environment | undefined, secondaries: boolean, axfrAllow: readonly string[]) => {
    // The catalog (RFC 9432) goes with the server the secondaries transfer from: never the sandbox's.
    const catalogName = secondaries ? config.dnsCatalogZone : null;
    const dns = new EmbeddedNameserver({
      host: config.dnsHost,
      port,
      axfrAllow: [...axfrAllow],
      secondaries: secondaries && (worker === undefined || worker === 0) ? [...config.dnsSecondaries] : [],
      logger: log,
      signatures: o.signatures,
      ...(openKey ? { openKey, bulkSigner: signPool.sign } : {}),
      ...(config.dnsNsid ? { nsid: config.dnsNsid } : {}),
      ...(config.dnsRrl ? { rrl: config.dnsRrl } : {}),
      // The catalog built and compiled when a secondary asks for it, not in the way of a start (publishCatalog).
      ...(catalogName ? { catalog: catalogName } : {}),
      // Worker 0 NOTIFYs after the cluster primary has synced the other workers (adapters/dns/cluster.ts),
      // then checks each secondary's serial, NOTIFYing again while it is behind.
      ...(worker !== undefined ? { notify: { verifyMs: 250 }, reusePort: true } : {}),
      ...o.overrides,
    });
    if (o.observer) dns.observe(o.observer);
    if (signed) {
      const signedLog = log.child({ component: 'dns-update' });
      dns.acceptSigned(servfailOnError(new SignedMessages(signed, { serves: only ?? null, log: signedLog }), signedLog));
    }
    // The zones held as texts, kept for the next start (README, How it behaves); written by cluster worker 0
    // alone. (A server alone in its process is also published to directly by ZoneService, in either
    // environment: what it holds for a name is not always the version ZoneSync served, so it never writes.)
    const snapshot = new ZoneSnapshot(join(config.varDir, `dns-zones-${only ?? 'all'}.snapshot`));
    const catalog = catalogName ? { name: catalogName, version: o.zones, holder: dns } : null;
    const sync = new ZoneSync(o.zones, dns, log.child({ component: 'zone-sync', ...(only ? { environment: only } : {}) }), {
      ...(only ? { only } : {}),
      catalog,
      bases: dns,
      snapshot: { file: snapshot, texts: dns, write: worker === 0 },
      early: () => holding,
    });
    return { dns, sync };
  };
  type Built = ReturnType<typeof build>;
  /** Whether the servers are loading before the start (`o.hold`): see ZoneSyncOptions.early. */
  let holding = false;
  /** Every zone loaded into each server (a compaction after, for a cluster worker that serves nothing else). */
  const loadAll = async (servers: readonly Built[]): Promise<void> => {
    for (const { sync } of servers) await sync.load();
    forgetCheckedValues();
    // A cluster worker serves nothing else: the pages its first load's garbage took go back before it serves.
    if (worker !== undefined) compactHeap();
  };
  /** The servers built, loaded and serving: loaded early while `o.hold` holds them, or loaded now. */
  const serveAll = async (
    shapes: ReadonlyArray<Parameters<typeof build>>,
    hold: (() => Promise<boolean>) | undefined,
  ): Promise<Built[]> => {
    let servers = shapes.map((s) => build(...s));
    if (hold) {
      holding = true;
      // Loaded before the store is known to be migrated: kept if no migration came since (hold() says), and
      // brought up to date with what changed meanwhile (the seed, the signer's signatures) by one more load.
      const early = await loadAll(servers).then(
        () => null,
        (err: unknown) => err,
      );
      const stands = await hold().finally(() => (holding = false));
      if (early === null && stands) {
        for (const { sync } of servers) await sync.load();
        log.info('zones read before the start kept');
      } else {
        log.info(
          { reason: early === null ? 'a migration came' : 'the read failed', ...(early !== null ? { err: early } : {}) },
          'zones read again at the start',
        );
        for (const { sync } of servers) sync.stop();
        servers = shapes.map((s) => build(...s));
        await loadAll(servers);
      }
    } else await loadAll(servers);
    for (const { dns, sync } of servers) {
      // Worker 0 writes the snapshot when the load changed what it holds: a replacement worker before it serves
      // (no start waits for it; answering late would only lose queries), one of the start's once it serves.
      if (o.restart && (await sync.flushSnapshot())) compactHeap();
      await dns.start();
      if (worker !== undefined && !o.restart) void sync.flushSnapshot().then((wrote) => wrote && compactHeap());
      sync.start();
      sync.follow(o.changes); // every zone change of any process, within a second
    }
    return servers;
  };
  // Development: one server for both environments on DNS_PORT (the tour digs sandbox zones there).
  if (!config.sandboxDns) {
    const [{ dns, sync }] = (await serveAll([[config.dnsPort, undefined, true, config.axfrAllow]], o.hold)) as [Built];
    return {
      publisher: dns,
      shape: '1 process',
      resync: () => sync.kick(),
      stop: async (graceMs?: number) => {
        sync.stop();
        await dns.stop(graceMs);
      },
    };
  }
  // Production: live zones alone on DNS_PORT (transferred to and NOTIFYed to the secondaries); sandbox
  // zones on SANDBOX_DNS_PORT, which no secondary is told of and which transfers nothing.
  const [live, sandbox] = (await serveAll(
    [
      [config.dnsPort, 'live', true, config.axfrAllow],
      [config.sandboxDns.port, 'test', false, []],
    ],
    o.hold,
  )) as [Built, Built];
  // A change is served once each server has re-read the store (as the DNS cluster does): which
  // server a zone belongs to is the stored zone's environment, and a name may be in both.
  const both = async (): Promise<void> => {
    await Promise.all([live.sync.kick(), sandbox.sync.kick()]);
  };
  const publisher: ZonePublisher = { publish: both, withdraw: both };
  return {
    publisher,
    shape: '1 process',
    resync: () => Promise.all([live.sync.kick(), sandbox.sync.kick()]),
    stop: async (graceMs?: number) => {
      live.sync.stop();
      sandbox.sync.stop();
      await Promise.all([live.dns.stop(graceMs), sandbox.dns.stop(graceMs)]);
      await signPool.close();
    },
  };
};

/** Bulk signing on worker threads, shared by the signers of this process. */
const signPool = new SignPool();

/** Opens the sealed DNSSEC keys: the signer's alone. */
const opener = (config: Config): ((sealed: string) => string) => {
  const box = new AesGcmSecretBox(config.dataKey);
  return (sealed) => box.open(sealed);
};

/**
 * The signer of a DNS cluster (README "DNSSEC: one signer"): a ZoneSync over every zone — both
 * environments, as the workers serve them — that compiles each new version of a signed zone, signs what no
 * stored signature covers and stores it, serving nothing. It follows the change feed like the workers; its
 * writes are announced, so a worker that found a version not yet signed loads it once it is.
 */
const startSigner = (o: DnsServingOptions): { load: () => Promise<void>; stop: () => void } => {
  const log = o.log.child({ component: 'dnssec-signer' });
  const environments: Array<Environment | undefined> = o.config.sandboxDns ? ['live', 'test'] : [undefined];
  // One signer state per environment: a name may have a signed zone in each, and their signature caches and
  // incremental bases (held by name) must never mix. Signed zones alone; each brought up to date from the
  // change log when its last version is held (ZoneSync).
  const syncs = environments.map((only) => {
    const signatures = new ZoneSignatures(o.signatures, opener(o.config), signPool.sign);
    const publisher: ZonePublisher = {
      publish: async (zone) => {
        if (!zone.signing) return signatures.forget(zone.domain);
        await signatures.compile(zone, () => undefined); // a set that cannot be encoded is the workers' to report
      },
      withdraw: async (domain) => signatures.forget(domain),
    };
    return new ZoneSync(o.zones, publisher, log, { ...(only ? { only } : {}), bases: signatures, signedOnly: true });
  });
  for (const s of syncs) {
    s.start();
    s.follow(o.changes);
  }
  return {
    load: async () => {
      await Promise.all(syncs.map((s) => s.kick()));
    },
    stop: () => syncs.forEach((s) => s.stop()),
  };
};
