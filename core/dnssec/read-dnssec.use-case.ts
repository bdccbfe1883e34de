import type { ApiKey } from '../kernel/caller.js';
import { normalizeDomain } from '../kernel/domain-name.js';
import { DomainError } from '../kernel/errors.js';
import { signingWindow } from '../dns/zone/zone-signing.js';
import type { DnssecDeps } from './dnssec-deps.js';
import { dnssecView, withParentDs, type DnssecView } from './dnssec-view.js';
import { parentDs, type ParentDsDeps } from './parent-ds.js';

/**
 * GET /v1/domains/{domain}/dnssec: status, keys (public parts), the DS to publish, the signature window, and
 * what the registry holds (`parent_ds`, `ds_at_parent`): a DS there with DNSSEC off is shown, so the owner
 * can have it removed (POST …/dnssec/ds/remove).
 */
export class ReadDnssec {
  constructor(private readonly deps: Pick<DnssecDeps, 'zones' | 'dnssec'> & Partial<ParentDsDeps>) {}

  async execute(key: ApiKey, domainInput: string): Promise<DnssecView> {
    const domain = normalizeDomain(domainInput);
    const zone = await this.deps.zones.find(key.accountId, key.environment, domain);
    if (!zone) throw new DomainError('domain_not_found', { domain });
    const state = await this.deps.dnssec.find(zone.id);
    const view = dnssecView(state, state ? signingWindow(state.windowStart) : null);
    const { domains, registrars } = this.deps;
    if (!domains || !registrars) return view;
    // Shown only: a read a few seconds old will do (a page polls this); decisions ask the registry afresh.
    return withParentDs(view, state, await parentDs({ domains, registrars }, key.accountId, key.environment, domain, true));
  }
}
