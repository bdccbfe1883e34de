import type { Domain } from '../domains/domain.js';
import { isHosted, viewDomain, type DomainView } from '../domains/domain.js';
import type { SimulatedParents } from '../domains/ports/delegation-resolver.port.js';
import type { DomainRepository } from '../domains/ports/domain-repository.port.js';
import type { VerifyHosting } from '../domains/verify-hosting.use-case.js';
import { actorOf, type ApiKey } from '../kernel/caller.js';
import { normalizeDomain } from '../kernel/domain-name.js';
import { DomainError } from '../kernel/errors.js';

/**
 * POST /v1/sandbox/delegations/{domain} (test keys, domain.host): the sandbox's parent zone delegates the
 * hosted name to us, or stops delegating it; the domain is checked again at once, as the worker would.
 */
export class SimulateDelegation {
  constructor(
    private readonly parents: SimulatedParents,
    private readonly domains: DomainRepository,
    private readonly verify: Pick<VerifyHosting, 'check'>,
  ) {}

  async execute(key: ApiKey, name: string, delegated: boolean, loaded?: Domain | null): Promise<DomainView> {
    if (key.environment !== 'test') throw new DomainError('sandbox_only', {});
    const normalized = normalizeDomain(name);
    const domain = loaded !== undefined ? loaded : await this.domains.find(key.accountId, key.environment, normalized);
    if (!domain) throw new DomainError('domain_not_found', { domain: normalized });
    if (!isHosted(domain)) throw new DomainError('domain_not_hosted', { domain: normalized });
    await this.parents.set(key.accountId, normalized, delegated);
    return viewDomain((await this.verify.check(domain, actorOf(key))).domain);
  }
}
