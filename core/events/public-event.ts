import type { Environment } from '../kernel/environment.js';
import { EVENT_CATALOGUE } from './catalogue.js';
import type { DomainEvent } from '../kernel/events.js';

/** The public shape of an event (the event log and webhook payloads). */
export interface PublicEvent {
  readonly id: string;
  readonly type: string;
  readonly created_at: string;
  readonly environment: Environment;
  readonly domain?: string;
  readonly data: Readonly<Record<string, unknown>>;
}

/** An event once the publisher numbered it: its cursor position and the domains it is about. */
export interface PublishedEvent extends DomainEvent {
  readonly pubSeq: string;
  readonly environment: Environment;
  /** Every account domain the event is about ([] for account-wide events). */
  readonly domains: readonly string[];
}

/** The subject's id as a data field (`certificate:abc` → certificate_id), for events that do not carry it. */
const subjectField = (subject: string): Record<string, string> => {
  const i = subject.indexOf(':');
  if (i < 0) return {};
  const kind = subject.slice(0, i);
  if (kind === 'domain' || kind === 'account' || kind === 'person') return {};
  return { [`${kind}_id`]: subject.slice(i + 1) };
};

export const toPublicEvent = (e: PublishedEvent): PublicEvent => ({
  id: e.id,
  type: EVENT_CATALOGUE[e.type].public ?? e.type,
  created_at: e.occurredAt.toISOString(),
  environment: e.environment,
  ...(e.domains.length > 0 ? { domain: e.domains[0]! } : {}),
  data: { ...subjectField(e.subject), ...e.data },
});

/** The names an event's data speaks of (a certificate's names, an operation's domains), wildcard and case dropped. */
const namesIn = (data: Readonly<Record<string, unknown>>): string[] =>
  [...((data.domains as string[] | undefined) ?? []), ...((data.names as string[] | undefined) ?? [])].map((n) =>
    n.replace(/^\*\./, '').toLowerCase(),
  );

/** A name and each of its parents, the longest first (`www.a.com.ua`, `a.com.ua`, `com.ua`, `ua`). */
const selfAndParents = (name: string): string[] => {
  const out = [name];
  for (let i = name.indexOf('.'); i >= 0; i = name.indexOf('.', i + 1)) out.push(name.slice(i + 1));
  return out;
};

/**
 * The account domains an event without a domain subject could be about: what `domainsOfEvent` needs to
 * know is held (the publisher asks the store for just these names, never for the whole account).
 */
export const domainCandidates = (e: Pick<DomainEvent, 'type' | 'subject' | 'data'>): string[] => {
  if (EVENT_CATALOGUE[e.type]?.scope !== 'domain' || e.subject.startsWith('domain:')) return [];
  const out = new Set<string>();
  if (typeof e.data.domain === 'string') out.add(e.data.domain);
  for (const n of namesIn(e.data)) for (const p of selfAndParents(n)) out.add(p);
  return [...out];
};

/**
 * The domain names an event is about, from its subject or its certificate names, among the account's
 * domains: `held` holds at least those of `domainCandidates(e)` that the account has.
 */
export const domainsOfEvent = (e: Pick<DomainEvent, 'type' | 'subject' | 'data'>, held: ReadonlySet<string>): string[] => {
  if (EVENT_CATALOGUE[e.type]?.scope !== 'domain') return [];
  if (e.subject.startsWith('domain:')) return [e.subject.slice('domain:'.length)];
  // Events about a thing of one domain (an operation, a monitor) name it in data.domain.
  if (typeof e.data.domain === 'string' && held.has(e.data.domain)) return [e.data.domain];
  const out = new Set<string>();
  for (const n of namesIn(e.data)) {
    // The longest account domain that is the name or a parent of it.
    const best = selfAndParents(n).find((p) => held.has(p));
    if (best) out.add(best);
  }
  return [...out];
};
