import type { Logger } from 'pino';
import type { ZoneRepository } from '../../core/dns/ports/zone-repository.port.js';
import type { ZonePublisher } from '../../core/dns/zone/zone-service.js';
import type { ChangeFeed } from '../../core/kernel/change-feed.port.js';
import type { Environment } from '../../core/kernel/environment.js';

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

  constructor(
    private readonly zones: ZoneRepository,
    private readonly target: ZonePublisher,
    private readonly log: Logger,
    private readonly only?: Environment,
  ) {}

  /** Publishes every zone whose version changed since the last call, withdraws the ones gone. */
  async load(): Promise<number> {
    const chosen = new Map<string, { id: string; environment: string; serial: number }>();
    for (const v of await this.zones.versions()) {
      if (this.only && v.environment !== this.only) continue;
      const have = chosen.get(v.domain);
      if (!have || (have.environment === 'test' && v.environment === 'live')) chosen.set(v.domain, v);
    }
    for (const [domain, v] of chosen) {
      const was = this.served.get(domain);
      if (!was || was.id !== v.id || was.serial !== v.serial) {
        const zone = await this.zones.findById(v.id);
        if (!zone) continue;
        await this.target.publish(zone);
        this.served.set(domain, { id: zone.id, serial: zone.serial });
      }
    }
    for (const domain of [...this.served.keys()]) {
      if (!chosen.has(domain)) {
        await this.target.withdraw(domain);
        this.served.delete(domain);
      }
    }
    return chosen.size;
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
