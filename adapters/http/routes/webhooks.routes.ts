import type { ManageWebhooks } from '../../../core/webhooks/manage-webhooks.use-case.js';
import { route, withBody, type Reply, type Route } from '../route.js';
import { schema } from '../schema-type.js';
import { page, pageQuery } from '../schemas.js';

/** Signed webhooks (/v1/webhooks): endpoints, their secrets and deliveries (webhook.manage). */
export interface WebhooksUseCases {
  readonly webhooks: Pick<ManageWebhooks, 'create' | 'list' | 'get' | 'update' | 'delete' | 'rotateSecret' | 'deliveries' | 'redeliver'>;
}

const webhookSchema = schema({
  type: 'object',
  properties: {
    id: { type: 'string' },
    url: { type: 'string' },
    description: { type: ['string', 'null'] },
    events: { type: 'array', items: { type: 'string' } },
    domains: { type: ['array', 'null'], items: { type: 'string' } },
    enabled: { type: 'boolean' },
    disabled_reason: { type: ['string', 'null'], enum: ['gone', 'failing', null] },
    failing_since: { type: ['string', 'null'] },
    secret_rotation_ends_at: { type: ['string', 'null'] },
    created_at: { type: 'string' },
    updated_at: { type: 'string' },
    secret: { type: 'string', description: 'whsec_…: only in the answer to create and rotate-secret, shown once.' },
  },
});

const deliverySchema = schema({
  type: 'object',
  properties: {
    id: { type: 'string' },
    event_id: { type: 'string' },
    event_type: { type: 'string' },
    status: { type: 'string', enum: ['pending', 'delivered', 'failed'] },
    attempts: { type: 'integer' },
    next_attempt_at: { type: ['string', 'null'] },
    created_at: { type: 'string' },
    delivered_at: { type: ['string', 'null'] },
    attempt_log: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          number: { type: 'integer' },
          attempted_at: { type: 'string' },
          outcome: { type: 'string', enum: ['succeeded', 'failed'] },
          response_code: { type: ['integer', 'null'] },
          latency_ms: { type: ['integer', 'null'] },
          response_body: { type: ['string', 'null'], description: 'The first 1 KiB of the answer.' },
          error: { type: ['string', 'null'] },
        },
      },
    },
  },
});

const eventNames = schema({
  type: 'array',
  minItems: 1,
  maxItems: 100,
  items: { type: 'string', maxLength: 60 },
  description: 'Public event types, or ["*"] for all.',
});
const domainList = schema({
  type: ['array', 'null'],
  maxItems: 100,
  items: { type: 'string', maxLength: 253 },
  description: 'Only events about these domains (null: every event, account-wide ones too).',
});
/** What a webhook is made of: every field to create one, any of them to change it. */
const webhookFields = {
  url: { type: 'string', maxLength: 2000 },
  events: eventNames,
  domains: domainList,
  enabled: { type: 'boolean' },
  description: { type: ['string', 'null'], maxLength: 500 },
} as const;
const webhookId = schema({ type: 'object', required: ['id'], properties: { id: { type: 'string', maxLength: 60 } } });

/** The secret is shown once: a replay of the same Idempotency-Key shows the webhook without it. */
const withoutSecret = (reply: Reply): Reply =>
  withBody(reply, {
    secret: null,
    secret_note: {
      uk: 'Секрет підпису показується лише один раз. Якщо його втрачено, замініть його: POST /v1/webhooks/{id}/rotate-secret.',
      en: 'The signing secret is shown only once. If it was lost, rotate it: POST /v1/webhooks/{id}/rotate-secret.',
    },
  });

