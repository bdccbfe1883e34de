import type { EventRecorder } from '../kernel/event-log.port.js';
import type { Clock } from '../kernel/clock.port.js';
import type { Environment } from '../kernel/environment.js';
import { isHosted } from './domain.js';
import type { DomainRepository } from './ports/domain-repository.port.js';
import type { DomainZones } from './ports/zones.port.js';

/**
 * A domain registered through us always wins (DESIGN: hosted domains): when a name is registered here, every
 * other account's hosted claim of it leaves with its zone, in the registration's transaction; their owners
 * are told (domain.hosting_deleted, reason registered_here).
 */
export class DisplaceHosted {
  constructor(
    private readonly deps: {
      readonly domains: Pick<DomainRepository, 'holdersOf' | 'remove'>;
      readonly zones: Pick<DomainZones, 'remove'>;
      readonly events: EventRecorder;
      readonly clock: Clock;
    },
  ) {}

  async execute(environment: Environment, name: string, winner: string): Promise<number> {
    let n = 0;
    for (const d of await this.deps.domains.holdersOf(environment, name)) {
      if (d.accountId === winner || !isHosted(d)) continue;
      await this.deps.zones.remove(d.accountId, environment, name);
      await this.deps.domains.remove(d.id);
      await this.deps.events.record(
        'domain.hosting_deleted',
        { accountId: d.accountId, environment, subject: `domain:${name}`, actor: 'system:registration', occurredAt: this.deps.clock.now() },
        { domain: name, reason: 'registered_here' },
      );
      n++;
    }
    return n;
  }
}
