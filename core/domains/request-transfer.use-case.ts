import type { Accounting } from '../billing/accounting.js';
import { actorOf, type ApiKey } from '../kernel/caller.js';
import type { AccountClock } from '../kernel/account-clock.port.js';
import type { Checkpoints } from '../kernel/checkpoints.port.js';
import { normalizeDomain } from '../kernel/domain-name.js';
import { DomainError } from '../kernel/errors.js';
import type { RecordingDeps } from '../kernel/recording-deps.js';
import type { SecretBox } from '../kernel/secret-box.port.js';
import { requireCapability } from './capabilities.js';
import { isHosted } from './domain.js';
import { refuseServiceZone } from './hosting.js';
import type { DomainRepository } from './ports/domain-repository.port.js';
import type { DsRecord, Registrar, RegistrarEnvironments } from './ports/registrar.port.js';
import { dsMatchesOurs, transferDsWarning, type DsWarning, type OurDsRecords } from './ds-warnings.js';
import type { DomainHolders } from './ports/registry-messages.port.js';
import type { TransferRepository } from './ports/transfer-repository.port.js';
import { isRegistrable, PRICE_LIST, yearlyPrice } from './price-list.js';
import { labelsForNewDomain } from './register-domain.use-case.js';
import { viewTransfer, type DomainTransfer, type TransferView } from './transfer.js';
import type { TransferSettlement } from './transfer-settlement.js';

/** What RequestTransfer is built from (one object, named, instead of positions). */
export interface RequestTransferDeps extends RecordingDeps {
  readonly domains: DomainRepository;
  readonly holders: DomainHolders;
  readonly transfers: TransferRepository;
  readonly environments: RegistrarEnvironments;
  readonly accounting: Accounting;
  readonly time: AccountClock;
  readonly box: SecretBox;
  readonly settlement: TransferSettlement;
  /** Our DS for a zone the account already has here (a hosted domain moving its registration in). */
  readonly ourDs?: OurDsRecords;
  /** DNS_CATALOG_ZONE (null: none): the service's own zone, with our nameservers' zone never an account's. */
  readonly catalogZone: string | null;
}

/**
 * POST /v1/domains/{domain}/transfers (domain.register, class 2: acquiring a name by transfer). Phases:
 *   1. reserve: the checks, the spend limit, the balance, a pending charge of years × the renewal price and
 *      the transfer (its authInfo sealed) — one transaction; a second transfer of the name under way makes
 *      the whole transaction roll back (the unique `active` mark), so two parallel requests charge once;
 *   2. the registry request, idempotent by the transfer's client transaction id;
 *   3. its answer is applied by TransferSettlement: pending; or refused (the charge voided, the error
 *      returned); a registry outage leaves it pending and the worker's pass asks again with the same id.
 * The charge is posted when the name arrives, or voided when the transfer fails, is rejected or cancelled.
 * A crash anywhere resumes from the last phase (a retry with the same Idempotency-Key, or the pass).
 */
export class RequestTransfer {
  constructor(private readonly deps: RequestTransferDeps) {}

