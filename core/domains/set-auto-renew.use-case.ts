import type { RecordingDeps } from '../kernel/recording-deps.js';
import { actorOf, type ApiKey } from '../kernel/caller.js';
import { normalizeDomain } from '../kernel/domain-name.js';
import { DomainError } from '../kernel/errors.js';
import { viewDomain, type DomainView } from './domain.js';
import type { DomainRepository } from './ports/domain-repository.port.js';

/** What SetAutoRenew is built from (one object, named, instead of positions). */
export interface SetAutoRenewDeps extends RecordingDeps {
  readonly domains: DomainRepository;
}

/** PATCH /v1/domains/{domain} {auto_renew} (domain.renew, class 2: it commits future spending). */
export class SetAutoRenew {
  constructor(private readonly deps: SetAutoRenewDeps) {}

  /** One transaction: the domain is read there (fresh, and locked on Postgres), so the whole-row update cannot undo a renewal that just committed. */
  execute(key: ApiKey, domainName: string, autoRenew: boolean): Promise<DomainView> {
    return this.deps.uow.transaction(() => this.run(key, domainName, autoRenew));
  }

  private async run(key: ApiKey, domainName: string, autoRenew: boolean): Promise<DomainView> {
    const name = normalizeDomain(domainName);
    const domain = await this.deps.domains.find(key.accountId, key.environment, name);
    if (!domain) throw new DomainError('domain_not_found', { domain: name });
    if (domain.autoRenew === autoRenew) return viewDomain(domain);
    // The switching key is kept: the renewals its switch causes count against its spend limit (README).
    const updated = { ...domain, autoRenew, autoRenewFailedFor: null, autoRenewKeyId: autoRenew ? key.id : null };
    const now = this.deps.clock.now();
    await this.deps.domains.update(updated);
    await this.deps.events.record(
      'domain.auto_renew_changed',
      { accountId: key.accountId, environment: key.environment, subject: `domain:${name}`, actor: actorOf(key), occurredAt: now },
      { domain: name, auto_renew: autoRenew },
    );
    return viewDomain(updated);
  }
}
