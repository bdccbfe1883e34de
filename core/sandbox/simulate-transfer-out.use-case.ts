import type { ApiKey } from '../kernel/caller.js';
import type { AccountClock } from '../kernel/account-clock.port.js';
import { normalizeDomain } from '../kernel/domain-name.js';
import { DomainError } from '../kernel/errors.js';
import type { DomainRepository } from '../domains/ports/domain-repository.port.js';
import { RegistryError, type Registrar, type RegistrarEnvironments, type TransferState } from '../domains/ports/registrar.port.js';
import type { NoteTransferOut } from '../domains/transfer-out.use-case.js';
import { viewTransfer, type TransferView } from '../domains/transfer.js';

/** The sandbox registry's extra: another registrar asks for a name we hold (no real registry offers this). */
export interface TransferOutSimulator {
  simulateTransferOut(domain: string, now?: Date): Promise<TransferState>;
}
const simulates = (r: Registrar): r is Registrar & TransferOutSimulator =>
  typeof (r as Partial<TransferOutSimulator>).simulateTransferOut === 'function';

/** What SimulateTransferOut is built from (one object, named, instead of positions). */
export interface SimulateTransferOutDeps {
  readonly domains: Pick<DomainRepository, 'find'>;
  readonly environments: RegistrarEnvironments;
  readonly note: Pick<NoteTransferOut, 'execute'>;
  readonly time: AccountClock;
}

/**
 * POST /v1/sandbox/transfer-out (test keys): another registrar asks the sandbox registry for a domain of
 * the account, as a registry's poll message would tell (pendingTransfer; owners told). A locked domain
 * refuses it. It completes after the sandbox registry's 5 days unless rejected.
 */
export class SimulateTransferOut {
  constructor(private readonly deps: SimulateTransferOutDeps) {}

  async execute(key: ApiKey, domain: string): Promise<TransferView> {
    if (key.environment !== 'test') throw new DomainError('sandbox_only');
    const name = normalizeDomain(domain);
    const d = await this.deps.domains.find(key.accountId, 'test', name);
    if (!d) throw new DomainError('domain_not_found', { domain: name });
    const registrar = this.deps.environments.get('test').registrar;
    if (!simulates(registrar))
      throw new DomainError('registrar_capability_missing', { registrar: registrar.name, capability: 'transfer_out' });
    const now = await this.deps.time.now(key.accountId, 'test');
    let state: TransferState;
    try {
      state = await registrar.simulateTransferOut(name, now);
    } catch (err) {
      if (!(err instanceof RegistryError)) throw err;
      if (err.refusal === 'registry_status_prohibits')
        throw d.transferLock || d.status.includes('clientTransferProhibited')
          ? new DomainError('transfer_domain_locked', { domain: name })
          : new DomainError('transfer_already_pending', { domain: name });
      throw new DomainError('transfer_not_transferable', { domain: name });
    }
    const t = await this.deps.note.execute({ accountId: key.accountId, environment: 'test', domain: name, state });
    if (!t) throw new DomainError('transfer_already_pending', { domain: name });
    return viewTransfer(t);
  }
}
