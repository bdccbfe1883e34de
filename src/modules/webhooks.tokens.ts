import { token } from './token.js';
import type { PublishEvents } from '../../core/webhooks/publish-events.use-case.js';
import type { ManageWebhooks } from '../../core/webhooks/manage-webhooks.use-case.js';
import type { DeliverWebhooks } from '../../core/webhooks/deliver-webhooks.use-case.js';
import type { StandardWebhooksSender } from '../../adapters/net/webhooks/index.js';

/** Injection tokens of the webhooks capability (src/ binds them by explicit token; core/ has no decorators). */
export const WEBHOOKS_TOKENS = {
  PublishEvents: token<PublishEvents>('PublishEvents'),
  ManageWebhooks: token<ManageWebhooks>('ManageWebhooks'),
  DeliverWebhooks: token<DeliverWebhooks>('DeliverWebhooks'),
  WebhookSender: token<StandardWebhooksSender>('WebhookSender'),
} as const;
