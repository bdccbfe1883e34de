import { inPhase, type Checkpoints } from '../kernel/checkpoints.port.js';
import type { Accounting } from '../billing/accounting.js';
import { DomainError } from '../kernel/errors.js';
import type { RecordingDeps } from '../kernel/recording-deps.js';
import type { SecretBox } from '../kernel/secret-box.port.js';
import type { DisplaceHosted } from './displace-hosted.js';
import { OUR_NAMESERVERS } from './hosting.js';
import { DEFAULT_NAMESERVERS } from './register-domain.use-case.js';
import type { DomainRepository } from './ports/domain-repository.port.js';
import { RegistryError, type Registrar, type TransferState } from './ports/registrar.port.js';
import type { TransferRepository } from './ports/transfer-repository.port.js';
import type { DomainZones } from './ports/zones.port.js';
import { ACTIVE_PHASES, type DomainTransfer, type TransferPhase } from './transfer.js';

/** What TransferSettlement is built from (one object, named, instead of positions). */
export interface TransferSettlementDeps extends RecordingDeps {
  readonly transfers: TransferRepository;
  readonly domains: DomainRepository;
  readonly accounting: Accounting;
  readonly zones: Pick<DomainZones, 'adopt' | 'remove' | 'serve'>;
  /** Other accounts' hosted claims of a name that arrives here leave (a domain registered through us wins). */
  readonly displace?: Pick<DisplaceHosted, 'execute'>;
  readonly box: SecretBox;
}

const APPROVED = new Set(['clientApproved', 'serverApproved']);

/** A registry refusal of a transfer request, as our stable error code. */
export const refusalOf = (err: RegistryError, domain: string): DomainError => {
  if (err.refusal === 'registry_auth_info_invalid') return new DomainError('transfer_auth_code_invalid', { domain });
  if (err.refusal === 'registry_status_prohibits') return new DomainError('transfer_domain_locked', { domain });
  return new DomainError('transfer_not_transferable', {
    domain,
    ...(err.registryCode !== null ? { registry_code: err.registryCode } : {}),
  });
};

/**
 * The one place a transfer ends and its money settles. Every end is a compare-and-set on the transfer's
 * phase, in the same transaction as the money: of two callers that see the same answer (the request, the
 * worker's pass, a registry message, two workers), exactly one posts or voids the charge.
 */
export class TransferSettlement {
  constructor(private readonly deps: TransferSettlementDeps) {}

  /**
   * Sends (or sends again, with the same client transaction id) a transfer's request to the registry.
   * A registry outage leaves it pending (asked again by the next pass); a refusal ends it and voids the
   * charge, and is returned; an unknown failure is thrown with the reservation kept.
   */
  async ask(t: DomainTransfer, registrar: Registrar, now: Date): Promise<{ transfer: DomainTransfer; refusal: DomainError | null }> {
    if (!registrar.requestTransfer || !t.authCode) return { transfer: t, refusal: null };
    let state: TransferState;
    try {
      state = await registrar.requestTransfer({
        domain: t.domain,
        authCode: this.deps.box.open(t.authCode),
        years: t.years ?? 1,
        clientTransactionId: t.clientTransactionId,
        now,
      });
    } catch (err) {
      if (!(err instanceof RegistryError)) throw err;
      if (err.reason === 'unavailable') return { transfer: t, refusal: null };
      const refusal = refusalOf(err, t.domain);
      return { transfer: await this.endIn(t, 'failed', refusal.code, false, now), refusal };
    }
    return { transfer: await this.apply(t, state, now), refusal: null };
  }

  /** Applies what the registry says of a transfer; returns the transfer as it stands after. */
  async apply(t: DomainTransfer, state: TransferState | null, now: Date): Promise<DomainTransfer> {
    if (!state || state.direction !== t.direction) return t;
    if (state.status === 'pending') {
      if (t.status !== 'requesting') return t;
      return this.deps.uow.transaction(async () => {
        await this.deps.transfers.advance(t.id, ['requesting'], 'pending', { registryStatus: state.status, actionAt: state.actionAt });
        return this.reload(t);
      });
    }
    if (t.direction === 'in') {
      if (APPROVED.has(state.status)) return this.completeIn(t, state, now);
      if (state.status === 'clientCancelled') return this.endIn(t, 'cancelled', null, false, now, state.status);
      return this.endIn(t, 'rejected', 'transfer_rejected', true, now, state.status);
    }
    if (APPROVED.has(state.status)) return this.completeOut(t, state, now);
    return this.endOut(t, state.status === 'clientRejected' ? 'rejected' : 'cancelled', state.status, now);
  }

