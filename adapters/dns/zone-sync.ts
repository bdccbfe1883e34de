import type { Logger } from 'pino';
import type { ZoneRepository } from '../../core/dns/ports/zone-repository.port.js';
import type { ZonePublisher } from '../../core/dns/zone/zone-service.js';
import type { ChangeFeed } from '../../core/kernel/change-feed.port.js';
import { catalogZone, type CatalogVersion } from './catalog.js';

/** The catalog zone (RFC 9432) this server offers its secondaries, and where its version is kept. */
export interface CatalogOptions {
  readonly name: string;
  readonly version: CatalogVersion;
}
import type { Environment } from '../../core/kernel/environment.js';

/** What a ZoneSync serves: one environment's zones alone (`only`), and the catalog zone, if any. */
export interface ZoneSyncOptions {
  readonly only?: Environment;
  readonly catalog?: CatalogOptions | null;
}

/**
 * Keeps a nameserver in step with the store: loads every zone at start, then polls the zones' serials
 * and publishes what changed — zones changed by other processes (the worker, other API processes)
 * included. Changes made in this process are published at once by ZoneService; this is the backstop.
 * Where a name exists in both environments, the live zone is served. With `only`, the zones of that
 * environment alone (production serves sandbox zones on a port of their own).
 */
export class ZoneSync {
  private readonly served = new Map<string, { id: string; serial: number }>();
  private timer: NodeJS.Timeout | null = null;
  /** The catalog serial served, and the members it listed. */
  private catalogServed: { serial: number } | null = null;

  constructor(
    private readonly zones: ZoneRepository,
    private readonly target: ZonePublisher,
    private readonly log: Logger,
    private readonly options: ZoneSyncOptions = {},
  ) {}

  /** Publishes every zone whose version changed since the last call, withdraws the ones gone. */
  async load(): Promise<number> {
    const { versions, catalogSerial } = await this.readVersions();
    const chosen = new Map<string, { id: string; environment: string; serial: number }>();
    for (const v of versions) {
      if (this.options.only && v.environment !== this.options.only) continue;
      // A hosted zone not yet verified is stored, never answered, transferred or NOTIFYed.
      if (!v.served) continue;
      const have = chosen.get(v.domain);
      if (!have || (have.environment === 'test' && v.environment === 'live')) chosen.set(v.domain, v);
    }
    for (const [domain, v] of chosen) {
      const was = this.served.get(domain);
      if (!was || was.id !== v.id || was.serial !== v.serial) {
        const zone = await this.zones.findById(v.id);
        if (!zone || zone.served === false) continue;
        try {
          await this.target.publish(zone);
        } catch (err) {
          // One zone that cannot be served (a signed zone whose key cannot be opened, say) keeps its last
          // version and is tried again next load; it must not hold back every zone after it. A version whose
          // signatures the signer has not stored yet is loaded when the signer's write is announced.
          if ((err as Error)?.name === 'SignaturesPending')
            this.log.debug({ zone: domain, serial: zone.serial }, 'zone signatures pending');
          else this.log.error({ err, zone: domain, serial: zone.serial }, 'zone not published');
          continue;
        }
        this.served.set(domain, { id: zone.id, serial: zone.serial });
      }
    }
    for (const domain of [...this.served.keys()]) {
      if (!chosen.has(domain)) {
        await this.target.withdraw(domain);
        this.served.delete(domain);
      }
    }
    if (catalogSerial !== null) await this.publishCatalog(catalogSerial, [...chosen.keys()]);
    return chosen.size;
  }

  /**
   * The zones' versions and, with a catalog, the catalog serial they belong to: the serial is read before
   * and after the list, and the list read again if a zone was added or removed in between, so a catalog
   * serial is never served with two different member lists (by two workers, or one worker twice).
   */
  private async readVersions(): Promise<{ versions: Awaited<ReturnType<ZoneRepository['versions']>>; catalogSerial: number | null }> {
    if (!this.options.catalog) return { versions: await this.zones.versions(), catalogSerial: null };
    for (let attempt = 0; ; attempt++) {
      const before = await this.options.catalog.version.catalogSerial();
      const versions = await this.zones.versions();
      const after = await this.options.catalog.version.catalogSerial();
      if (before === after || attempt >= 4) return { versions, catalogSerial: before === after ? after : null };
    }
  }

  /** Serves the catalog of the zones just read under its serial, once per serial. */
  private async publishCatalog(serial: number, members: string[]): Promise<void> {
    if (!this.options.catalog || this.catalogServed?.serial === serial) return;
    const name = this.options.catalog.name.toLowerCase().replace(/\.$/, '');
    await this.target.publish(
      catalogZone(
        name,
        serial,
        members.filter((m) => m !== name),
      ),
    );
    this.catalogServed = { serial };
  }

  private running: Promise<void> | null = null;
  private again = false;

  /**
   * Loads at once when any process announces a zone change (or the feed reconnected), instead
   * of waiting for the next poll; loads never overlap (one more runs after the current one if asked).
   */
  follow(feed: ChangeFeed): () => void {
    void feed.start();
    return feed.subscribe((c) => {
      if (c === null || c.topic === 'zone') this.kick();
    });
  }

  /** A load now, or right after the one running. Resolves once a load that began after the call is done. */
  kick(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      try {
        do {
          this.again = false;
          await this.load().catch((err) => this.log.error({ err }, 'zone sync failed'));
        } while (this.again);
      } finally {
        this.running = null;
      }
    })();
    return this.running;
  }

  start(intervalMs = 2000): void {
    this.timer = setInterval(() => void this.load().catch((err) => this.log.error({ err }, 'zone sync failed')), intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }
}
