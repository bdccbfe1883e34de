import { actorOf, type ApiKey } from '../kernel/caller.js';
import type { Clock } from '../kernel/clock.port.js';
import { normalizeDomain } from '../kernel/domain-name.js';
import type { Environments } from '../kernel/environments.port.js';
import { DomainError } from '../kernel/errors.js';
import type { EventRecorder } from '../kernel/event-log.port.js';
import type { UnitOfWork } from '../kernel/unit-of-work.port.js';
import { isHosted, viewDomain, type Domain, type DomainView } from './domain.js';
import { challengeName, isOurNameserver, OUR_NAMESERVERS, PROBLEMS, type Hosting, type HostingProblem } from './hosting.js';
import { DelegationLookupError, type DelegationLookup, type DelegationResolver } from './ports/delegation-resolver.port.js';
import type { DomainRepository } from './ports/domain-repository.port.js';
import type { DomainZones } from './ports/zones.port.js';

/** What VerifyHosting is built from (one object, named, instead of positions). */
export interface VerifyHostingDeps {
  readonly domains: DomainRepository;
  readonly zones: Pick<DomainZones, 'serve'>;
  readonly environments: Environments<{ readonly delegations: DelegationResolver }>;
  readonly events: EventRecorder;
  readonly uow: UnitOfWork;
  readonly clock: Clock;
  /** Our nameservers (default OUR_NAMESERVERS). */
  readonly ours?: readonly string[];
}

export type CheckOutcome = 'activated' | 'active' | 'pending' | 'problem' | 'unknown';

/**
 * POST /v1/domains/{domain}/hosting/verify, the creation's first check and the worker's re-check: asks the
 * parent (from the root down) where the domain is delegated and what its outside nameservers serve at
 * `_domivka-challenge.<domain>`, then decides.
 *
 *  - pending → active: the TXT proof served now by the delegated nameservers that are not ours; or a
 *    delegation to ours after a TXT proof this claim saw on the previous, outside nameservers. A parent that
 *    delegates to us proves nothing alone: every zone shares our nameservers (a dangling delegation).
 *  - active: the delegation gone or moved entirely elsewhere sets `hosting.problem` (event, owners told);
 *    the zone stays served. A lookup that fails changes nothing that is served.
 *  - a domain registered through us always wins; an activation displaces another account's active claim
 *    (which must have lost its delegation, since this claim's proof comes from the current nameservers).
 */
export class VerifyHosting {
  constructor(private readonly deps: VerifyHostingDeps) {}

  private get ours(): readonly string[] {
    return this.deps.ours ?? OUR_NAMESERVERS;
  }

  async execute(key: ApiKey, name: string, loaded?: Domain | null): Promise<DomainView> {
    const normalized = normalizeDomain(name);
    const domain = loaded !== undefined ? loaded : await this.deps.domains.find(key.accountId, key.environment, normalized);
    if (!domain) throw new DomainError('domain_not_found', { domain: normalized });
    if (!isHosted(domain) || !domain.hosting) throw new DomainError('domain_not_hosted', { domain: normalized });
    const { domain: after } = await this.check(domain, actorOf(key));
    return viewDomain(after);
  }

