import type { Authorizer } from '../../access/authorize.js';
import { cidrContains } from '../../access/cidr.js';
import type { ApiKey } from '../../kernel/caller.js';
import type { Environment } from '../../kernel/environment.js';
import { isDomainError } from '../../kernel/errors.js';
import { dnsAccess, type DnsAccess } from '../dns-access.js';
import type { DnsPlans } from '../plans/dns-plans.use-case.js';
import type { ZoneRepository } from '../ports/zone-repository.port.js';
import { checkPrerequisites, planUpdates, type DnsUpdateRequest, type UpdateOutcome } from './dns-update.js';

/** What ApplyDnsUpdate is built from (one object, named, instead of positions). */
export interface ApplyDnsUpdateDeps {
  readonly zones: Pick<ZoneRepository, 'find'>;
  readonly plans: Pick<DnsPlans, 'create' | 'apply'>;
  readonly authorizer: Authorizer;
}

/** Where the message came in: the environment the listening port serves (null: both, development) and the sender. */
export interface UpdateContext {
  readonly serves: Environment | null;
  readonly peer: string;
}

const ATTEMPTS = 5;

/**
 * DNS UPDATE (RFC 2136) signed with a key's TSIG credential: the key's policies decide (dns.edit, or the
 * ACME-only right for TXT at _acme-challenge names), its CIDR too; the prerequisites are judged on the zone
 * the changes are planned on, and the plan is applied only if the zone is still that one (§3.2 and §3.4
 * as one atomic step) — through the same plan path as the API: checks, atomic commit, serial, event,
 * webhooks, NOTIFY. Every refusal is an rcode and a reason, never an exception.
 */
export class ApplyDnsUpdate {
  constructor(private readonly deps: ApplyDnsUpdateDeps) {}

  async execute(key: ApiKey, req: DnsUpdateRequest, ctx: UpdateContext): Promise<UpdateOutcome> {
    if (ctx.serves !== null && key.environment !== ctx.serves) {
      return {
        rcode: 'NOTAUTH',
        reason: key.environment === 'test' ? 'sandbox zones are not served on this port' : 'live zones are not served on this port',
      };
    }
    if (key.conditions.cidr && !cidrContains(key.conditions.cidr, ctx.peer)) {
      return { rcode: 'REFUSED', reason: `the key works only from ${key.conditions.cidr}` };
    }
    const zoneName = req.zone;
    const first = await this.deps.zones.find(key.accountId, key.environment, zoneName);
    if (!first) {
      const other: Environment = key.environment === 'test' ? 'live' : 'test';
      if (await this.deps.zones.find(key.accountId, other, zoneName)) {
        return { rcode: 'REFUSED', reason: `a ${key.environment} key cannot change a ${other} zone` };
      }
      return { rcode: 'NOTAUTH', reason: `not authoritative for ${zoneName}` };
    }
    let access: DnsAccess;
    try {
      access = await dnsAccess(this.deps.authorizer, key, zoneName);
    } catch (err) {
      if (isDomainError(err) && err.code === 'right_missing')
        return { rcode: 'REFUSED', reason: `the key holds neither dns.edit nor dns.acme_challenge on ${zoneName}` };
      throw err;
    }
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const zone = attempt === 0 ? first : await this.deps.zones.find(key.accountId, key.environment, zoneName);
      if (!zone) return { rcode: 'NOTAUTH', reason: `not authoritative for ${zoneName}` };
      const failed = checkPrerequisites(zoneName, zone.recordSets, req.prerequisites);
      if (failed) return failed;
      const planned = planUpdates(zoneName, zone.recordSets, req.updates, access);
      if (!('changes' in planned)) return planned;
      // §3.4.2: adding what is there or deleting what is not changes nothing; no serial is spent on it.
      if (planned.changes.length === 0) return { rcode: 'NOERROR', reason: 'nothing to change', serial: zone.serial };
      try {
        const plan = await this.deps.plans.create(key, zoneName, { changes: planned.changes.map((c) => ({ ...c })) });
        if (plan.base_serial !== zone.serial) continue; // the zone moved between our read and the plan's
        if (!plan.valid) {
          const error = plan.checks.find((c) => c.severity === 'error');
          return { rcode: 'REFUSED', reason: error ? `${error.rule}: ${error.message.en}` : 'the plan is invalid' };
        }
        const applied = await this.deps.plans.apply(key, zoneName, plan.id, { sameZone: true });
        return { rcode: 'NOERROR', reason: 'applied', serial: applied.serial };
      } catch (err) {
        if (!isDomainError(err)) throw err;
        if (err.code === 'plan_stale') continue; // another change won: judge the prerequisites again
        if (err.code === 'zone_busy') return { rcode: 'SERVFAIL', reason: 'the zone is busy; try again' };
        return { rcode: 'REFUSED', reason: `${err.code}` };
      }
    }
    return { rcode: 'SERVFAIL', reason: 'the zone is busy; try again' };
  }
}
