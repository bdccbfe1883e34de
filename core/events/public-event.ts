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

/** The domain names an event is about, from its subject or its certificate names, among the account's domains. */
export const domainsOfEvent = (e: Pick<DomainEvent, 'type' | 'subject' | 'data'>, accountDomains: readonly string[]): string[] => {
  if (EVENT_CATALOGUE[e.type]?.scope !== 'domain') return [];
  if (e.subject.startsWith('domain:')) return [e.subject.slice('domain:'.length)];
  // Events about a thing of one domain (an operation, a monitor) name it in data.domain.
  if (typeof e.data.domain === 'string' && accountDomains.includes(e.data.domain)) return [e.data.domain];
  const out = new Set<string>();
  const names = [...((e.data.domains as string[] | undefined) ?? []), ...((e.data.names as string[] | undefined) ?? [])];
  for (const n of names) {
    const bare = n.replace(/^\*\./, '').toLowerCase();
    // The longest account domain that is the name or a parent of it.
    let best: string | null = null;
    for (const d of accountDomains) if ((bare === d || bare.endsWith(`.${d}`)) && (!best || d.length > best.length)) best = d;
    if (best) out.add(best);
  }
  return [...out];
};