  private async reload(t: DomainTransfer): Promise<DomainTransfer> {
    return (await this.deps.transfers.find(t.accountId, t.environment, t.id)) ?? t;
  }

  private facts(t: DomainTransfer, actor: string, now: Date) {
    return { accountId: t.accountId, environment: t.environment, subject: `domain:${t.domain}`, actor, occurredAt: now };
  }

  private money(t: DomainTransfer) {
    return { domain: t.domain, transfer_id: t.id, years: t.years ?? 1, amount: t.amount ?? 0, ledger_entry_id: t.ledgerEntryId ?? '' };
  }

  /**
   * The name arrived: the charge stands, the domain joins the account with its zone. A name the account
   * already holds as a hosted domain becomes a registered one in place (its row, labels and zone kept; its
   * expiry now the registry's, its hosting state gone) and its zone is served from this commit on even if it
   * was never verified: a domain registered through us always wins, so other accounts' claims leave.
   */
  private async completeIn(t: DomainTransfer, state: TransferState, now: Date): Promise<DomainTransfer> {
    return this.deps.uow.transaction(async () => {
      const moved = await this.deps.transfers.advance(t.id, ACTIVE_PHASES, 'completed', {
        registryStatus: state.status,
        registeredUntil: state.registeredUntil,
        finishedAt: now,
      });
      if (!moved) return this.reload(t);
      if (t.ledgerEntryId) await this.deps.accounting.post(t.ledgerEntryId);
      const expiresOn = state.registeredUntil ?? '';
      const registered = {
        status: ['ok'],
        expiresOn,
        autoRenew: true,
        transferLock: false,
        nameservers: DEFAULT_NAMESERVERS,
        autoRenewFailedFor: null,
        registrar: 'domivka' as const,
        hosting: null,
      };
      await this.deps.displace?.execute(t.environment, t.domain, t.accountId);
      const held = await this.deps.domains.find(t.accountId, t.environment, t.domain);
      if (held) await this.deps.domains.update({ ...held, ...registered });
      else
        await this.deps.domains.insert({
          id: this.deps.random.id(),
          accountId: t.accountId,
          environment: t.environment,
          name: t.domain,
          labels: [...t.labels],
          createdAt: now,
          ...registered,
        });
      // The seam with hosted domains: an existing zone of the account for the name carries over as is.
      await this.deps.zones.adopt(t.accountId, t.environment, t.domain);
      await this.deps.zones.serve(t.accountId, t.environment, t.domain, true);
      await this.deps.events.record('domain.transfer_in_completed', this.facts(t, 'registry', now), {
        ...this.money(t),
        expires_at: expiresOn,
      });
      return this.reload(t);
    });
  }

  /** A transfer in that ended without the name: the reservation is voided, the authInfo deleted. */
  async endIn(
    t: DomainTransfer,
    to: Extract<TransferPhase, 'failed' | 'rejected' | 'cancelled'>,
    error: string | null,
    rejected: boolean,
    now: Date,
    registryStatus?: string,
    actor = 'registry',
  ): Promise<DomainTransfer> {
    return this.deps.uow.transaction(async () => {
      const moved = await this.deps.transfers.advance(t.id, ACTIVE_PHASES, to, {
        error,
        finishedAt: now,
        ...(registryStatus ? { registryStatus } : {}),
      });
      if (!moved) return this.reload(t);
      if (t.ledgerEntryId) await this.deps.accounting.void(t.ledgerEntryId);
      if (to === 'cancelled') await this.deps.events.record('domain.transfer_in_cancelled', this.facts(t, actor, now), this.money(t));
      else
        await this.deps.events.record('domain.transfer_in_failed', this.facts(t, actor, now), {
          ...this.money(t),
          reason: error ?? to,
          rejected,
        });
      return this.reload(t);
    });
  }