  async execute(key: ApiKey, input: { domain: string; auth_code: string; years?: number }, cp: Checkpoints): Promise<TransferView> {
    const name = normalizeDomain(input.domain);
    if (cp.last?.point === 'answered') return cp.last.data.result as TransferView;
    const price = yearlyPrice(name);
    if (price === null || !isRegistrable(name)) throw new DomainError('tld_not_supported', { domain: name, tlds: Object.keys(PRICE_LIST) });
    await refuseServiceZone(name, this.deps.catalogZone);
    const years = input.years ?? 1;
    const amount = price * years;
    const registrar = requireCapability(this.deps.environments.get(key.environment).registrar, 'transfer_request');

    let reserved = cp.last?.point === 'reserved' ? (cp.last.data as { transferId: string }) : null;
    if (!reserved) {
      // A hosted domain of this account may move its registration here (its zone carries over at completion).
      const mine = await this.deps.domains.find(key.accountId, key.environment, name);
      if (mine && !isHosted(mine)) throw new DomainError('domain_already_yours', { domain: name });
      // Held by another account here: no transfer between registrars, and nothing about that account leaks.
      if (await this.deps.holders.holderOf(key.environment, name)) throw new DomainError('domain_not_found', { domain: name });
      // The account's clock, as for a registration: in the sandbox, time travel moves the transfer's dates too.
      const now = await this.deps.time.now(key.accountId, key.environment);
      reserved = await cp.reach('reserved', async () => {
        const active = await this.deps.transfers.activeFor(key.environment, name);
        if (active) throw new DomainError('transfer_already_pending', { domain: name });
        const entry = await this.deps.accounting.reserve({
          accountId: key.accountId,
          environment: key.environment,
          amount,
          kind: 'transfer',
          domain: name,
          description: `Transfer of ${name} with ${years} year(s)`,
          key: { id: key.id, spendLimit: key.conditions.spendLimit },
        });
        const t: DomainTransfer = {
          id: this.deps.random.id(),
          accountId: key.accountId,
          environment: key.environment,
          domain: name,
          direction: 'in',
          status: 'requesting',
          years,
          amount,
          ledgerEntryId: entry.id,
          keyId: key.id,
          requestedBy: actorOf(key),
          labels: labelsForNewDomain(key),
          authCode: this.deps.box.seal(input.auth_code),
          clientTransactionId: this.deps.random.id(),
          registryStatus: null,
          actionAt: null,
          registeredUntil: null,
          error: null,
          createdAt: now,
          finishedAt: null,
        };
        // Lost a race with a parallel request: this transaction (and its reservation) rolls back.
        if (!(await this.deps.transfers.insertActive(t))) throw new DomainError('transfer_already_pending', { domain: name });
        await this.deps.events.record(
          'domain.transfer_in_requested',
          { accountId: key.accountId, environment: key.environment, subject: `domain:${name}`, actor: actorOf(key), occurredAt: now },
          { domain: name, transfer_id: t.id, years, amount, ledger_entry_id: entry.id },
        );
        return { transferId: t.id };
      });
    }

    const t = await this.deps.transfers.find(key.accountId, key.environment, reserved.transferId);
    if (!t) throw new DomainError('transfer_not_found', { transfer_id: reserved.transferId });
    const now = await this.deps.time.now(key.accountId, key.environment);
    const { transfer, refusal } =
      t.status === 'requesting' ? await this.deps.settlement.ask(t, registrar, now) : { transfer: t, refusal: null };
    if (refusal) throw refusal;
    const warnings =
      transfer.status === 'failed' || transfer.status === 'rejected' ? [] : await this.dsWarnings(key, name, registrar, input.auth_code);
    const result = await cp.reach('answered', async () => ({
      result: { ...viewTransfer(transfer), ...(warnings.length > 0 ? { warnings } : {}) },
    }));
    return result.result;
  }

  /**
   * A DS at the registry that none of our keys match (the current operator signs the zone): the transfer
   * carries it over, and our nameservers take over at completion, so it warns (dnssec_ds_at_parent) with
   * the safe orders. A registry that cannot tell (no ds_set, or an error) gives no warning.
   */
  private async dsWarnings(key: ApiKey, name: string, registrar: Registrar, authInfo: string): Promise<DsWarning[]> {
    if (!registrar.capabilities.has('ds_set')) return [];
    let held: DsRecord[];
    try {
      // The name is still the losing registrar's: the transfer code opens its full info.
      held = await requireCapability(registrar, 'ds_set').dsRecords(name, authInfo);
    } catch {
      return [];
    }
    if (held.length === 0) return [];
    const ours = (await this.deps.ourDs?.of(key.accountId, key.environment, name)) ?? [];
    return dsMatchesOurs(held, ours)
      ? []
      : [
          transferDsWarning(
            name,
            held.map((d) => d.keyTag),
          ),
        ];
  }
}
