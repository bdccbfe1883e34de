import { actorOf, type ApiKey } from '../kernel/caller.js';
import type { Accounting } from '../billing/accounting.js';
import type { EventRecorder } from '../kernel/event-log.port.js';
import type { AccountClock } from '../kernel/account-clock.port.js';
import type { Checkpoints } from '../kernel/checkpoints.port.js';
import { kyivDate } from '../kernel/dates.js';
import { normalizeDomain } from '../kernel/domain-name.js';
import type { Environment } from '../kernel/environment.js';
import type { RegistrarEnvironments } from './ports/registrar.port.js';
import { DomainError } from '../kernel/errors.js';
import { uah } from '../kernel/money.js';
import type { Random } from '../kernel/random.port.js';
import { requireCapability } from './capabilities.js';
import { isRegistered, viewDomain, type Domain, type DomainView, type RegisteredDomain } from './domain.js';
import { phaseOfStatus, phaseOn, RESTORE_FEE, statusFor } from './lifecycle.js';
import type { DomainLocks, DomainRepository } from './ports/domain-repository.port.js';
import { RegistryError } from './ports/registrar.port.js';
import { yearlyPrice } from './price-list.js';
import type { Charged } from './register-domain.use-case.js';

/** Who renews: a key (POST …/renewals), or the worker's automatic renewal. */
export type Renewer =
  | { kind: 'key'; key: ApiKey }
  /** The worker, which already holds the domain's lease (its claim). `spendingKey`: the still-valid key
   * that switched auto-renew on, whose spend limit the renewal counts against; null: the account's rules
   * (the balance only). */
  | {
      kind: 'auto';
      accountId: string;
      environment: Environment;
      leaseHeld: true;
      spendingKey?: { readonly id: string; readonly spendLimit: number | null } | null;
    };

/** What the 'reserved' recovery point keeps: the charge, the registry's client transaction id, the expiry renewed from. */
interface Reserved {
  readonly entryId: string;
  readonly opId: string;
  readonly expiresOn: string;
  readonly amount?: number;
  readonly restore?: boolean;
}

/** What RenewDomain is built from (one object, named, instead of positions). */
export interface RenewDomainDeps {
  readonly domains: DomainRepository;
  readonly locks: DomainLocks;
  readonly environments: RegistrarEnvironments;
  readonly accounting: Accounting;
  readonly events: EventRecorder;
  readonly time: AccountClock;
  readonly random: Random;
}

/**
 * Renewal (domain.renew, class 2): the same atomic phases as registration, under a per-domain lock so
 * concurrent renewals of one domain run one after another (DESIGN: serialised, not refused). In
 * redemptionPeriod a renewal is a restore and costs RESTORE_FEE on top; in pendingDelete it is refused.
 */
export class RenewDomain {
  constructor(private readonly deps: RenewDomainDeps) {}

