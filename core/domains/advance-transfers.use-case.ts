import type { AccountClock } from '../kernel/account-clock.port.js';
import type { Clock } from '../kernel/clock.port.js';
import type { Environment } from '../kernel/environment.js';
import type { RegistrarEnvironments, TransferState } from './ports/registrar.port.js';
import type { RegistryMessage } from './ports/registry-messages.port.js';
import type { TransferMessages } from './process-registry-messages.use-case.js';
import type { NoteTransferOut } from './transfer-out.use-case.js';
import type { TransferRepository } from './ports/transfer-repository.port.js';
import type { DomainTransfer } from './transfer.js';
import type { TransferSettlement } from './transfer-settlement.js';

export interface TransfersReport {
  completed: number;
  ended: number;
  pending: number;
}

/** What AdvanceTransfers is built from (one object, named, instead of positions). */
export interface AdvanceTransfersDeps {
  readonly transfers: TransferRepository;
  readonly environments: RegistrarEnvironments;
  readonly settlement: TransferSettlement;
  readonly accountClock: AccountClock;
  readonly clock: Clock;
  /** Records a transfer out the registry's queue tells of (live: EPP poll). */
  readonly note?: Pick<NoteTransferOut, 'execute'>;
}

const BATCH = 200;

/**
 * The worker's pass over transfers under way (and the sandbox clock's, for one account): a request the
 * registry never confirmed (an outage, a crash) is sent again with its client transaction id; every
 * other is queried and settled (TransferSettlement: exactly once). A transfer survives the revocation of
 * the key that asked for it: nothing here depends on the key.
 */
export class AdvanceTransfers implements TransferMessages {
  constructor(private readonly deps: AdvanceTransfersDeps) {}

  async run(only?: { accountId: string; environment: Environment }): Promise<TransfersReport> {
    const report: TransfersReport = { completed: 0, ended: 0, pending: 0 };
    const environments: Environment[] = only ? [only.environment] : ['live', 'test'];
    let failure: unknown = null;
    for (const environment of environments) {
      if (!this.deps.environments.isAvailable(environment)) continue;
      const list = await this.deps.transfers.listActive({ environment, ...(only ? { accountId: only.accountId } : {}), limit: BATCH });
      for (const t of list) {
        try {
          const after = await this.one(t);
          if (after.status === 'completed') report.completed++;
          else if (after.status === 'requesting' || after.status === 'pending') report.pending++;
          else report.ended++;
        } catch (err) {
          // An unknown outcome (the registry cut off): this transfer waits for the next pass; the others go on.
          failure ??= err;
        }
      }
    }
    if (failure !== null) throw failure;
    return report;
  }

  /**
   * A live registry message about a transfer (its direction from reID/acID): settles the transfer it is
   * about; a transfer out not seen before is recorded first (owners told). False: nothing of ours.
   */
  async onMessage(
    domain: string,
    state: TransferState,
    holder: { readonly accountId: string } | null,
    message: Pick<RegistryMessage, 'id' | 'text' | 'data'>,
  ): Promise<boolean> {
    const now = this.deps.clock.now();
    let t = await this.deps.transfers.activeFor('live', domain);
    if (!t && state.direction === 'out' && holder && this.deps.note) {
      t = await this.deps.note.execute({
        accountId: holder.accountId,
        environment: 'live',
        domain,
        state,
        messageId: message.id,
        text: message.text,
        data: message.data,
      });
    }
    if (!t || t.direction !== state.direction) return false;
    await this.deps.settlement.apply(t, state, now);
    return true;
  }

  /** Asks the registry about one transfer and settles what it says. */
  async one(t: DomainTransfer): Promise<DomainTransfer> {
    const registrar = this.deps.environments.get(t.environment).registrar;
    const now = t.environment === 'live' ? this.deps.clock.now() : await this.deps.accountClock.now(t.accountId, t.environment);
    if (t.status === 'requesting' && t.direction === 'in') return (await this.deps.settlement.ask(t, registrar, now)).transfer;
    if (!registrar.queryTransfer) return t;
    return this.deps.settlement.apply(t, await registrar.queryTransfer(t.domain, now), now);
  }
}
