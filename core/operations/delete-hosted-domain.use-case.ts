import { isHosted } from '../domains/domain.js';
import type { DomainRepository } from '../domains/ports/domain-repository.port.js';
import type { DomainZones } from '../domains/ports/zones.port.js';
import { actorOf, type ApiKey } from '../kernel/caller.js';
import { normalizeDomain } from '../kernel/domain-name.js';
import { DomainError } from '../kernel/errors.js';
import type { UnitOfWork } from '../kernel/unit-of-work.port.js';
import type { OperationLog } from './operation-log.js';
import type { OperationView } from './operation.js';
import type { RequestOperation } from './request-operation.use-case.js';

/** What DeleteHostedDomain is built from (one object, named, instead of positions). */
export interface DeleteHostedDomainDeps {
  readonly domains: DomainRepository;
  readonly zones: Pick<DomainZones, 'remove'>;
  readonly request: Pick<RequestOperation, 'execute'>;
  readonly log: Pick<OperationLog, 'hostingDeleted'>;
  readonly uow: UnitOfWork;
}

/**
 * DELETE /v1/hosted-domains/{domain} (domain.host): a claim not yet verified is served by nobody, so it goes
 * at once; an active zone's deletion takes its site and mail down, so it is a class 3 operation that waits
 * for a second owner or 24 hours (DESIGN: hosted domains).
 */
export class DeleteHostedDomain {
  constructor(private readonly deps: DeleteHostedDomainDeps) {}

  async execute(key: ApiKey, name: string): Promise<{ deleted: true; domain: string } | { operation: OperationView }> {
    const normalized = normalizeDomain(name);
    const now = await this.deps.uow.transaction(async () => {
      const domain = await this.deps.domains.find(key.accountId, key.environment, normalized);
      if (!domain) throw new DomainError('domain_not_found', { domain: normalized });
      if (!isHosted(domain)) throw new DomainError('domain_not_hosted', { domain: normalized });
      if (domain.hosting?.status === 'active') return false;
      await this.deps.zones.remove(key.accountId, key.environment, normalized);
      await this.deps.domains.remove(domain.id);
      await this.deps.log.hostingDeleted(
        { accountId: key.accountId, environment: key.environment, domain: normalized },
        actorOf(key),
        'deleted',
      );
      return true;
    });
    if (now) return { deleted: true, domain: normalized };
    return { operation: await this.deps.request.execute({ kind: 'key', key }, { kind: 'hosted_delete', domain: normalized }) };
  }
}
