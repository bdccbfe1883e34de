import type { Authorizer } from '../../access/authorize.js';
import type { ApiKey } from '../../kernel/caller.js';
import { isDomainError } from '../../kernel/errors.js';
import type { UpdateOutcome } from './dns-update.js';

/**
 * Which zones a signed message (UPDATE, AXFR/IXFR) may learn we serve. The API answers right_missing alike for a
 * domain of the account outside the key's scope and for an unknown name; DNS must not tell them apart either.
 * So a key with no DNS right on the zone (neither dns.read, which dns.edit implies, nor dns.acme_challenge) is
 * refused alike (`outOfSight`), decided before the zone is read, so neither its existence nor whether a hosted
 * zone is verified shows. REFUSED, a policy refusal (RFC 1035 §4.1.1; RFC 2136 §3 lets a server refuse an update
 * it will not do), not NOTAUTH: the Go DNS library that lego, external-dns and Terraform's provider use reads any
 * NOTAUTH answer to a signed request as a TSIG failure ("dns: bad authentication"), which would send a person to
 * check a secret that is right. A key with some DNS right on the zone may know of it (its own scope names it,
 * and the API tells it): refused by policy too when its right is not the one asked, with its own reason.
 */
export const seesZone = async (authorizer: Authorizer, key: ApiKey, zone: string): Promise<boolean> => {
  try {
    return (await authorizer.allows(key, 'dns.read', zone)) || (await authorizer.allows(key, 'dns.acme_challenge', zone));
  } catch (err) {
    // A name no zone of ours can have (`_acme-challenge.x`, a TLD): not ours.
    if (isDomainError(err) && err.code === 'domain_invalid') return false;
    throw err;
  }
};

/** What a key answers for a zone it may not know of, whether the zone exists or not: the same bytes either way. */
export const outOfSight = (zone: string): UpdateOutcome => ({ rcode: 'REFUSED', reason: `the key holds no DNS right on ${zone}` });

/** What a zone the key may know of, but that we do not serve (an unverified hosted zone), answers. */
export const notAuthoritative = (zone: string): UpdateOutcome => ({ rcode: 'NOTAUTH', reason: `not authoritative for ${zone}` });
