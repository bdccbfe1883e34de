import type { ApiKey } from '../kernel/caller.js';
import { normalizeDomain } from '../kernel/domain-name.js';
import { DomainError } from '../kernel/errors.js';
import { signingWindow } from '../dns/zone/zone-signing.js';
import type { DnssecDeps } from './dnssec-deps.js';
import { dnssecView, type DnssecView } from './dnssec-view.js';

/** GET /v1/domains/{domain}/dnssec: status, keys (public parts), the DS to publish, the signature window. */
export class ReadDnssec {
  constructor(private readonly deps: Pick<DnssecDeps, 'zones' | 'dnssec'>) {}

  async execute(key: ApiKey, domainInput: string): Promise<DnssecView> {
    const domain = normalizeDomain(domainInput);
    const zone = await this.deps.zones.find(key.accountId, key.environment, domain);
    if (!zone) throw new DomainError('domain_not_found', { domain });
    const state = await this.deps.dnssec.find(zone.id);
    return dnssecView(state, state ? signingWindow(state.windowStart) : null);
  }
}
