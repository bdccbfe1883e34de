import { normalizeDomain } from '../kernel/domain-name.js';
import { DomainError } from '../kernel/errors.js';
import type { ApiKey } from '../kernel/caller.js';
import { allows, heldRights, namesDomain, type Policy } from './policy.js';

/** DESIGN: a domain.register policy that selects a label may register any name (the new domain carries the label). */
const registersByLabel = (policies: readonly Policy[]): boolean =>
  policies.some((p) => p.right === 'domain.register' && 'label' in p.resources);
import type { DomainDirectory, ScopedDomain } from './ports/domain-directory.port.js';
import { RIGHTS, type RightName } from '../kernel/rights.js';

/**
 * Policy evaluation for one (right, domain) pair. The domain's labels come from the store, so a label
 * added later widens a label-scoped key at once (hence domain.labels is class 3).
 * A domain that does not exist in the account is allowed only when a policy names it, so the caller
 * can answer 404; a label-scoped key probing unknown names gets right_missing and learns nothing.
 */
export class Authorizer<D extends ScopedDomain = ScopedDomain> {
  constructor(private readonly domains: DomainDirectory<D>) {}

  /** Resolves to the domain (or null when absent / not a domain right), or throws right_missing. */
  async check(key: ApiKey, right: RightName, domainInput?: string): Promise<D | null> {
    if (RIGHTS[right].scope === 'account' || domainInput === undefined) {
      // Account rights ignore the selection; a domain right asked without a domain (a list) needs only
      // to be held somewhere — the list itself is then filtered to the key's domains.
      if (!heldRights(key.policies).has(right)) throw new DomainError('right_missing', { right });
      return null;
    }
    const name = normalizeDomain(domainInput);
    const domain = await this.domains.find(key.accountId, key.environment, name);
    const ok = domain
      ? allows(key.policies, right, { kind: 'domain', name, labels: domain.labels })
      : namesDomain(key.policies, right, name) || (right === 'domain.register' && registersByLabel(key.policies));
    if (!ok) throw new DomainError('right_missing', { right, domain: name });
    return domain;
  }
}
