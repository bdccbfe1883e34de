import type { ZonePublisher } from '../../core/dns/zone/zone-service.js';
import type { Zone } from '../../core/dns/zone/zone.js';

/**
 * Forwards zone changes to the nameservers running in this process (the embedded server under
 * `npm start`; none in `sandbox:key` or the worker). Changes made by other processes reach them
 * through ZoneSync, which polls the zones' serials.
 */
export class ZonePublisherHub implements ZonePublisher {
  private readonly targets: ZonePublisher[] = [];

  /** Whether a nameserver runs in this process (a publish then resolves once it serves the change). */
  get serving(): boolean {
    return this.targets.length > 0;
  }

  attach(target: ZonePublisher): void {
    this.targets.push(target);
  }

  async publish(zone: Zone): Promise<void> {
    await Promise.all(this.targets.map((t) => t.publish(zone)));
  }

  async withdraw(domain: string): Promise<void> {
    await Promise.all(this.targets.map((t) => t.withdraw(domain)));
  }
}
