import type { InputRule } from './input-rule.js';

/**
 * DNSKEY, RRSIG, NSEC, NSEC3, NSEC3PARAM, CDS, CDNSKEY and the apex DS belong to the service (DESIGN:
 * DNSSEC): it makes them when it signs the zone (PUT …/dnssec), so a plan cannot write them.
 */
export const dnssecServiceOwned: InputRule = { id: 'dnssec-service-owned', severity: 'error', rfc: 'RFC 4034; RFC 7344; DESIGN (DNSSEC)' };
