import type { ApiKey } from '../kernel/caller.js';
import type { RightName } from '../kernel/rights.js';
import type { Visibility } from '../kernel/visibility.port.js';
import { normalizeDomain } from '../kernel/domain-name.js';
import { DomainError } from '../kernel/errors.js';
import { EVENT_CATALOGUE, internalTypes } from './catalogue.js';
import type { EventFeed } from './ports/event-feed.port.js';
import { toPublicEvent, type PublicEvent } from './public-event.js';

/** Any of these on a domain lets a key see that domain's events. */
export const DOMAIN_READ_RIGHTS: readonly RightName[] = ['domain.read', 'dns.read', 'cert.read', 'monitor.read'];

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
  ) {}

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
    const visible = await this.visibility.visibleDomains(key, DOMAIN_READ_RIGHTS);
    const account = this.visibility.holds(key, 'billing.read');
    const webhooks = account || this.visibility.holds(key, 'webhook.manage');
    const out: PublicEvent[] = [];
    let cursor = q.after ?? null;
    let more = true;
    // Skip what the key may not see; scan at most 10 batches per request (the cursor then moves on).
    for (let round = 0; round < 10 && out.length < limit && more; round++) {
      const batch = await this.feed.page({
        accountId: key.accountId,
        environment: key.environment,
        after: cursor,
        types,
        domain,
        limit: limit + 1,
      });
      more = batch.length > limit;
      for (const e of batch.slice(0, limit)) {
        if (out.length >= limit) {
          more = true;
          break;
        }
        cursor = e.pubSeq;
        const info = EVENT_CATALOGUE[e.type];
        const ok =
          info.scope === 'domain'
            ? e.domains.length > 0 && e.domains.every((d) => visible.has(d))
            : e.type.startsWith('webhook.')
              ? webhooks
              : account;
        if (ok) out.push(toPublicEvent(e));
      }
    }
    return { data: out, next_cursor: cursor, has_more: more };
  }
}
