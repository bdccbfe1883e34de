import { labelsGranting } from '../access/policy.js';
import { actorOf, type ApiKey } from '../kernel/caller.js';
import type { Accounting } from '../billing/accounting.js';
import type { EventRecorder } from '../kernel/event-log.port.js';
import type { AccountClock } from '../kernel/account-clock.port.js';
import type { Checkpoints } from '../kernel/checkpoints.port.js';
import type { DomainZones } from './ports/zones.port.js';
import { kyivDate } from '../kernel/dates.js';
import { labelsOf, normalizeDomain } from '../kernel/domain-name.js';
import type { RegistrarEnvironments } from './ports/registrar.port.js';
import { DomainError } from '../kernel/errors.js';
import { uah, type Money } from '../kernel/money.js';
import type { Random } from '../kernel/random.port.js';
import type { UnitOfWork } from '../kernel/unit-of-work.port.js';
import { requireCapability } from './capabilities.js';
import type { DisplaceHosted } from './displace-hosted.js';
import { viewDomain, type Domain, type DomainView } from './domain.js';
import { refuseServiceZone } from './hosting.js';
import type { DomainRepository } from './ports/domain-repository.port.js';
import { RegistryError } from './ports/registrar.port.js';
import { isRegistrable, PRICE_LIST, yearlyPrice } from './price-list.js';

export const DEFAULT_NAMESERVERS = ['ns1.domivka.net', 'ns2.domivka.net'];

export interface Charged {
  charge: { amount: Money; ledger_entry_id: string };
}

/** The labels a new domain carries: those of the key's domain.register policies that select a label. */
export const labelsForNewDomain = (key: ApiKey): string[] => labelsGranting(key.policies, 'domain.register');

export const takenError = (domain: string, registeredUntil: string | null): DomainError =>
  new DomainError('domain_taken', { domain, registered_until: registeredUntil ?? 'unknown', label: labelsOf(domain)[0]! });

/** What RegisterDomain is built from (one object, named, instead of positions). */
export interface RegisterDomainDeps {
  readonly domains: DomainRepository;
  readonly environments: RegistrarEnvironments;
  readonly accounting: Accounting;
  readonly events: EventRecorder;
  readonly time: AccountClock;
  readonly zones: Pick<DomainZones, 'create'>;
  readonly uow: UnitOfWork;
  readonly random: Random;
  /** Other accounts' hosted claims of the name leave when it is registered here (a registration always wins). */
  readonly displace?: Pick<DisplaceHosted, 'execute'>;
  /** DNS_CATALOG_ZONE (null: none): the service's own zone, with our nameservers' zone never registered here. */
  readonly catalogZone: string | null;
}

/**
 * POST /v1/domains (domain.register, class 2). Atomic phases:
 *   1. reserve: check availability, then the spend limit and the balance and a pending charge — one tx;
 *   2. the registry call, idempotent by its client transaction id (outside our database);
 *   3. commit: post the charge, insert the domain, events, owner notices — one tx.
 * A registry refusal voids the charge (nothing charged). A crash anywhere resumes from the last phase
 * on a retry with the same Idempotency-Key: one domain, one charge.
 */
export class RegisterDomain {
  constructor(private readonly deps: RegisterDomainDeps) {}

  async execute(
    key: ApiKey,
    input: { domain: string; years: number; auto_renew?: boolean },
    cp: Checkpoints,
  ): Promise<DomainView & Charged> {
    const name = normalizeDomain(input.domain);
    if (cp.last?.point === 'registered') return cp.last.data.result as DomainView & Charged;
    const price = yearlyPrice(name);
    if (price === null || !isRegistrable(name)) throw new DomainError('tld_not_supported', { domain: name, tlds: Object.keys(PRICE_LIST) });
    // Its zone would be an account's: never the catalog's or our nameservers' (the sandbox registers any free name).
    await refuseServiceZone(name, this.deps.catalogZone);
    const amount = price * input.years;
    const registrar = requireCapability(this.deps.environments.get(key.environment).registrar, 'register');

    let reserved = cp.last?.point === 'reserved' ? (cp.last.data as { entryId: string; opId: string }) : null;
    if (!reserved) {
      if (await this.deps.domains.find(key.accountId, key.environment, name))
        throw new DomainError('domain_already_yours', { domain: name });
      const [availability] = await registrar.check([name]);
      if (!availability!.available) throw takenError(name, availability!.registeredUntil);
      reserved = await cp.reach('reserved', async () => {
        const entry = await this.deps.accounting.reserve({
          accountId: key.accountId,
          environment: key.environment,
          amount,
          kind: 'registration',
          domain: name,
          description: `Registration of ${name} for ${input.years} year(s)`,
          key: { id: key.id, spendLimit: key.conditions.spendLimit },
        });
        return { entryId: entry.id, opId: this.deps.random.id() };
      });
    }

    const now = await this.deps.time.now(key.accountId, key.environment);
    let registeredUntil: string;
    try {
      ({ registeredUntil } = await registrar.register({
        domain: name,
        years: input.years,
        nameservers: DEFAULT_NAMESERVERS,
        clientTransactionId: reserved.opId,
        today: kyivDate(now),
      }));
    } catch (err) {
      if (!(err instanceof RegistryError)) throw err; // unknown outcome: keep the reservation; a retry resumes
      await cp.reach('voided', async () => {
        await this.deps.accounting.void(reserved.entryId);
        return {};
      });
      if (err.reason === 'taken') throw takenError(name, err.registeredUntil);
      throw new DomainError(err.refusal ?? 'registry_failure', {
        domain: name,
        ...(err.registryCode !== null ? { registry_code: err.registryCode } : {}),
      });
    }

    const result = await cp.reach('registered', async () => {
      await this.deps.accounting.post(reserved.entryId);
      const domain: Domain = {
        id: this.deps.random.id(),
        accountId: key.accountId,
        environment: key.environment,
        name,
        labels: labelsForNewDomain(key),
        status: ['clientTransferProhibited'],
        expiresOn: registeredUntil,
        autoRenew: input.auto_renew ?? true,
        transferLock: true,
        nameservers: DEFAULT_NAMESERVERS,
        createdAt: now,
        autoRenewFailedFor: null,
      };
      await this.deps.displace?.execute(key.environment, name, key.accountId);
      await this.deps.domains.insert(domain);
      await this.deps.zones.create(key.accountId, key.environment, name);
      await this.deps.events.record(
        'domain.registered',
        { accountId: key.accountId, environment: key.environment, subject: `domain:${name}`, actor: actorOf(key), occurredAt: now },
        { domain: name, years: input.years, expires_at: registeredUntil, amount, ledger_entry_id: reserved.entryId },
      );
      return { result: { ...viewDomain(domain), charge: { amount: uah(amount), ledger_entry_id: reserved.entryId } } };
    });
    return result.result;
  }
}