export const webhookRoutes = (uc: WebhooksUseCases): Route[] => [
  route({
    id: 'createWebhook',
    method: 'POST',
    path: '/v1/webhooks',
    tag: 'Webhooks',
    writes: true,
    summary: 'Create a webhook endpoint (webhook.manage, class 1); the signing secret is shown once',
    description:
      'Deliveries follow Standard Webhooks: headers webhook-id (the event id), webhook-timestamp, webhook-signature (`v1,<base64 HMAC-SHA256>`). Live endpoints must be public https:// URLs (checked now and at every connection; redirects are not followed). In the sandbox, http://127.0.0.1 is allowed only when the server runs with WEBHOOKS_ALLOW_LOOPBACK=1.',
    access: { kind: 'key', right: 'webhook.manage' },
    body: {
      type: 'object',
      additionalProperties: false,
      required: ['url', 'events'],
      properties: webhookFields,
    },
    responses: { 201: { description: 'Created, with its secret', schema: webhookSchema } },
    errors: ['webhook_url_refused', 'event_type_unknown'],
    handle: async (i) => {
      const r = await uc.webhooks.create(i.key, i.body);
      return { status: 201, headers: { Location: `/v1/webhooks/${r.id}`, 'Cache-Control': 'no-store' }, body: r };
    },
    replayable: withoutSecret,
  }),
  route({
    id: 'listWebhooks',
    method: 'GET',
    path: '/v1/webhooks',
    tag: 'Webhooks',
    writes: false,
    summary: 'The webhook endpoints of this environment (webhook.manage)',
    access: { kind: 'key', right: 'webhook.manage' },
    query: pageQuery({}),
    responses: { 200: { description: 'A page of webhooks', schema: page(webhookSchema) } },
    handle: async (i) => ({ status: 200, body: await uc.webhooks.list(i.key, i.query.cursor ?? null, i.query.limit ?? 50) }),
  }),
  route({
    id: 'getWebhook',
    method: 'GET',
    path: '/v1/webhooks/{id}',
    tag: 'Webhooks',
    writes: false,
    summary: 'One webhook endpoint (webhook.manage)',
    access: { kind: 'key', right: 'webhook.manage' },
    params: webhookId,
    responses: { 200: { description: 'The webhook', schema: webhookSchema } },
    errors: ['webhook_not_found'],
    handle: async (i) => ({ status: 200, body: await uc.webhooks.get(i.key, i.params.id) }),
  }),
  route({
    id: 'updateWebhook',
    method: 'PATCH',
    path: '/v1/webhooks/{id}',
    tag: 'Webhooks',
    writes: true,
    summary: 'Change a webhook endpoint; {"enabled": true} re-enables a disabled one (webhook.manage)',
    access: { kind: 'key', right: 'webhook.manage' },
    params: webhookId,
    body: {
      type: 'object',
      additionalProperties: false,
      minProperties: 1,
      properties: webhookFields,
    },
    responses: { 200: { description: 'The webhook', schema: webhookSchema } },
    errors: ['webhook_not_found', 'webhook_url_refused', 'event_type_unknown'],
    handle: async (i) => ({ status: 200, body: await uc.webhooks.update(i.key, i.params.id, i.body) }),
  }),
  route({
    id: 'deleteWebhook',
    method: 'DELETE',
    path: '/v1/webhooks/{id}',
    tag: 'Webhooks',
    writes: true,
    summary: 'Delete a webhook endpoint; its pending deliveries are dropped (webhook.manage)',
    access: { kind: 'key', right: 'webhook.manage' },
    params: webhookId,
    responses: { 204: { description: 'Deleted' } },
    errors: ['webhook_not_found'],
    handle: async (i) => {
      await uc.webhooks.delete(i.key, i.params.id);
      return { status: 204 };
    },
  }),
  route({
    id: 'rotateWebhookSecret',
    method: 'POST',
    path: '/v1/webhooks/{id}/rotate-secret',
    tag: 'Webhooks',
    writes: true,
    summary: 'A new signing secret, shown once; the old one keeps signing for 24 hours (two v1 signatures) (webhook.manage)',
    access: { kind: 'key', right: 'webhook.manage' },
    params: webhookId,
    responses: { 200: { description: 'The webhook, with its new secret', schema: webhookSchema } },
    errors: ['webhook_not_found'],
    handle: async (i) => ({
      status: 200,
      headers: { 'Cache-Control': 'no-store' },
      body: await uc.webhooks.rotateSecret(i.key, i.params.id),
    }),
    replayable: withoutSecret,
  }),
  route({
    id: 'listWebhookDeliveries',
    method: 'GET',
    path: '/v1/webhooks/{id}/deliveries',
    tag: 'Webhooks',
    writes: false,
    summary:
      'Deliveries to this endpoint, newest first, each with its attempts (status, latency, response code, first 1 KiB of the answer) (webhook.manage)',
    access: { kind: 'key', right: 'webhook.manage' },
    params: webhookId,
    query: pageQuery({}),
    responses: { 200: { description: 'A page of deliveries', schema: page(deliverySchema) } },
    errors: ['webhook_not_found'],
    handle: async (i) => ({
      status: 200,
      body: await uc.webhooks.deliveries(i.key, i.params.id, i.query.cursor ?? null, i.query.limit ?? 50),
    }),
  }),
  route({
    id: 'redeliverWebhook',
    method: 'POST',
    path: '/v1/webhooks/{id}/deliveries/{delivery_id}/redeliver',
    tag: 'Webhooks',
    writes: true,
    summary: "Send a delivery's event to the endpoint again, as a new delivery due now (webhook.manage)",
    access: { kind: 'key', right: 'webhook.manage' },
    params: {
      type: 'object',
      required: ['id', 'delivery_id'],
      properties: { id: { type: 'string', maxLength: 60 }, delivery_id: { type: 'string', maxLength: 60 } },
    },
    responses: {
      202: {
        description: 'Queued',
        schema: {
          type: 'object',
          properties: {
            id: { type: 'string' },
            event_id: { type: 'string' },
            status: { type: 'string' },
            redelivery_of: { type: 'string' },
          },
        },
      },
    },
    errors: ['webhook_not_found', 'delivery_not_found'],
    handle: async (i) => ({ status: 202, body: await uc.webhooks.redeliver(i.key, i.params.id, i.params.delivery_id) }),
  }),
];
