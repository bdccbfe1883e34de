import type { ApiKey } from '../kernel/caller.js';
import type { RightName } from '../kernel/rights.js';
import type { Visibility } from '../kernel/visibility.port.js';
import { normalizeDomain } from '../kernel/domain-name.js';
import { DomainError } from '../kernel/errors.js';
import { EVENT_CATALOGUE, internalTypes } from './catalogue.js';
import type { EventType } from '../kernel/events.js';
import type { EventFeed, EventVisibility } from './ports/event-feed.port.js';
import { toPublicEvent, type PublicEvent } from './public-event.js';

/** Any of these on a domain lets a key see that domain's events. */
export const DOMAIN_READ_RIGHTS: readonly RightName[] = ['domain.read', 'dns.read', 'cert.read', 'monitor.read'];

/** Public account-wide events (no domain): shown with billing.read, webhook.* also with webhook.manage. */
const ACCOUNT_TYPES = (Object.keys(EVENT_CATALOGUE) as EventType[]).filter(
  (t) => EVENT_CATALOGUE[t].scope === 'account' && EVENT_CATALOGUE[t].public !== null,
);

export interface EventPage {
  data: PublicEvent[];
  /** Pass as `after` to continue (as `before` when reading newest first); stays put when nothing new has been
   * published (poll with it). */
  next_cursor: string | null;
  has_more: boolean;
}

/**
 * GET /v1/events: the replayable log, in publish order, kept 30 days. Domain events only when the key
 * may read (any read right) every domain the event is about — a certificate's events need all of its
 * domains, as the certificates list does; account-wide events only with billing.read (webhook.* also with
 * webhook.manage). Events the key may not see are skipped, never shown.
 */
export class ListEvents {
  constructor(
    private readonly feed: EventFeed,
    private readonly visibility: Visibility,
    /** Up to this many visible domains the store is given their names; beyond, the key's names and labels. */
    private readonly listedDomainsMax = 50,
  ) {}

  /**
   * The key's domains by name when it sees few (the store then reads each one's events by index), else its
   * policies' names and labels for the store to filter with (a key that sees many finds them densely).
   */
  private async visibleDomains(key: ApiKey): Promise<EventVisibility['domains']> {
    const names = await this.visibility.visibleDomainsUpTo(key, DOMAIN_READ_RIGHTS, this.listedDomainsMax);
    return names ? { names: [...names] } : { scope: this.visibility.scope(key, DOMAIN_READ_RIGHTS) };
  }

  async execute(key: ApiKey, q: { after?: string; types?: string; domain?: string; limit?: number }): Promise<EventPage> {
    return this.read(key, { cursor: q.after, order: 'asc', types: q.types, domain: q.domain, limit: q.limit });
  }

  /**
   * The same log as a person reads a feed: newest first. `before` (a `next_cursor` of this reading) goes on to
   * older events; the page and its cursor are those of `execute`, walked the other way.
   */
  async newestFirst(key: ApiKey, q: { before?: string; types?: string; domain?: string; limit?: number }): Promise<EventPage> {
    return this.read(key, { cursor: q.before, order: 'desc', types: q.types, domain: q.domain, limit: q.limit });
  }

  private async read(
    key: ApiKey,
    q: {
      cursor?: string | undefined;
      order: 'asc' | 'desc';
      types?: string | undefined;
      domain?: string | undefined;
      limit?: number | undefined;
    },
  ): Promise<EventPage> {
    const limit = Math.min(Math.max(q.limit ?? 50, 1), 200);
    if (q.cursor !== undefined && !/^\d{1,18}$/.test(q.cursor)) throw new DomainError('cursor_invalid');
    let types = null;
    if (q.types) {
      const names = q.types
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      types = internalTypes(names);
      if (!types) throw new DomainError('event_type_unknown', { types: names.filter((n) => n !== '*' && internalTypes([n]) === null) });
    }
    const domain = q.domain ? normalizeDomain(q.domain) : null;
    const account = this.visibility.holds(key, 'billing.read');
    const webhooks = account || this.visibility.holds(key, 'webhook.manage');
    const visible: EventVisibility = {
      domains: await this.visibleDomains(key),
      accountTypes: ACCOUNT_TYPES.filter((t) => (t.startsWith('webhook.') ? webhooks : account)),
    };
    // The store returns only what the key may see — an event about several domains only when the key may
    // read every one of them, as the certificates list shows a certificate — so a page is one read.
    const batch = await this.feed.page({
      accountId: key.accountId,
      environment: key.environment,
      ...(q.order === 'asc' ? { after: q.cursor ?? null } : { after: null, before: q.cursor ?? null, order: 'desc' as const }),
      types,
      domain,
      visible,
      limit: limit + 1,
    });
    const page = batch.slice(0, limit);
    const out: PublicEvent[] = page.map(toPublicEvent);
    const cursor = page.length > 0 ? page[page.length - 1]!.pubSeq : (q.cursor ?? null);
    const more = batch.length > limit;
    return { data: out, next_cursor: cursor, has_more: more };
  }
}