  /** One check of one hosted domain; returns the domain as it is afterwards. */
  async check(domain: Domain, actor: string): Promise<{ outcome: CheckOutcome; domain: Domain }> {
    const hosting = domain.hosting!;
    let lookup: DelegationLookup | null = null;
    let failure: string | null = null;
    try {
      lookup = await this.deps.environments.get(domain.environment).delegations.lookup({
        accountId: domain.accountId,
        domain: domain.name,
        challenge: challengeName(domain.name),
        expected: hosting.token,
        ours: this.ours,
      });
    } catch (err) {
      if (!(err instanceof DelegationLookupError)) throw err;
      failure = err.message;
    }
    const now = this.deps.clock.now();
    return this.deps.uow.transaction(async () => {
      // Judged on the row as it is now (another check may have finished meanwhile).
      const current = await this.deps.domains.find(domain.accountId, domain.environment, domain.name);
      if (!current || !current.hosting) return { outcome: 'unknown' as const, domain };
      const h = current.hosting;
      if (lookup === null) {
        // Never stop serving, nor un-verify, on a failed lookup alone; a pending claim hears why.
        const problem = h.status === 'pending_delegation' ? PROBLEMS.lookupFailed(current.name, failure ?? 'unknown') : h.problem;
        return { outcome: 'unknown' as const, domain: await this.save(current, { ...h, checkedAt: now, problem }, actor) };
      }
      if (lookup.kind === 'not_delegated') {
        const problem = h.status === 'active' ? PROBLEMS.lost(current.name, []) : PROBLEMS.notDelegated(current.name);
        return { outcome: 'problem' as const, domain: await this.save(current, { ...h, checkedAt: now, problem }, actor) };
      }
      const outside = lookup.nameservers.filter((ns) => !isOurNameserver(ns, this.ours));
      const toUs = outside.length < lookup.nameservers.length;
      const provenNow = lookup.askedNameservers.length > 0 && lookup.txt.includes(h.token);
      const proof = provenNow ? { nameservers: [...lookup.askedNameservers], at: now.toISOString() } : h.proof;
      if (h.status === 'active') {
        const problem = toUs ? null : PROBLEMS.lost(current.name, outside);
        return {
          outcome: problem ? ('problem' as const) : ('active' as const),
          domain: await this.save(current, { ...h, checkedAt: now, problem, proof }, actor),
        };
      }
      if (provenNow || (toUs && h.proof !== null)) {
        const activated = await this.activate(current, { ...h, checkedAt: now, proof }, lookup.nameservers, actor);
        return { outcome: activated.hosting?.status === 'active' ? ('activated' as const) : ('problem' as const), domain: activated };
      }
      const problem = outside.length > 0 ? PROBLEMS.txtMissing(current.name, outside) : PROBLEMS.unproven(current.name);
      return { outcome: 'problem' as const, domain: await this.save(current, { ...h, checkedAt: now, problem, proof }, actor) };
    });
  }

  /** Writes the hosting state; a new problem becomes an event (the owners hear of those on active zones). */
  private async save(domain: Domain, hosting: Hosting, actor: string): Promise<Domain> {
    const updated: Domain = { ...domain, hosting };
    await this.deps.domains.update(updated);
    if (hosting.problem && hosting.problem.code !== domain.hosting?.problem?.code) await this.problemEvent(updated, hosting.problem, actor);
    return updated;
  }

  private async problemEvent(domain: Domain, problem: HostingProblem, actor: string): Promise<void> {
    await this.deps.events.record(
      'domain.hosting_problem',
      {
        accountId: domain.accountId,
        environment: domain.environment,
        subject: `domain:${domain.name}`,
        actor,
        occurredAt: this.deps.clock.now(),
      },
      { domain: domain.name, status: domain.hosting!.status, code: problem.code, message: { ...problem.message } },
    );
  }

  private async activate(domain: Domain, hosting: Hosting, nameservers: readonly string[], actor: string): Promise<Domain> {
    const others = (await this.deps.domains.holdersOf(domain.environment, domain.name)).filter((d) => d.accountId !== domain.accountId);
    if (others.some((d) => !isHosted(d))) {
      return this.save(
        domain,
        {
          ...hosting,
          problem: {
            code: 'registered_here',
            message: {
              uk: `Домен ${domain.name} зареєстровано через Domivka в іншому рахунку; зареєстрований у нас домен завжди має перевагу.`,
              en: `The domain ${domain.name} is registered through Domivka by another account; a domain registered here always wins.`,
            },
          },
        },
        actor,
      );
    }
    for (const other of others) {
      if (other.hosting?.status !== 'active') continue;
      await this.displace(other, actor);
    }
    const updated: Domain = { ...domain, hosting: { ...hosting, status: 'active', problem: null } };
    await this.deps.domains.update(updated);
    await this.deps.zones.serve(domain.accountId, domain.environment, domain.name, true);
    await this.deps.events.record(
      'domain.hosting_verified',
      {
        accountId: domain.accountId,
        environment: domain.environment,
        subject: `domain:${domain.name}`,
        actor,
        occurredAt: this.deps.clock.now(),
      },
      { domain: domain.name, nameservers: [...nameservers], proof_nameservers: [...(hosting.proof?.nameservers ?? [])] },
    );
    return updated;
  }

  /** Another account's active claim whose holder no longer controls the delegation: stored, no longer served. */
  private async displace(other: Domain, actor: string): Promise<void> {
    const problem = PROBLEMS.takenOver(other.name);
    const demoted: Domain = { ...other, hosting: { ...other.hosting!, status: 'pending_delegation', problem, proof: null } };
    await this.deps.zones.serve(other.accountId, other.environment, other.name, false);
    await this.deps.domains.update(demoted);
    await this.problemEvent(demoted, problem, actor);
  }
}
