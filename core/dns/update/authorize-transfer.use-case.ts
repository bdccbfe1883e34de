import type { Authorizer } from '../../access/authorize.js';
import { cidrContains } from '../../access/cidr.js';
import type { ApiKey } from '../../kernel/caller.js';
import type { ZoneRepository } from '../ports/zone-repository.port.js';
import type { UpdateContext } from './apply-dns-update.use-case.js';
import type { UpdateOutcome } from './dns-update.js';
import { notAuthoritative, outOfSight, seesZone } from './zone-visibility.js';

/**
 * AXFR/IXFR signed with a key's TSIG credential (DESIGN: "Signed AXFR/IXFR needs dns.read"): the key holds
 * dns.read (or dns.edit) on the zone — an ACME-only key does not — works from this address, and the zone
 * is one of its environment served on this port. Then a secondary elsewhere is authorised without
 * trusting its address. A key with no DNS right on the zone is refused alike whether the account has the zone
 * or not (zone-visibility.ts); one that may know of it but lacks dns.read is refused with its reason; a zone it
 * may know of that we do not serve (an unverified hosted one) is NOTAUTH.
 */
export class AuthorizeTransfer {
  constructor(private readonly deps: { readonly zones: Pick<ZoneRepository, 'find'>; readonly authorizer: Authorizer }) {}

  async execute(key: ApiKey, zone: string, ctx: UpdateContext): Promise<UpdateOutcome> {
    if (ctx.serves !== null && key.environment !== ctx.serves)
      return { rcode: 'NOTAUTH', reason: "this port does not serve the key's environment" };
    if (key.conditions.cidr && !cidrContains(key.conditions.cidr, ctx.peer))
      return { rcode: 'REFUSED', reason: `the key works only from ${key.conditions.cidr}` };
    // Not a key that may know of the zone: refused alike whether it exists or not, before the zone is read (zone-visibility.ts).
    if (!(await seesZone(this.deps.authorizer, key, zone))) return outOfSight(zone);
    // A hosted zone not verified yet is never transferred (zone.ts `served`): as if we did not serve it.
    const stored = await this.deps.zones.find(key.accountId, key.environment, zone);
    if (!stored || stored.served === false) return notAuthoritative(zone);
    // It sees the zone (an ACME-only key): refused by policy.
    if (!(await this.deps.authorizer.allows(key, 'dns.read', zone)))
      return { rcode: 'REFUSED', reason: `the key does not hold dns.read on ${zone}` };
    return { rcode: 'NOERROR', reason: 'transfer authorised' };
  }
}
