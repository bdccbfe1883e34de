import type { ApiKey } from '../kernel/caller.js';
import { grants } from '../kernel/rights.js';
import { normalizeDomain } from '../kernel/domain-name.js';
import { DomainError } from '../kernel/errors.js';
import { clampLimit, decodeCursor, encodeCursor, type Page } from '../kernel/pagination.js';
import { viewDomain, type Domain, type DomainView } from './domain.js';
import type { DomainRepository, DomainScope } from './ports/domain-repository.port.js';

/** Seed 4: GET /v1/domains/{domain}. The caller's right was checked before (Authorizer). */
export class GetDomain {
  constructor(private readonly domains: DomainRepository) {}

  /** `loaded`: the domain the authorisation step already read for this request (null: not there). */
  async execute(key: ApiKey, name: string, loaded?: Domain | null): Promise<DomainView> {
    const normalized = normalizeDomain(name);
    const domain = loaded !== undefined ? loaded : await this.domains.find(key.accountId, key.environment, normalized);
    if (!domain) throw new DomainError('domain_not_found', { domain: normalized });
    return viewDomain(domain);
  }
}

/** Which domains a key's domain.read policies reach. */
export const readScope = (key: ApiKey): DomainScope => {
  const names = new Set<string>();
  const labels = new Set<string>();
  for (const p of key.policies) {
    if (!grants(p.right, 'domain.read')) continue;
    if ('label' in p.resources) labels.add(p.resources.label);
    else p.resources.domains.forEach((d) => names.add(d));
  }
  return { all: false, names: [...names], labels: [...labels] };
};

/** GET /v1/domains: only the domains the key may read, ordered by name, cursor pages. */
export class ListDomains {
  constructor(private readonly domains: DomainRepository) {}

  async execute(key: ApiKey, opts: { label?: string; cursor?: string; limit?: number }): Promise<Page<DomainView>> {
    const limit = clampLimit(opts.limit);
    const after = decodeCursor(opts.cursor);
    const rows = await this.domains.list({
      accountId: key.accountId,
      environment: key.environment,
      scope: readScope(key),
      ...(opts.label !== undefined ? { label: opts.label } : {}),
      ...(after !== undefined ? { after } : {}),
      limit: limit + 1,
    });
    const page = rows.slice(0, limit);
    return { data: page.map(viewDomain), next_cursor: rows.length > limit ? encodeCursor(page[page.length - 1]!.name) : null };
  }
}
