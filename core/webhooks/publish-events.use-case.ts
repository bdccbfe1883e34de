import type { DomainRepository } from '../domains/ports/domain-repository.port.js';
import type { Clock } from '../kernel/clock.port.js';
import type { Environment } from '../kernel/environment.js';
import type { Random } from '../kernel/random.port.js';
import type { UnitOfWork } from '../kernel/unit-of-work.port.js';
import type { WebhookRepository, NewDelivery } from './ports/webhook-repository.port.js';
import { WebhookIndex } from './webhook.js';
import { EVENT_CATALOGUE } from '../events/catalogue.js';
import type { AssignedEvent, EventFeed } from '../events/ports/event-feed.port.js';
import { domainCandidates, domainsOfEvent } from '../events/public-event.js';

/** What PublishEvents is built from (one object, named, instead of positions). */
export interface PublishEventsDeps {
  readonly feed: EventFeed;
  readonly webhooks: WebhookRepository;
  readonly domains: DomainRepository;
  readonly uow: UnitOfWork;
  readonly random: Random;
  readonly clock: Clock;
}

/**
 * The single publisher: takes committed, unpublished events in insert order under the
 * publisher lock, gives each public one the next cursor position (pub_seq), and fans it out to the
 * enabled webhook endpoints that want it — all in one transaction, so an event is either numbered and
 * queued for every endpoint, or neither. Internal-only events are marked published without a number.
 */
export class PublishEvents {
  constructor(private readonly deps: PublishEventsDeps) {}

  /** One batch; returns how many events it published (call again while it returns `limit`). */
  async run(limit = 500): Promise<{ taken: number; published: number; deliveries: number }> {
    return this.deps.uow.transaction(async () => {
      const { lastSeq, events } = await this.deps.feed.takeUnpublished(limit);
      if (events.length === 0) return { taken: 0, published: 0, deliveries: 0 };
      const now = this.deps.clock.now();
      // Events whose subject is not a domain (a certificate, a monitor) name theirs in data: the store is
      // asked, once per account in the batch, which of those names the account holds.
      const candidates = new Map<string, { accountId: string; environment: Environment; names: Set<string> }>();
      for (const e of events) {
        if (!e.environment || !EVENT_CATALOGUE[e.type]?.public) continue;
        const names = domainCandidates(e);
        if (names.length === 0) continue;
        const k = `${e.accountId}/${e.environment}`;
        const entry = candidates.get(k) ?? { accountId: e.accountId, environment: e.environment, names: new Set<string>() };
        names.forEach((n) => entry.names.add(n));
        candidates.set(k, entry);
      }
      const held = new Map<string, ReadonlySet<string>>();
      for (const [k, c] of candidates) held.set(k, new Set(await this.deps.domains.held(c.accountId, c.environment, [...c.names])));
      const none: ReadonlySet<string> = new Set();
      let seq = lastSeq;
      const rows: AssignedEvent[] = [];
      const published: Array<{
        id: string;
        accountId: string;
        environment: Environment;
        pubSeq: string;
        publicType: string;
        domains: string[];
        at: Date;
      }> = [];
      for (const e of events) {
        const info = EVENT_CATALOGUE[e.type];
        if (!info?.public || !e.environment) {
          rows.push({ id: e.id, accountId: e.accountId, environment: e.environment, pubSeq: null, publicType: null, domains: [] });
          continue;
        }
        const domains = domainsOfEvent(e, held.get(`${e.accountId}/${e.environment}`) ?? none);
        seq += 1n;
        const row = {
          id: e.id,
          accountId: e.accountId,
          environment: e.environment,
          pubSeq: seq.toString(),
          publicType: info.public,
          domains,
        };
        rows.push(row);
        published.push({ ...row, at: e.occurredAt });
      }
      await this.deps.feed.assign(now, rows, seq);
      let deliveries = 0;
      if (published.length > 0) {
        const types = [...new Set(published.map((p) => p.publicType))];
        // Only the endpoints that want one of the batch's types, indexed once per batch: an event then meets
        // the endpoints of its account, environment, type (and first domain, for endpoints limited to domains).
        const index = new WebhookIndex(await this.deps.webhooks.wanting(published, types), types);
        const out: NewDelivery[] = [];
        for (const p of published) {
          for (const w of index.wanting(p.accountId, p.environment, p.publicType, p.domains)) {
            out.push({
              id: this.deps.random.id(),
              webhookId: w.id,
              accountId: p.accountId,
              environment: p.environment,
              eventId: p.id,
              eventSeq: p.pubSeq,
              eventCommittedAt: p.at,
              nextAttemptAt: now,
              createdAt: now,
            });
          }
        }
        await this.deps.webhooks.insertDeliveries(out);
        deliveries = out.length;
      }
      return { taken: events.length, published: published.length, deliveries };
    });
  }
}
