import { actorOf, type ApiKey } from '../kernel/caller.js';
import { inPhase, type Checkpoints } from '../kernel/checkpoints.port.js';
import type { Clock } from '../kernel/clock.port.js';
import { normalizeDomain } from '../kernel/domain-name.js';
import { DomainError } from '../kernel/errors.js';
import type { EventRecorder } from '../kernel/event-log.port.js';
import type { Random } from '../kernel/random.port.js';
import type { UnitOfWork } from '../kernel/unit-of-work.port.js';
import { isHosted, registrarOf, viewDomain, type Domain, type DomainView } from './domain.js';
import { ancestorsOf, challengeName, isPublicSuffix, OUR_NAMESERVERS, refuseServiceZone } from './hosting.js';
import type { DomainRepository } from './ports/domain-repository.port.js';
import type { DomainZones } from './ports/zones.port.js';
import type { VerifyHosting } from './verify-hosting.use-case.js';

/** What HostDomain is built from (one object, named, instead of positions). */
export interface HostDomainDeps {
  readonly domains: DomainRepository;
  readonly zones: Pick<DomainZones, 'createHosted'>;
  readonly verify: Pick<VerifyHosting, 'check'>;
  readonly events: EventRecorder;
  readonly uow: UnitOfWork;
  readonly clock: Clock;
  readonly random: Random;
  /** HOSTED_DOMAIN_LIMIT: hosted domains one account may hold per environment. */
  readonly limit: number;
  /** DNS_CATALOG_ZONE (null: none): the service's own zone, never an account's. */
  readonly catalogZone: string | null;
  /** Our nameservers (default OUR_NAMESERVERS): the zones their names sit in are the service's own. */
  readonly ours?: readonly string[];
}

/** The recovery point of a claim made through the phased route: the domain it stored. */
const CLAIMED = 'hosted_domain_claimed';

/** Served by someone: registered through us, or hosted and verified. */
const served = (d: Domain): boolean => !isHosted(d) || d.hosting?.status === 'active';

/**
 * POST /v1/hosted-domains (domain.host, class 1): a domain registered elsewhere joins the account with an
 * empty zone (apex SOA and NS, the service's), stored and editable through every DNS route but served only
 * once verified (VerifyHosting; the first check runs at once). Several accounts may claim a name while it is
 * unverified — a claim must not lock out the rightful holder — but not one another account serves.
 * A label-scoped key's labels are not given to the new domain: labels need domain.labels (class 3).
 *
 * Refused before anything is stored: the service's own zones and every name under them (serviceZones: the
 * catalog zone, our nameservers' zone); and a name inside a zone the account already holds — on the same
 * nameservers a child zone adds nothing a record in the parent cannot give, but it would hide the parent's
 * records under that name, and its creation needs no right on the parent (a key scoped to `www.<zone>` only)
 * while undoing it is class 3. Inside another account's served zone it is refused too (domain_parent_held_elsewhere).
 */
export class HostDomain {
  constructor(private readonly deps: HostDomainDeps) {}

  /**
   * With `checkpoints` (the phased route: the first check asks the DNS from the root, outside any
   * transaction), the claim is stored in one phase with its recovery point; a retry after a crash between
   * that phase and the stored answer checks the domain it stored instead of answering domain_already_yours.
   */
  async execute(key: ApiKey, input: { domain: string }, checkpoints: Checkpoints | null = null): Promise<DomainView> {
    const name = normalizeDomain(input.domain);
    let domain: Domain;
    if (checkpoints?.last?.point === CLAIMED) {
      // The claim committed before its answer was lost. Removed since (or replaced by another claim): it is
      // not made again behind the owner's back — a retry, or the completer, answers that it is gone.
      const resumed = await this.deps.domains.find(key.accountId, key.environment, name);
      if (!resumed || !isHosted(resumed) || resumed.id !== checkpoints.last.data.domain_id)
        throw new DomainError('domain_not_found', { domain: name });
      domain = resumed;
    } else {
      if (await isPublicSuffix(name)) throw new DomainError('domain_public_suffix', { domain: name });
      await refuseServiceZone(name, this.deps.catalogZone, this.deps.ours ?? OUR_NAMESERVERS);
      domain = await inPhase(
        checkpoints,
        this.deps.uow,
        CLAIMED,
        () => this.claim(key, name),
        (d) => ({ domain_id: d.id }),
      );
    }
    const { domain: checked } = await this.deps.verify.check(domain, actorOf(key));
    return viewDomain(checked);
  }

  /** Stores the claim: the domain, its empty zone and the event (inside the caller's transaction). */
  private async claim(key: ApiKey, name: string): Promise<Domain> {
    const mine = await this.deps.domains.find(key.accountId, key.environment, name);
    if (mine) throw new DomainError('domain_already_yours', { domain: name, registrar: registrarOf(mine) });
    const others = (await this.deps.domains.holdersOf(key.environment, name)).filter((d) => d.accountId !== key.accountId);
    if (others.some((d) => !isHosted(d))) throw new DomainError('domain_registered_here', { domain: name });
    // An active claim whose delegation check found a problem may be taken over by a fresh proof.
    if (others.some((d) => d.hosting?.status === 'active' && d.hosting.problem === null))
      throw new DomainError('domain_hosted_elsewhere', { domain: name });
    for (const parent of ancestorsOf(name)) {
      const holders = await this.deps.domains.holdersOf(key.environment, parent);
      if (holders.some((d) => d.accountId !== key.accountId && served(d)))
        throw new DomainError('domain_parent_held_elsewhere', { domain: name, parent });
      // The account's own zone, verified or not: once served, a child zone would hide its records.
      if (holders.some((d) => d.accountId === key.accountId)) throw new DomainError('domain_parent_in_account', { domain: name, parent });
    }
    if ((await this.deps.domains.countHosted(key.accountId, key.environment)) >= this.deps.limit)
      throw new DomainError('hosted_domain_limit_reached', { environment: key.environment, limit: this.deps.limit });
    const now = this.deps.clock.now();
    const created: Domain = {
      id: this.deps.random.id(),
      accountId: key.accountId,
      environment: key.environment,
      name,
      labels: [],
      status: [],
      expiresOn: null,
      autoRenew: false,
      transferLock: false,
      nameservers: [...OUR_NAMESERVERS],
      createdAt: now,
      registrar: 'external',
      hosting: {
        status: 'pending_delegation',
        token: `domivka-verify=${this.deps.random.base62(32)}`,
        checkedAt: null,
        problem: null,
        proof: null,
      },
    };
    await this.deps.domains.insert(created);
    await this.deps.zones.createHosted(key.accountId, key.environment, name);
    await this.deps.events.record(
      'domain.hosting_created',
      { accountId: key.accountId, environment: key.environment, subject: `domain:${name}`, actor: actorOf(key), occurredAt: now },
      { domain: name, verification_name: challengeName(name) },
    );
    return created;
  }
}
