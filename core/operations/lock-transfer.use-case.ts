import type { ApiKey } from '../kernel/caller.js';
import type { Authorizer } from '../access/authorize.js';
import type { EventLog } from '../kernel/event-log.port.js';
import { requireCapability } from '../domains/capabilities.js';
import { viewDomain, type DomainView } from '../domains/domain.js';
import type { DomainRepository } from '../domains/ports/domain-repository.port.js';
import { RegistryError } from '../domains/ports/registrar.port.js';
import type { Clock } from '../kernel/clock.port.js';
import { normalizeDomain } from '../kernel/domain-name.js';
import type { RegistrarEnvironments } from '../domains/ports/registrar.port.js';
import { DomainError } from '../kernel/errors.js';
import type { Random } from '../kernel/random.port.js';
import type { UnitOfWork } from '../kernel/unit-of-work.port.js';
import type { CancelOperation } from './cancel-operation.use-case.js';
import { viewOperation, type OperationView } from './operation.js';
import type { OperationRepository } from './ports/operation-repository.port.js';

/**
 * PUT /v1/domains/{d}/transfer-lock (domain.lock): setting the lock again is the safe direction, so it
 * happens at once (200), and a pending request to lift the lock is cancelled with it.
 */
export class LockTransfer {
  constructor(
    private readonly domains: DomainRepository,
    private readonly operations: OperationRepository,
    private readonly cancelOperation: Pick<CancelOperation, 'cancel'>,
    private readonly authorizer: Pick<Authorizer, 'check'>,
    private readonly environments: RegistrarEnvironments,
    private readonly events: EventLog,
    private readonly uow: UnitOfWork,
    private readonly random: Random,
    private readonly clock: Clock,
  ) {}

  async execute(key: ApiKey, domainName: string): Promise<DomainView & { cancelled_operation: OperationView | null }> {
    const name = normalizeDomain(domainName);
    await this.authorizer.check(key, 'domain.lock', name);
    const domain = await this.domains.find(key.accountId, key.environment, name);
    if (!domain) throw new DomainError('domain_not_found', { domain: name });
    const pending = await this.operations.pendingOn(domain.id);
    const cancelled = pending?.kind === 'transfer_unlock' ? await this.cancelOperation.cancel(pending, { kind: 'key', key }) : null;
    if (!domain.transferLock) {
      try {
        await requireCapability(this.environments.get(key.environment).registrar, 'transfer_lock').setTransferLock(name, true, `lock-${this.random.id()}`);
      } catch (err) {
        if (err instanceof RegistryError) throw new DomainError('registry_failure', { domain: name });
        throw err;
      }
    }
    const updated = await this.uow.transaction(async () => {
      const d = (await this.domains.find(key.accountId, key.environment, name))!;
      if (d.transferLock) return d;
      const status = [...d.status.filter((s) => s !== 'ok'), 'clientTransferProhibited'];
      const next = { ...d, transferLock: true, status };
      await this.domains.update(next);
      const now = this.clock.now();
      await this.events.append({
        id: this.random.id(), accountId: key.accountId, environment: key.environment, type: 'domain.transfer_locked',
        subject: `domain:${name}`, actor: `key:${key.id}`, occurredAt: now, data: { domain: name, transfer_lock: true },
      });
      return next;
    });
    return { ...viewDomain(updated), cancelled_operation: cancelled ? viewOperation(cancelled) : null };
  }
}
