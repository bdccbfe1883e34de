import type { Logger } from 'pino';
import type { ZoneRepository } from '../core/dns/ports/zone-repository.port.js';
import type { ZonePublisher } from '../core/dns/zone-service.js';
import type { StoredZone } from '../core/dns/zone.js';

/**
 * Keeps a nameserver in step with the store: loads every zone at start, then polls the zones' serials
 * and publishes what changed — zones changed by other processes (the worker, other API processes)
 * included. Changes made in this process are published at once by ZoneService; this is the backstop.
 * Where a name exists in both environments, the live zone is served.
 */
export class ZoneSync {
  private readonly served = new Map<string, { id: string; serial: number }>();
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly zones: ZoneRepository, private readonly target: ZonePublisher, private readonly log: Logger) {}

  async load(): Promise<number> {
    const all = await this.zones.all();
    const chosen = new Map<string, StoredZone>();
    for (const z of all) {
      const have = chosen.get(z.domain);
      if (!have || (have.environment === 'test' && z.environment === 'live')) chosen.set(z.domain, z);
    }
    for (const [domain, z] of chosen) {
      const was = this.served.get(domain);
      if (!was || was.id !== z.id || was.serial !== z.serial) {
        await this.target.publish(z);
        this.served.set(domain, { id: z.id, serial: z.serial });
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

  start(intervalMs = 2000): void {
    this.timer = setInterval(() => void this.load().catch((err) => this.log.error({ err }, 'zone sync failed')), intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }
}
