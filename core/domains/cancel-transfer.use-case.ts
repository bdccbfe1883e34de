import { actorOf, type ApiKey } from '../kernel/caller.js';
import type { Checkpoints } from '../kernel/checkpoints.port.js';
import type { AccountClock } from '../kernel/account-clock.port.js';
import { normalizeDomain } from '../kernel/domain-name.js';
import type { Environment } from '../kernel/environment.js';
import { DomainError } from '../kernel/errors.js';
import { requireOwner } from '../kernel/human-guards.js';
import type { HumanContext } from '../kernel/person.js';
import type { Random } from '../kernel/random.port.js';
import { requireCapability } from './capabilities.js';
import { RegistryError, type RegistrarEnvironments } from './ports/registrar.port.js';
import type { TransferRepository } from './ports/transfer-repository.port.js';
import { ACTIVE_PHASES, viewTransfer, type DomainTransfer, type TransferView } from './transfer.js';
import { askedBefore, askingPhase, endedPhase, type TransferSettlement } from './transfer-settlement.js';

/** Who cancels: a key holding domain.register on the name (the route checks it), or an owner in the console. */
export type TransferCanceller =
  | { readonly kind: 'key'; readonly key: ApiKey }
  | { readonly kind: 'human'; readonly human: HumanContext; readonly environment: Environment };

/** What CancelTransfer is built from (one object, named, instead of positions). */
export interface CancelTransferDeps {
  readonly transfers: TransferRepository;
  readonly environments: RegistrarEnvironments;
  readonly settlement: TransferSettlement;
  readonly time: AccountClock;
  readonly random: Random;
}

/**
 * POST /v1/domains/{domain}/transfers/{id}/cancel: the gaining side withdraws a pending transfer in
 * (RFC 5731 §3.2.4 op="cancel"); the reserved charge is voided once (TransferSettlement).
 */
export class CancelTransfer {
  constructor(private readonly deps: CancelTransferDeps) {}

  /**
   * With `checkpoints` (the phased route: the registry is asked outside any transaction), a phase records
   * that the registry is being asked, and the settlement commits with its own point; a retry after a crash
   * anywhere after the first answers the cancelled transfer instead of transfer_not_cancellable.
   */
  async execute(who: TransferCanceller, domain: string, id: string, checkpoints: Checkpoints | null = null): Promise<TransferView> {
    const accountId = who.kind === 'key' ? who.key.accountId : who.human.actor.accountId;
    const environment = who.kind === 'key' ? who.key.environment : who.environment;
    if (who.kind === 'human') requireOwner(who.human.actor, 'transfer.cancel');
    const name = normalizeDomain(domain);
    const t = await this.deps.transfers.find(accountId, environment, id);
    // A retry of this request that had asked the registry: cancelled since (by it, or settled by the worker
    // as the registry answered it), it is done.
    if (t && t.domain === name && t.status === 'cancelled' && askedBefore(checkpoints, id)) return viewTransfer(t);
    const settled = (settle: () => Promise<DomainTransfer>): Promise<DomainTransfer> => endedPhase(checkpoints, settle);
    if (!t || t.domain !== name || t.direction !== 'in') throw new DomainError('transfer_not_found', { transfer_id: id });
    if (!ACTIVE_PHASES.includes(t.status)) throw new DomainError('transfer_not_cancellable', { transfer_id: id, status: t.status });
    const actor = who.kind === 'key' ? actorOf(who.key) : `person:${who.human.actor.personId}`;
    const now = await this.deps.time.now(accountId, environment);
    const registrar = requireCapability(this.deps.environments.get(environment).registrar, 'transfer_cancel');
    await askingPhase(checkpoints, id);
    try {
      const state = await registrar.cancelTransfer(name, this.deps.random.id(), now);
      // Cancelled by whoever asked (the event names them); any other answer is settled as the registry says.
      const after = await settled(() =>
        state.status === 'clientCancelled'
          ? this.deps.settlement.endIn(t, 'cancelled', null, false, now, state.status, actor)
          : this.deps.settlement.apply(t, state, now),
      );
      if (after.status !== 'cancelled')
        throw new DomainError('transfer_not_cancellable', { transfer_id: id, status: viewTransfer(after).status });
      return viewTransfer(after);
    } catch (err) {
      if (!(err instanceof RegistryError)) throw err;
      if (err.reason === 'unavailable') throw new DomainError('registry_failure', { domain: name });
      // Nothing pending at the registry: a request it never took (an outage) ends here; one it answered is settled.
      const state = registrar.queryTransfer ? await registrar.queryTransfer(name, now) : null;
      if (state && state.direction === 'in' && state.status !== 'pending') {
        const after = await settled(() => this.deps.settlement.apply(t, state, now));
        // Cancelled already at the registry (a retry after a crash between its answer and our commit): done.
        if (after.status === 'cancelled') return viewTransfer(after);
        throw new DomainError('transfer_not_cancellable', { transfer_id: id, status: viewTransfer(after).status });
      }
      if (t.status === 'requesting' && !state)
        return viewTransfer(await settled(() => this.deps.settlement.endIn(t, 'cancelled', null, false, now, undefined, actor)));
      throw new DomainError('transfer_not_cancellable', { transfer_id: id, status: viewTransfer(t).status });
    }
  }
}