  /**
   * The name went to another registrar: it leaves the account cleanly, its zone with it — unless an owner
   * asked to keep the zone (KeepZoneAfterTransferOut): then the domain stays as a hosted one, active, its
   * zone served without a gap, its registration now another registrar's business.
   */
  private async completeOut(t: DomainTransfer, state: TransferState, now: Date): Promise<DomainTransfer> {
    return this.deps.uow.transaction(async () => {
      if (!(await this.deps.transfers.advance(t.id, ACTIVE_PHASES, 'completed', { registryStatus: state.status, finishedAt: now })))
        return this.reload(t);
      const d = await this.deps.domains.find(t.accountId, t.environment, t.domain);
      const kept = t.keepZone === true && d !== null;
      if (kept)
        await this.deps.domains.update({
          ...d,
          registrar: 'external',
          status: [],
          expiresOn: null,
          autoRenew: false,
          autoRenewFailedFor: null,
          autoRenewKeyId: null,
          transferLock: false,
          nameservers: [...OUR_NAMESERVERS],
          hosting: {
            status: 'active',
            token: `domivka-verify=${this.deps.random.base62(32)}`,
            checkedAt: null,
            problem: null,
            proof: null,
          },
        });
      else {
        if (d) await this.deps.domains.remove(d.id);
        await this.deps.zones.remove(t.accountId, t.environment, t.domain);
      }
      await this.deps.events.record('domain.transfer_completed', this.facts(t, 'registry', now), {
        domain: t.domain,
        message_id: t.id,
        queued_at: now.toISOString(),
        text: kept
          ? `${t.domain} was transferred to another registrar; its zone stays here as a hosted domain, as an owner asked.`
          : `${t.domain} was transferred to another registrar; it left the account.`,
      });
      return this.reload(t);
    });
  }

  /** A transfer out that did not happen: the domain stays, without pendingTransfer. */
  async endOut(
    t: DomainTransfer,
    to: 'rejected' | 'cancelled',
    registryStatus: string,
    now: Date,
    actor = 'registry',
  ): Promise<DomainTransfer> {
    return this.deps.uow.transaction(async () => {
      if (!(await this.deps.transfers.advance(t.id, ACTIVE_PHASES, to, { registryStatus, finishedAt: now }))) return this.reload(t);
      const d = await this.deps.domains.find(t.accountId, t.environment, t.domain);
      if (d) {
        const rest = d.status.filter((s) => s !== 'pendingTransfer');
        await this.deps.domains.update({ ...d, status: rest.length > 0 ? rest : ['ok'] });
      }
      if (to === 'rejected')
        await this.deps.events.record('domain.transfer_out_rejected', this.facts(t, actor, now), { domain: t.domain, transfer_id: t.id });
      else
        await this.deps.events.record('domain.transfer_cancelled', this.facts(t, actor, now), {
          domain: t.domain,
          message_id: t.id,
          queued_at: now.toISOString(),
          text: `The transfer of ${t.domain} to another registrar was cancelled.`,
        });
      return this.reload(t);
    });
  }
}

/** The recovery point of a transfer a phased request settled (cancelled, or rejected out): its id. */
export const TRANSFER_ENDED = 'transfer_ended';
/**
 * The recovery point a phased cancel or reject reaches before it asks the registry: from then on the registry
 * may have answered it even if we never recorded that (a crash), and whoever settles the transfer next (a
 * retry, the worker's pass) may record it as the registry's. A retry past this point whose transfer ended the
 * way it asked answers that, not 409.
 */
export const TRANSFER_ASKED = 'transfer_registry_asked';

/** Whether a phased request for transfer `id` reached the registry (or settled) before this attempt. */
export const askedBefore = (checkpoints: Checkpoints | null, id: string): boolean =>
  (checkpoints?.last?.point === TRANSFER_ASKED || checkpoints?.last?.point === TRANSFER_ENDED) && checkpoints.last.data.transfer_id === id;

/** Records, as its own phase, that the request is about to ask the registry about transfer `id`. */
export const askingPhase = async (checkpoints: Checkpoints | null, id: string): Promise<void> => {
  if (checkpoints && !askedBefore(checkpoints, id)) await checkpoints.reach(TRANSFER_ASKED, async () => ({ transfer_id: id }));
};

/** Runs `settle` as the request's phase that records TRANSFER_ENDED (or as it is, without checkpoints). */
export const endedPhase = (checkpoints: Checkpoints | null, settle: () => Promise<DomainTransfer>): Promise<DomainTransfer> =>
  // Without checkpoints as it is: the settlement takes its own transactions.
  checkpoints ? inPhase(checkpoints, { transaction: (fn) => fn() }, TRANSFER_ENDED, settle, (t) => ({ transfer_id: t.id })) : settle();
