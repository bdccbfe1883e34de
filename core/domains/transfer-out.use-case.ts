import { actorOf, type ApiKey } from '../kernel/caller.js';
import type { Checkpoints } from '../kernel/checkpoints.port.js';
import type { AccountClock } from '../kernel/account-clock.port.js';
import { normalizeDomain } from '../kernel/domain-name.js';
import type { Environment } from '../kernel/environment.js';
import { DomainError } from '../kernel/errors.js';
import { requireOwner } from '../kernel/human-guards.js';
import type { HumanContext } from '../kernel/person.js';
import type { RecordingDeps } from '../kernel/recording-deps.js';
import { requireCapability } from './capabilities.js';
import type { DomainRepository } from './ports/domain-repository.port.js';
import { RegistryError, type RegistrarEnvironments, type TransferState } from './ports/registrar.port.js';
import type { TransferRepository } from './ports/transfer-repository.port.js';
import { viewTransfer, type DomainTransfer, type TransferView } from './transfer.js';
import { askedBefore, askingPhase, endedPhase, type TransferSettlement } from './transfer-settlement.js';

/** What the transfer-out use cases are built from (one object, named, instead of positions). */
export interface TransferOutDeps extends RecordingDeps {
  readonly domains: DomainRepository;
  readonly transfers: TransferRepository;
  readonly environments: RegistrarEnvironments;
  readonly settlement: TransferSettlement;
  readonly time: AccountClock;
}

/**
 * The registry tells us another registrar asked for a name we hold (its notice shows pendingTransfer,
 * RFC 5731 §3.2.4 with acID = our client id): the transfer out is recorded once, the domain shows
 * pendingTransfer, and `domain.transfer_requested` tells every owner (its notice), who may reject it.
 */
export class NoteTransferOut {
  constructor(private readonly deps: TransferOutDeps) {}

  async execute(input: {
    accountId: string;
    environment: Environment;
    domain: string;
    state: Pick<TransferState, 'actionAt' | 'status'>;
    messageId?: string;
    text?: string;
    /** The registry message's own fields (requested_by, status …), kept in the event as before. */
    data?: Readonly<Record<string, string>>;
  }): Promise<DomainTransfer | null> {
    // The account's clock, as for the domain's lifecycle (the sandbox's time travel moves transfers too).
    const now = await this.deps.time.now(input.accountId, input.environment);
    return this.deps.uow.transaction(async () => {
      const d = await this.deps.domains.find(input.accountId, input.environment, input.domain);
      if (!d) return null;
      const t: DomainTransfer = {
        id: this.deps.random.id(),
        accountId: input.accountId,
        environment: input.environment,
        domain: d.name,
        direction: 'out',
        status: 'pending',
        years: null,
        amount: null,
        ledgerEntryId: null,
        keyId: null,
        requestedBy: 'registry',
        labels: [],
        authCode: null,
        clientTransactionId: this.deps.random.id(),
        registryStatus: input.state.status,
        actionAt: input.state.actionAt,
        registeredUntil: null,
        error: null,
        createdAt: now,
        finishedAt: null,
      };
      // Told twice (a message delivered again): the transfer under way stands; nothing is recorded again.
      if (!(await this.deps.transfers.insertActive(t))) return null;
      if (!d.status.includes('pendingTransfer'))
        await this.deps.domains.update({ ...d, status: [...d.status.filter((s) => s !== 'ok'), 'pendingTransfer'] });
      await this.deps.events.record(
        'domain.transfer_requested',
        { accountId: d.accountId, environment: d.environment, subject: `domain:${d.name}`, actor: 'registry', occurredAt: now },
        {
          ...(input.data ?? {}),
          domain: d.name,
          message_id: input.messageId ?? t.id,
          queued_at: now.toISOString(),
          text: input.text ?? `Another registrar asked for ${d.name}; it leaves the account at ${input.state.actionAt} unless rejected.`,
          transfer_id: t.id,
          action_at: input.state.actionAt,
        },
      );
      return t;
    });
  }
}

/** Who rejects: a key holding domain.lock on the domain (the safe direction), or an owner in the console. */
export type TransferOutRejecter =
  | { readonly kind: 'key'; readonly key: ApiKey }
  | { readonly kind: 'human'; readonly human: HumanContext; readonly environment: Environment };

/** POST /v1/domains/{domain}/transfer-out/reject: the losing side refuses at once (op="reject"). */
export class RejectTransferOut {
  constructor(private readonly deps: TransferOutDeps) {}

