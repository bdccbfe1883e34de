import type { Environment } from '../../kernel/environment.js';

export interface WebhookRequest {
  readonly url: string;
  readonly environment: Environment;
  /** The event id (webhook-id header). */
  readonly messageId: string;
  /** The JSON body, exactly as signed. */
  readonly payload: string;
  /** whsec_… secrets to sign with: the current one, plus the old one during a rotation. */
  readonly secrets: readonly string[];
}

export type SendOutcome =
  | { readonly kind: 'response'; readonly status: number; readonly body: string; readonly latencyMs: number }
  | {
      readonly kind: 'error';
      readonly error: 'timeout' | 'network' | 'refused' | 'store';
      readonly message: string;
      readonly latencyMs: number;
    };

/**
 * Sends one signed delivery (Standard Webhooks headers) through the outbound SSRF guard: no redirects,
 * a timeout per attempt, addresses checked at connect time. Never throws for an endpoint's failure.
 */
export interface WebhookSender {
  /** Why this URL may not be an endpoint in this environment, or null when it may. */
  refuse(url: string, environment: Environment): string | null;
  send(req: WebhookRequest): Promise<SendOutcome>;
}