  async execute(by: Renewer, input: { domain: string; years: number }, cp: Checkpoints): Promise<DomainView & Charged> {
    if (cp.last?.point === 'renewed') return cp.last.data.result as DomainView & Charged;
    const accountId = by.kind === 'key' ? by.key.accountId : by.accountId;
    const environment = by.kind === 'key' ? by.key.environment : by.environment;
    const name = normalizeDomain(input.domain);
    // Resuming a renewal that reserved its charge (a retry, the completer, the worker's next pass): it is
    // settled with the registry as it was reserved, whatever changed since; a refusal voids it.
    const resumed = cp.last?.point === 'reserved' ? (cp.last.data as unknown as Reserved) : null;
    const first = await this.deps.domains.find(accountId, environment, name);
    if (!first) {
      // Released meanwhile: the registry no longer renews it from our expiry; the charge comes back.
      if (resumed) await cp.reach('voided', async () => (await this.deps.accounting.void(resumed.entryId), {}));
      throw new DomainError('domain_not_found', { domain: name });
    }
    // A hosted domain is registered elsewhere: its renewal is the other registrar's.
    if (!isRegistered(first)) throw new DomainError('domain_not_registered_here', { domain: name });
    // The worker renews under the lease of its claim; a key's renewal takes the lease here.
    const locked = <T>(fn: () => Promise<T>) =>
      by.kind === 'auto' ? this.deps.locks.whileHeld(fn) : this.deps.locks.withLock(first.id, fn);
    return locked(async () => {
      // Read again under the lock, from the store (not a cached copy): an earlier renewal, maybe in another
      // process, may have just moved the expiry, and the registry refuses a renewal from the old one.
      const domain = (await this.deps.domains.find(accountId, environment, name)) as RegisteredDomain;
      const now = await this.deps.time.now(accountId, environment);
      // The worker renews by the phase it last recorded (it may be catching up after a pause).
      const phase = by.kind === 'auto' ? phaseOfStatus(domain.status) : phaseOn(domain.expiresOn, kyivDate(now));
      if (!resumed && (phase === 'pendingDelete' || phase === 'released')) {
        throw new DomainError('domain_not_renewable', { domain: name, status: 'pendingDelete' });
      }
      const registrar = requireCapability(this.deps.environments.get(environment).registrar, 'renew');
      // What was reserved is what is charged and told (records from before `amount` was kept: recomputed).
      const restore = resumed?.restore ?? phase === 'redemptionPeriod';
      const amount = resumed?.amount ?? yearlyPrice(name)! * input.years + (restore ? RESTORE_FEE : 0);
      const key = by.kind === 'key' ? { id: by.key.id, spendLimit: by.key.conditions.spendLimit } : (by.spendingKey ?? null);

      let reserved: Reserved | null = resumed;
      if (!reserved) {
        reserved = await cp.reach('reserved', async () => {
          const entry = await this.deps.accounting.reserve({
            accountId,
            environment,
            amount,
            kind: restore ? 'restore' : 'renewal',
            domain: name,
            description: `${restore ? 'Restore and renewal' : 'Renewal'} of ${name} for ${input.years} year(s)`,
            key,
          });
          return { entryId: entry.id, opId: this.deps.random.id(), expiresOn: domain.expiresOn, amount, restore };
        });
      }
      let registeredUntil: string;
      try {
        ({ registeredUntil } = await registrar.renew({
          domain: name,
          years: input.years,
          currentExpiry: reserved.expiresOn,
          clientTransactionId: reserved.opId,
        }));
      } catch (err) {
        if (!(err instanceof RegistryError)) throw err;
        await cp.reach('voided', async () => {
          await this.deps.accounting.void(reserved.entryId);
          return {};
        });
        throw new DomainError(err.refusal ?? 'registry_failure', {
          domain: name,
          ...(err.registryCode !== null ? { registry_code: err.registryCode } : {}),
        });
      }
      const out = await cp.reach('renewed', async () => {
        await this.deps.accounting.post(reserved.entryId);
        // The row as it is now (read in this transaction, locked on Postgres): the registry call took a
        // while, and a change of another field meanwhile (auto_renew, a pending operation) must survive.
        const current = (await this.deps.domains.find(accountId, environment, name)) ?? domain;
        const renewed: Domain = {
          ...current,
          expiresOn: registeredUntil,
          autoRenewFailedFor: null,
          status: statusFor(current.status, phaseOn(registeredUntil, kyivDate(now)), current.transferLock),
        };
        await this.deps.domains.update(renewed);
        const actor = by.kind === 'key' ? actorOf(by.key) : 'system:auto-renew';
        await this.deps.events.record(
          'domain.renewed',
          { accountId, environment, subject: `domain:${name}`, actor, occurredAt: now },
          { domain: name, years: input.years, expires_at: registeredUntil, amount, restore, automatic: by.kind === 'auto' },
        );
        return { result: { ...viewDomain(renewed), charge: { amount: uah(amount), ledger_entry_id: reserved.entryId } } };
      });
      return out.result;
    });
  }
}