  /**
   * With `checkpoints` (the phased route), a phase records that the registry is being asked, and the
   * settlement commits with its own point; a retry after a crash anywhere after the first answers the
   * rejected transfer instead of transfer_out_not_pending.
   */
  async execute(who: TransferOutRejecter, domain: string, checkpoints: Checkpoints | null = null): Promise<TransferView> {
    const accountId = who.kind === 'key' ? who.key.accountId : who.human.actor.accountId;
    const environment = who.kind === 'key' ? who.key.environment : who.environment;
    if (who.kind === 'human') requireOwner(who.human.actor, 'transfer_out.reject');
    const name = normalizeDomain(domain);
    if (!(await this.deps.domains.find(accountId, environment, name))) throw new DomainError('domain_not_found', { domain: name });
    // A retry of this request that had asked the registry: rejected since (by it, or settled by the worker as
    // the registry answered it), it is done.
    const asked = checkpoints?.last ? String(checkpoints.last.data.transfer_id) : null;
    if (asked !== null && askedBefore(checkpoints, asked)) {
      const ended = await this.deps.transfers.find(accountId, environment, asked);
      if (ended && ended.domain === name && ended.direction === 'out' && ended.status === 'rejected') return viewTransfer(ended);
    }
    const t = await this.deps.transfers.activeFor(environment, name);
    if (!t || t.direction !== 'out' || t.accountId !== accountId) throw new DomainError('transfer_out_not_pending', { domain: name });
    const actor = who.kind === 'key' ? actorOf(who.key) : `person:${who.human.actor.personId}`;
    const now = await this.deps.time.now(accountId, environment);
    const registrar = requireCapability(this.deps.environments.get(environment).registrar, 'transfer_reject');
    await askingPhase(checkpoints, t.id);
    let state: TransferState;
    try {
      state = await registrar.rejectTransfer(name, this.deps.random.id(), now);
    } catch (err) {
      if (!(err instanceof RegistryError)) throw err;
      if (err.reason === 'unavailable') throw new DomainError('registry_failure', { domain: name });
      // Answered meanwhile: settle what the registry says. Rejected by us already (clientRejected: a retry after
      // a crash between the registry's answer and our commit) is done; completed or withdrawn leaves nothing to reject.
      if (registrar.queryTransfer) {
        const answered = await registrar.queryTransfer(name, now);
        const after = await endedPhase(checkpoints, () => this.deps.settlement.apply(t, answered, now));
        if (after.status === 'rejected') return viewTransfer(after);
      }
      throw new DomainError('transfer_out_not_pending', { domain: name });
    }
    return viewTransfer(await endedPhase(checkpoints, () => this.deps.settlement.endOut(t, 'rejected', state.status, now, actor)));
  }
}

/**
 * POST /v1/domains/{domain}/transfer-out/keep-zone {"keep"} (domain.host, class 1: keeping DNS up is the safe
 * direction): while a transfer out is under way, an owner's key chooses whether the zone stays when the name
 * leaves. Kept, the domain stays in the account as a hosted domain, active and served with no gap (this
 * account held the registration until that moment, so no outside proof is needed; the periodic delegation
 * re-check then reports a lost delegation as for any active zone). Not kept (the default), the zone goes.
 */
export class KeepZoneAfterTransferOut {
  constructor(private readonly deps: Pick<TransferOutDeps, 'domains' | 'transfers' | 'uow'> & { readonly hostedLimit: number }) {}

  async execute(key: ApiKey, domain: string, keep: boolean): Promise<TransferView> {
    const name = normalizeDomain(domain);
    return this.deps.uow.transaction(async () => {
      if (!(await this.deps.domains.find(key.accountId, key.environment, name)))
        throw new DomainError('domain_not_found', { domain: name });
      const t = await this.deps.transfers.activeFor(key.environment, name);
      if (!t || t.direction !== 'out' || t.accountId !== key.accountId) throw new DomainError('transfer_out_not_pending', { domain: name });
      if (keep && (await this.deps.domains.countHosted(key.accountId, key.environment)) >= this.deps.hostedLimit)
        throw new DomainError('hosted_domain_limit_reached', { environment: key.environment, limit: this.deps.hostedLimit });
      if (!(await this.deps.transfers.setKeepZone(t.id, keep))) throw new DomainError('transfer_out_not_pending', { domain: name });
      return viewTransfer({ ...t, keepZone: keep });
    });
  }
}
