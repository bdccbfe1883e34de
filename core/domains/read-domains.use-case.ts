import type { ApiKey } from '../kernel/caller.js';
import type { Visibility } from '../kernel/visibility.port.js';
import { normalizeDomain } from '../kernel/domain-name.js';
import { DomainError } from '../kernel/errors.js';
import { clampLimit, decodeCursor, encodeCursor, type Page } from '../kernel/pagination.js';
import { viewDomain, type Domain, type DomainView } from './domain.js';
import type { DomainRepository } from './ports/domain-repository.port.js';

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

/** GET /v1/domains: only the domains the key may read, ordered by name, cursor pages. */
export class ListDomains {
  constructor(
    private readonly domains: DomainRepository,
    private readonly visibility: Visibility,
  ) {}

  async execute(
    key: ApiKey,
    opts: {
      label?: string;
      registrar?: 'domivka' | 'external';
      hostingStatus?: 'pending_delegation' | 'active';
      cursor?: string;
      limit?: number;
    },
  ): Promise<Page<DomainView>> {
    const limit = clampLimit(opts.limit);
    const after = decodeCursor(opts.cursor);
    const rows = await this.domains.list({
      accountId: key.accountId,
      environment: key.environment,
      scope: this.visibility.scope(key, ['domain.read']),
      ...(opts.label !== undefined ? { label: opts.label } : {}),
      ...(opts.registrar !== undefined ? { registrar: opts.registrar } : {}),
      ...(opts.hostingStatus !== undefined ? { hostingStatus: opts.hostingStatus } : {}),
      ...(after !== undefined ? { after } : {}),
      limit: limit + 1,
    });
    const page = rows.slice(0, limit);
    return { data: page.map(viewDomain), next_cursor: rows.length > limit ? encodeCursor(page[page.length - 1]!.name) : null };
  }
}
