import { createHash } from 'node:crypto';
import type { RecordSet } from '../../core/dns/zone/record-set.js';
import type { Zone } from '../../core/dns/zone/zone.js';

/**
 * A catalog zone (RFC 9432, schema version 2) listing every zone the hidden primary serves, so a
 * secondary configured once (Knot: `catalog-role: interpret`) adds and drops member zones by itself.
 * Every DNS worker builds the same catalog from the store: the member list is the served zones and the
 * serial is the store's catalog version (bumped in the transaction that adds or removes a zone), so
 * whichever worker a secondary asks answers the same serial with the same content, across restarts too.
 */
export interface CatalogVersion {
  /** The store's catalog version: grows whenever a zone is added or removed. */
  catalogSerial(): Promise<number>;
}

/**
 * A member's unique id (RFC 9432 §4.3): a stable label derived from the zone's name, so a restart or
 * another worker names it the same (a changed id would make the secondary drop and re-add the zone).
 */
export const catalogMemberId = (domain: string): string =>
  createHash('sha256').update(domain.toLowerCase().replace(/\.$/, '')).digest('hex').slice(0, 32);

/** A catalog's members as it lists them: lower case, no trailing dot, each once, in order. */
export const catalogMembers = (members: Iterable<string>): string[] =>
  [...new Set([...members].map((m) => m.toLowerCase().replace(/\.$/, '')))].sort();

/** The catalog's SOA at `serial` (RFC 9432 §4.1: a placeholder). */
export const catalogSoa = (apex: string, serial: number): RecordSet => ({
  name: apex,
  type: 'SOA',
  ttl: 0,
  values: [`invalid. invalid. ${serial} 3600 600 2147483646 0`],
});

/** The record that lists one member (a name as catalogMembers gives it). */
export const catalogMember = (apex: string, member: string): RecordSet => ({
  name: `${catalogMemberId(member)}.zones.${apex}`,
  type: 'PTR',
  ttl: 0,
  values: [`${member}.`],
});

/** The catalogs catalogZone built: the only zones a nameserver takes as its catalog (isBuiltCatalog). */
const built = new WeakSet<Zone>();

/**
 * Whether `zone` is a catalog catalogZone built, not an account's zone that bears the catalog's name: a
 * stored zone must never stand in for the catalog, which every secondary follows (catalog-role: interpret).
 */
export const isBuiltCatalog = (zone: Zone): boolean => built.has(zone);

/** Whether `name` is the catalog `catalog` or a name under it (both lower case, no trailing dot): the catalog's alone. */
export const inCatalog = (name: string, catalog: string): boolean => name === catalog || name.endsWith(`.${catalog}`);

/** The catalog as a zone the embedded server serves (and transfers) like any other; `sorted`: members already as catalogMembers gives them. */
export const catalogZone = (name: string, serial: number, members: Iterable<string>, sorted = false): Zone => {
  const apex = name.toLowerCase().replace(/\.$/, '');
  const list = sorted ? [...members] : catalogMembers(members);
  const zone: Zone = {
    domain: apex,
    serial,
    recordSets: [
      catalogSoa(apex, serial),
      // RFC 9432 §4.1: the SOA and NS are placeholders; the NS target is the invalid TLD.
      { name: apex, type: 'NS', ttl: 0, values: ['invalid.'] },
      { name: `version.${apex}`, type: 'TXT', ttl: 0, values: ['2'] },
      ...list.map((m) => catalogMember(apex, m)),
    ],
  };
  built.add(zone);
  return zone;
};
