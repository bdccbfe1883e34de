import type { Authorizer } from '../../access/authorize.js';
import type { ApiKey } from '../../kernel/caller.js';
import { isDomainError } from '../../kernel/errors.js';
import type { UpdateOutcome } from './dns-update.js';

/**
 * Which zones a signed message (UPDATE, AXFR/IXFR) may learn we serve. The API answers right_missing alike for a
 * domain of the account outside the key's scope and for an unknown name; DNS must not tell them apart either.
 * So a key with no DNS right on the zone (neither dns.read, which dns.edit implies, nor dns.acme_challenge)
 * gets NOTAUTH, what a zone we do not serve gets (RFC 2136 §3.1.1; RFC 8945 §5.2 keeps NOTAUTH for a zone the
 * server is not authoritative for) — decided before the zone is read, so neither its existence nor whether a
 * hosted zone is verified shows. A key with some DNS right on the zone may know of it (its own scope names it,
 * and the API tells it): it is refused by policy, REFUSED (RFC 1035 §4.1.1), when its right is not the one asked.
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

/** What a zone we do not serve, or one the key may not know of, answers. */
export const notAuthoritative = (zone: string): UpdateOutcome => ({ rcode: 'NOTAUTH', reason: `not authoritative for ${zone}` });
