import type { ApiKey } from '../../kernel/caller.js';
import { normalizeDomain } from '../../kernel/domain-name.js';
import { DomainError } from '../../kernel/errors.js';
import { clampLimit, decodeCursor, encodeCursor, type Page } from '../../kernel/pagination.js';
import type { ZoneRepository } from '../ports/zone-repository.port.js';
import { SERVICE_NAMESERVERS, type RecordSet } from './record-set.js';
import type { StoredZone } from './zone.js';
import { formatZoneFile } from './zone-file.js';

export interface RecordSetView {
  name: string;
  type: string;
  ttl: number;
  values: string[];
}

/** Record sets a ReadZone keeps listed in page order, over every zone (as ZoneCache: roughly 0.5 KB a set). */
export const DEFAULT_RECORD_PAGES_SETS = 200_000;

/**
 * Page order: by name, then type (the order the records list has always had), by one fixed collation: the
 * process's own locale (LANG) must not decide it, or a cursor made by one API process would skip or repeat
 * sets on another started with another locale.
 */
const collation = new Intl.Collator('en');
const pageOrder = (a: { readonly name: string; readonly type: string }, b: { readonly name: string; readonly type: string }): number =>
  a.name === b.name ? collation.compare(a.type, b.type) : collation.compare(a.name, b.name);

/** A zone's sets in page order at one serial, with its delegation (both read from those sets). */
interface Listed {
  readonly serial: number;
  readonly sets: readonly RecordSet[];
  readonly delegation: Delegation;
}

/**
 * The zones whose records were listed lately, each at one serial, least recently used dropped first past
 * `maxSets` sets. Exact: an entry is added only from a read whose serial came in the same statement as
 * its sets (ZoneRepository.find), and every change to a zone's sets bumps its serial.
 */
class ListedZones {
  private readonly entries = new Map<string, Listed>();
  private held = 0;

  constructor(private readonly maxSets: number) {}

  get(zoneId: string, serial: number): Listed | null {
    const e = this.entries.get(zoneId);
    if (!e || e.serial !== serial) return null;
    this.entries.delete(zoneId);
    this.entries.set(zoneId, e);
    return e;
  }

  put(zoneId: string, listed: Listed): void {
    const old = this.entries.get(zoneId);
    if (old) {
      this.entries.delete(zoneId);
      this.held -= old.sets.length;
    }
    if (listed.sets.length > this.maxSets) return;
    this.entries.set(zoneId, listed);
    this.held += listed.sets.length;
    for (const [id, e] of this.entries) {
      if (this.held <= this.maxSets) break;
      this.entries.delete(id);
      this.held -= e.sets.length;
    }
  }
}

/** A records page's cursor: the last set's name and type (JSON, as a cursor string may not hold NUL). */
const recordsCursor = (s: Pick<RecordSet, 'name' | 'type'>): string => encodeCursor(JSON.stringify([s.name, s.type]));

const afterOf = (cursor: string | undefined): { name: string; type: string } | undefined => {
  const raw = decodeCursor(cursor);
  if (raw === undefined) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    throw new DomainError('cursor_invalid');
  }
  if (!Array.isArray(v) || v.length !== 2 || typeof v[0] !== 'string' || typeof v[1] !== 'string') throw new DomainError('cursor_invalid');
  return { name: v[0], type: v[1] };
};

/** The first index of `sorted` (in page order) past `after`: a binary search, as the list is in that order. */
const indexAfter = (sorted: readonly RecordSet[], after: { name: string; type: string }): number => {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (pageOrder(sorted[mid]!, after) > 0) hi = mid;
    else lo = mid + 1;
  }
  return lo;
};

/**
 * GET /v1/domains/{domain}/dns/records (dns.read): the zone's record sets, by name then type. A page reads
 * the zone's row, and the zone's sets only when they changed since this process last listed them: the cost
 * of a page follows its length, not the zone's.
 */
export class ReadZone {
  private readonly listed: ListedZones;

  constructor(
    private readonly zones: ZoneRepository,
    maxListedSets: number = DEFAULT_RECORD_PAGES_SETS,
  ) {
    this.listed = new ListedZones(maxListedSets);
  }

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

  /** The zone's sets in page order at its current serial: kept, or read (with their serial) and kept. */
  private async list(key: ApiKey, domain: string): Promise<Listed> {
    const name = normalizeDomain(domain);
    const head = await this.zones.head(key.accountId, key.environment, name);
    if (!head) throw new DomainError('domain_not_found', { domain: name });
    const kept = this.listed.get(head.id, head.serial);
    if (kept) return kept;
    const zone = await this.zone(key, name);
    const listed: Listed = { serial: zone.serial, sets: [...zone.recordSets].sort(pageOrder), delegation: delegationOf(zone) };
    this.listed.put(zone.id, listed);
    return listed;
  }

  async records(
    key: ApiKey,
    domain: string,
    opts: { cursor?: string; limit?: number; name?: string; type?: string },
  ): Promise<Page<RecordSetView> & { serial: number } & Delegation> {
    const limit = clampLimit(opts.limit);
    const after = afterOf(opts.cursor);
    const zone = await this.list(key, domain);
    const sorted =
      opts.name === undefined && opts.type === undefined
        ? zone.sets
        : zone.sets.filter((s) => (opts.name === undefined || s.name === opts.name) && (opts.type === undefined || s.type === opts.type));
    const start = after === undefined ? 0 : indexAfter(sorted, after);
    const slice = sorted.slice(start, start + limit + 1);
    const page = slice.slice(0, limit);
    return {
      serial: zone.serial,
      served_by_us: zone.delegation.served_by_us,
      nameservers: [...zone.delegation.nameservers],
      data: page.map(view),
      next_cursor: slice.length > limit ? recordsCursor(page.at(-1)!) : null,
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
