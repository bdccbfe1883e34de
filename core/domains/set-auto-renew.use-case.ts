import type { ApiKey } from '../kernel/caller.js';
import type { EventLog } from '../kernel/event-log.port.js';
import type { Clock } from '../kernel/clock.port.js';
import { normalizeDomain } from '../kernel/domain-name.js';
import { DomainError } from '../kernel/errors.js';
import type { Random } from '../kernel/random.port.js';
import type { UnitOfWork } from '../kernel/unit-of-work.port.js';
import { viewDomain, type DomainView } from './domain.js';
import type { DomainRepository } from './ports/domain-repository.port.js';

/** PATCH /v1/domains/{domain} {auto_renew} (domain.renew, class 2: it commits future spending). */
export class SetAutoRenew {
  constructor(
    private readonly domains: DomainRepository,
    private readonly events: EventLog,
    private readonly random: Random,
    private readonly clock: Clock,
    private readonly uow: UnitOfWork,
  ) {}

  /** One transaction: the domain is read there (fresh, and locked on Postgres), so the whole-row update cannot undo a renewal that just committed. */
  execute(key: ApiKey, domainName: string, autoRenew: boolean): Promise<DomainView> {
    return this.uow.transaction(() => this.run(key, domainName, autoRenew));
  }

  private async run(key: ApiKey, domainName: string, autoRenew: boolean): Promise<DomainView> {
    const name = normalizeDomain(domainName);
    const domain = await this.domains.find(key.accountId, key.environment, name);
    if (!domain) throw new DomainError('domain_not_found', { domain: name });
    if (domain.autoRenew === autoRenew) return viewDomain(domain);
    const updated = { ...domain, autoRenew, autoRenewFailedFor: null };
    const now = this.clock.now();
    await this.domains.update(updated);
    await this.events.append({
      id: this.random.id(), accountId: key.accountId, environment: key.environment, type: 'domain.auto_renew_changed',
      subject: `domain:${name}`, actor: `key:${key.id}`, occurredAt: now, data: { domain: name, auto_renew: autoRenew },
    });
    return viewDomain(updated);
  }
}
