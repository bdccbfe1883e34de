import type { ApiKey } from '../kernel/caller.js';
import type { Environment } from '../kernel/environment.js';
import { grants, type RightName } from '../kernel/rights.js';
import { type DomainScope, type Visibility } from '../kernel/visibility.port.js';
import { allows, heldRights, selects } from './policy.js';
import type { ScopedDomain } from './ports/domain-directory.port.js';

/** The account's domains with their labels, as the domains capability stores them. */
export interface DomainLister {
  list(query: { accountId: string; environment: Environment; scope: DomainScope; limit: number }): Promise<readonly ScopedDomain[]>;
}

/** An upper bound on one account's domains read in one visibility answer. */
const ACCOUNT_DOMAINS_MAX = 100_000;

export class KeyVisibility implements Visibility {
  constructor(private readonly domains: DomainLister) {}

  scope(key: ApiKey, rights: readonly RightName[]): DomainScope {
    const names = new Set<string>();
    const labels = new Set<string>();
    for (const p of key.policies) {
      if (!rights.some((r) => grants(p.right, r))) continue;
      if ('label' in p.resources) labels.add(p.resources.label);
      else p.resources.domains.forEach((d) => names.add(d));
    }
    return { all: false, names: [...names], labels: [...labels] };
  }

  async visibleDomains(
    key: ApiKey,
    rights: readonly RightName[],
    opts: { readonly among?: readonly string[] } = {},
  ): Promise<ReadonlySet<string>> {
    return (await this.read(key, rights, ACCOUNT_DOMAINS_MAX, opts.among))!;
  }

  visibleDomainsUpTo(key: ApiKey, rights: readonly RightName[], max: number): Promise<ReadonlySet<string> | null> {
    return this.read(key, rights, max);
  }

  /**
   * Only the domains a policy names or labels are read (the store's indexed prefilter), then each is checked
   * against the policies; `among` narrows the read to those names. Null when more than `max` were read.
   */
  private async read(
    key: ApiKey,
    rights: readonly RightName[],
    max: number,
    among?: readonly string[],
  ): Promise<ReadonlySet<string> | null> {
    const scope = this.scope(key, rights);
    if (scope.names.length === 0 && scope.labels.length === 0) return new Set();
    if (among !== undefined && among.length === 0) return new Set();
    const found = await this.domains.list({
      accountId: key.accountId,
      environment: key.environment,
      scope: among === undefined ? scope : { all: false, names: [...new Set(among)], labels: [] },
      limit: max + 1,
    });
    if (found.length > max) return null;
    return new Set(
      found
        .filter((d) => rights.some((r) => allows(key.policies, r, { kind: 'domain', name: d.name, labels: d.labels })))
        .map((d) => d.name),
    );
  }

  sees(key: ApiKey, rights: readonly RightName[], domain: { readonly name: string; readonly labels: readonly string[] }): boolean {
    return key.policies.some((p) => rights.some((r) => grants(p.right, r)) && selects(p.resources, domain.name, domain.labels));
  }

  holds(key: ApiKey, right: RightName): boolean {
    return heldRights(key.policies).has(right);
  }
}
