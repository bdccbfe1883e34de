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
