import type { Environment } from '../kernel/environment.js';

/** A webhook endpoint of one account and environment. Secrets are sealed (SecretBox): they must sign. */
export interface Webhook {
  readonly id: string;
  readonly accountId: string;
  readonly environment: Environment;
  readonly url: string;
  readonly description: string | null;
  /** Public event names, or ['*']. */
  readonly events: readonly string[];
  /** Only events about these domains (null: all events, account-wide ones included). */
  readonly domains: readonly string[] | null;
  readonly enabled: boolean;
  readonly disabledReason: 'gone' | 'failing' | null;
  readonly secretSealed: string;
  readonly oldSecretSealed: string | null;
  readonly oldSecretExpiresAt: Date | null;
  readonly failingSince: Date | null;
  readonly createdBy: string;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

export interface WebhookView {
  id: string;
  url: string;
  description: string | null;
  events: string[];
  domains: string[] | null;
  enabled: boolean;
  disabled_reason: 'gone' | 'failing' | null;
  failing_since: string | null;
  secret_rotation_ends_at: string | null;
  created_at: string;
  updated_at: string;
}

export const viewWebhook = (w: Webhook): WebhookView => ({
  id: w.id,
  url: w.url,
  description: w.description,
  events: [...w.events],
  domains: w.domains ? [...w.domains] : null,
  enabled: w.enabled,
  disabled_reason: w.disabledReason,
  failing_since: w.failingSince?.toISOString() ?? null,
  secret_rotation_ends_at: w.oldSecretExpiresAt?.toISOString() ?? null,
  created_at: w.createdAt.toISOString(),
  updated_at: w.updatedAt.toISOString(),
});

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface Delivery {
  readonly id: string;
  readonly webhookId: string;
  readonly accountId: string;
  readonly environment: Environment;
  readonly eventId: string;
  readonly eventSeq: string;
  readonly status: DeliveryStatus;
  readonly attempts: number;
  readonly nextAttemptAt: Date | null;
  readonly eventCommittedAt: Date;
  readonly firstAttemptAt: Date | null;
  readonly deliveredAt: Date | null;
  readonly createdAt: Date;
}

export interface Attempt {
  readonly id: string;
  readonly deliveryId: string;
  readonly webhookId: string;
  readonly number: number;
  readonly attemptedAt: Date;
  readonly outcome: 'succeeded' | 'failed';
  readonly responseCode: number | null;
  readonly latencyMs: number | null;
  /** The first 1 KiB of the response body. */
  readonly responseBody: string | null;
  readonly error: string | null;
}

/** Does this endpoint want this event? (public name, domains the event is about) */
export const wants = (w: Pick<Webhook, 'events' | 'domains' | 'enabled'>, publicType: string, eventDomains: readonly string[]): boolean => {
  if (!w.enabled) return false;
  if (!w.events.includes('*') && !w.events.includes(publicType)) return false;
  if (w.domains === null) return true;
  return eventDomains.length > 0 && eventDomains.every((d) => w.domains!.includes(d));
};

/** What the publisher needs of an endpoint to fan an event out to it. */
export type WebhookTarget = Pick<Webhook, 'id' | 'accountId' | 'environment' | 'events' | 'domains' | 'enabled'>;

/**
 * The endpoints of a batch indexed by what the publisher looks up: account and environment, public event
 * name, and (for endpoints limited to domains) the event's first domain. Built once per batch, so finding
 * an event's endpoints costs about as many steps as endpoints it reaches, however many the account has.
 */
export class WebhookIndex {
  private readonly byScope = new Map<string, Map<string, { all: WebhookTarget[]; byDomain: Map<string, WebhookTarget[]> }>>();
  private readonly domainSets = new Map<string, ReadonlySet<string>>();

  /** `types`: the public names of the batch (an endpoint of every type ('*') is filed under each). */
  constructor(endpoints: readonly WebhookTarget[], types: readonly string[]) {
    for (const w of endpoints) {
      if (!w.enabled) continue;
      const scope = `${w.accountId}/${w.environment}`;
      const byType = this.byScope.get(scope) ?? new Map<string, { all: WebhookTarget[]; byDomain: Map<string, WebhookTarget[]> }>();
      this.byScope.set(scope, byType);
      if (w.domains) this.domainSets.set(w.id, new Set(w.domains));
      for (const t of new Set(w.events.includes('*') ? types : w.events.filter((e) => types.includes(e)))) {
        const entry = byType.get(t) ?? { all: [], byDomain: new Map<string, WebhookTarget[]>() };
        byType.set(t, entry);
        if (w.domains === null) entry.all.push(w);
        else for (const d of new Set(w.domains)) entry.byDomain.set(d, [...(entry.byDomain.get(d) ?? []), w]);
      }
    }
  }

  /** The endpoints that want this event, in the order given; the same answer as `wants` over all of them. */
  wanting(accountId: string, environment: Environment, publicType: string, eventDomains: readonly string[]): WebhookTarget[] {
    const entry = this.byScope.get(`${accountId}/${environment}`)?.get(publicType);
    if (!entry) return [];
    if (eventDomains.length === 0) return entry.all;
    const limited = (entry.byDomain.get(eventDomains[0]!) ?? []).filter((w) =>
      eventDomains.every((d) => this.domainSets.get(w.id)!.has(d)),
    );
    return limited.length === 0 ? entry.all : [...entry.all, ...limited];
  }
}

/** Retries run for 3 days from the delivery's creation; endpoints failing that long are disabled. */
export const RETRY_WINDOW_MS = 3 * 24 * 3600_000;
export const ROTATION_OVERLAP_MS = 24 * 3600_000;

/**
 * Exponential backoff with jitter: 1 min × 3^(n−1), at most 6 h, times a random factor in [0.8, 1.2).
 * Attempts land at about 1 m, 4 m, 13 m, 40 m, 2 h, 6 h, then every ~6 h until 3 days have passed.
 */
export const retryDelayMs = (failedAttempts: number, jitter: number): number => {
  const base = Math.min(60_000 * 3 ** Math.max(0, failedAttempts - 1), 6 * 3600_000);
  return Math.round(base * (0.8 + 0.4 * jitter));
};
