import type { ZoneRepository } from '../dns/ports/zone-repository.port.js';
import type { DisableDnssec } from '../dnssec/disable-dnssec.use-case.js';
import type { DnssecView } from '../dnssec/dnssec-view.js';
import type { DnssecRepository } from '../dnssec/ports/dnssec-repository.port.js';
import { isHosted } from '../domains/domain.js';
import type { DomainRepository } from '../domains/ports/domain-repository.port.js';
import type { ApiKey } from '../kernel/caller.js';
import { normalizeDomain } from '../kernel/domain-name.js';
import { DomainError } from '../kernel/errors.js';
import type { OperationView } from './operation.js';
import type { RequestOperation } from './request-operation.use-case.js';

/** What SwitchOffDnssec is built from (one object, named, instead of positions). */
export interface SwitchOffDnssecDeps {
  readonly zones: Pick<ZoneRepository, 'find'>;
  readonly dnssec: Pick<DnssecRepository, 'find'>;
  readonly domains: Pick<DomainRepository, 'find'>;
  readonly disable: Pick<DisableDnssec, 'execute'>;
  readonly request: Pick<RequestOperation, 'execute'>;
}

/**
 * DELETE /v1/domains/{domain}/dnssec (dns.dnssec, class 3; DESIGN: DNSSEC). While the parent holds no DS,
 * no validator depends on our signatures: off at once (200). With our DS at the parent, stopping first
 * would make every validating resolver answer SERVFAIL, so it is the class 3 operation `dnssec_disable`
 * (202): the DS leaves the registry, and signing stops once its TTL has passed. A zone we host for a
 * domain registered elsewhere cannot have its DS removed by us: 409 dnssec_ds_at_parent, with the steps.
 */
export class SwitchOffDnssec {
  constructor(private readonly deps: SwitchOffDnssecDeps) {}

  async execute(key: ApiKey, domainInput: string): Promise<{ off: DnssecView } | { operation: OperationView }> {
    const domain = normalizeDomain(domainInput);
    const zone = await this.deps.zones.find(key.accountId, key.environment, domain);
    const state = zone ? await this.deps.dnssec.find(zone.id) : null;
    if (!state?.dsAtParent) return { off: await this.deps.disable.execute(key, domain) };
    const registered = await this.deps.domains.find(key.accountId, key.environment, domain);
    if (!registered || isHosted(registered)) throw new DomainError('dnssec_ds_at_parent', { domain });
    return { operation: await this.deps.request.execute({ kind: 'key', key }, { kind: 'dnssec_disable', domain }) };
  }
}
