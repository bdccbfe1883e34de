import type { RecordingDeps } from '../kernel/recording-deps.js';
import { actorOf, type ApiKey } from '../kernel/caller.js';
import type { Authorizer } from '../access/authorize.js';
import { requireCapability } from '../domains/capabilities.js';
import { isHosted, viewDomain, type DomainView } from '../domains/domain.js';
import type { DomainRepository } from '../domains/ports/domain-repository.port.js';
import { RegistryError } from '../domains/ports/registrar.port.js';
import { normalizeDomain } from '../kernel/domain-name.js';
import type { RegistrarEnvironments } from '../domains/ports/registrar.port.js';
import { DomainError } from '../kernel/errors.js';
import type { CancelOperation } from './cancel-operation.use-case.js';
import { viewOperation, type OperationView } from './operation.js';
import type { OperationRepository } from './ports/operation-repository.port.js';

/** What LockTransfer is built from (one object, named, instead of positions). */
export interface LockTransferDeps extends RecordingDeps {
  readonly domains: DomainRepository;
  readonly operations: OperationRepository;
  readonly cancelOperation: Pick<CancelOperation, 'cancel'>;
  readonly authorizer: Pick<Authorizer, 'check'>;
  readonly environments: RegistrarEnvironments;
}

/**
 * PUT /v1/domains/{d}/transfer-lock (domain.lock): setting the lock again is the safe direction, so it
 * happens at once (200), and a pending request to lift the lock is cancelled with it.
 */
export class LockTransfer {
  constructor(private readonly deps: LockTransferDeps) {}

  async execute(key: ApiKey, domainName: string): Promise<DomainView & { cancelled_operation: OperationView | null }> {
    const name = normalizeDomain(domainName);
    await this.deps.authorizer.check(key, 'domain.lock', name);
    const domain = await this.deps.domains.find(key.accountId, key.environment, name);
    if (!domain) throw new DomainError('domain_not_found', { domain: name });
    // A domain registered elsewhere is locked at its own registrar; ours does not hold the name.
    if (isHosted(domain)) throw new DomainError('domain_not_registered_here', { domain: name });
    const pending = await this.deps.operations.pendingOn(domain.id);
    const cancelled = pending?.kind === 'transfer_unlock' ? await this.deps.cancelOperation.cancel(pending, { kind: 'key', key }) : null;
    if (!domain.transferLock) {
      try {
        await requireCapability(this.deps.environments.get(key.environment).registrar, 'transfer_lock').setTransferLock(
          name,
          true,
          `lock-${this.deps.random.id()}`,
        );
      } catch (err) {
        if (err instanceof RegistryError) throw new DomainError('registry_failure', { domain: name });
        throw err;
      }
    }
    const updated = await this.deps.uow.transaction(async () => {
      const d = (await this.deps.domains.find(key.accountId, key.environment, name))!;
      if (d.transferLock) return d;
      const status = [...d.status.filter((s) => s !== 'ok'), 'clientTransferProhibited'];
      const next = { ...d, transferLock: true, status };
      await this.deps.domains.update(next);
      const now = this.deps.clock.now();
      await this.deps.events.record(
        'domain.transfer_locked',
        { accountId: key.accountId, environment: key.environment, subject: `domain:${name}`, actor: actorOf(key), occurredAt: now },
        { domain: name, transfer_lock: true },
      );
      return next;
    });
    return { ...viewDomain(updated), cancelled_operation: cancelled ? viewOperation(cancelled) : null };
  }
}
