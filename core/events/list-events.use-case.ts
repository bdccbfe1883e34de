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
  /** Pass as `after` to continue; stays put when nothing new has been published (poll with it). */
  next_cursor: string | null;
  has_more: boolean;
}

/**
 * GET /v1/events: the replayable log, in publish order, kept 30 days. Domain events only for
 * domains the key may read (any read right); account-wide events only with billing.read (webhook.*
 * also with webhook.manage). Events of domains outside the key's policies are skipped, never shown.
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
    const limit = Math.min(Math.max(q.limit ?? 50, 1), 200);
    if (q.after !== undefined && !/^\d{1,18}$/.test(q.after)) throw new DomainError('cursor_invalid');
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
    const out: PublicEvent[] = [];
    let cursor = q.after ?? null;
    let more = true;
    // The store returns only what the key may see (by its first domain); an event about several domains is
    // shown only when the key sees every one of them. Those are rare, so a page is almost always one query.
    for (let round = 0; round < 10 && out.length < limit && more; round++) {
      const batch = await this.feed.page({
        accountId: key.accountId,
        environment: key.environment,
        after: cursor,
        types,
        domain,
        visible,
        limit: limit + 1,
      });
      more = batch.length > limit;
      const others = [...new Set(batch.flatMap((e) => e.domains.slice(1)))];
      const seen =
        others.length === 0
          ? new Set<string>()
          : 'names' in visible.domains
            ? new Set(visible.domains.names)
            : await this.visibility.visibleDomains(key, DOMAIN_READ_RIGHTS, { among: others });
      for (const e of batch.slice(0, limit)) {
        if (out.length >= limit) {
          more = true;
          break;
        }
        cursor = e.pubSeq;
        if (e.domains.slice(1).every((d) => seen.has(d))) out.push(toPublicEvent(e));
      }
    }
    return { data: out, next_cursor: cursor, has_more: more };
  }
}
