import type { ApiKey } from '../../kernel/caller.js';
import { normalizeDomain } from '../../kernel/domain-name.js';
import { DomainError } from '../../kernel/errors.js';
import { clampLimit, decodeCursor, encodeCursor, type Page } from '../../kernel/pagination.js';
import type { ZoneRepository } from '../ports/zone-repository.port.js';
import { rrsetKey, SERVICE_NAMESERVERS, type RecordSet } from './record-set.js';
import type { StoredZone } from './zone.js';
import { formatZoneFile } from './zone-file.js';

export interface RecordSetView {
  name: string;
  type: string;
  ttl: number;
  values: string[];
}

/** GET /v1/domains/{domain}/dns/records (dns.read): the zone's record sets, by name then type. */
export class ReadZone {
  constructor(private readonly zones: ZoneRepository) {}

  async zone(key: ApiKey, domain: string): Promise<StoredZone> {
    const name = normalizeDomain(domain);
    const zone = await this.zones.find(key.accountId, key.environment, name);
    if (!zone) throw new DomainError('domain_not_found', { domain: name });
    return zone;
  }

  /** GET …/dns/zone: the zone as a BIND master file. */
  async zoneFile(key: ApiKey, domain: string): Promise<string> {
    return formatZoneFile(await this.zone(key, domain));
  }

  async records(
    key: ApiKey,
    domain: string,
    opts: { cursor?: string; limit?: number; name?: string; type?: string },
  ): Promise<Page<RecordSetView> & { serial: number } & Delegation> {
    const zone = await this.zone(key, domain);
    const limit = clampLimit(opts.limit);
    const after = decodeCursor(opts.cursor);
    const sorted = [...zone.recordSets]
      .filter((s) => (opts.name === undefined || s.name === opts.name) && (opts.type === undefined || s.type === opts.type))
      .sort((a, b) => (a.name === b.name ? a.type.localeCompare(b.type) : a.name.localeCompare(b.name)));
    const start = after === undefined ? 0 : sorted.findIndex((s) => rrsetKey(s.name, s.type) > after);
    const slice = start < 0 ? [] : sorted.slice(start, start + limit + 1);
    const page = slice.slice(0, limit);
    return {
      serial: zone.serial,
      ...delegationOf(zone),
      data: page.map(view),
      next_cursor: slice.length > limit ? encodeCursor(rrsetKey(page.at(-1)!.name, page.at(-1)!.type)) : null,
    };
  }
}

export const view = (s: RecordSet): RecordSetView => ({ name: s.name, type: s.type, ttl: s.ttl, values: [...s.values] });

/** Whether the world sees this zone: the apex NS follows the domain's delegation, so a domain
 * moved to nameservers outside ours keeps its zone here, but it is not served by us. */
export interface Delegation {
  served_by_us: boolean;
  nameservers: string[];
}

export const delegationOf = (zone: StoredZone): Delegation => {
  const ns = zone.recordSets.find((s) => s.name === zone.domain && s.type === 'NS');
  const nameservers = (ns?.values ?? []).map((v) => v.toLowerCase().replace(/\.$/, ''));
  return { served_by_us: nameservers.some((n) => SERVICE_NAMESERVERS.includes(n)), nameservers };
};
