import { hostOfUrl } from '../kernel/url-parts.js';
import type { RecordingDeps } from '../kernel/recording-deps.js';
import { actorOf, type ApiKey } from '../kernel/caller.js';
import { internalTypes } from '../events/catalogue.js';
import type { EventData, EventType } from '../kernel/events.js';
import { normalizeDomain } from '../kernel/domain-name.js';
import { DomainError } from '../kernel/errors.js';
import type { Random } from '../kernel/random.port.js';
import type { SecretBox } from '../kernel/secret-box.port.js';
import type { WebhookRepository } from './ports/webhook-repository.port.js';
import type { WebhookSender } from './ports/webhook-sender.port.js';
import { ROTATION_OVERLAP_MS, viewWebhook, type Attempt, type Delivery, type Webhook, type WebhookView } from './webhook.js';

export interface WebhookInput {
  url?: string;
  events?: string[];
  domains?: string[] | null;
  enabled?: boolean;
  description?: string | null;
}

export interface DeliveryView {
  id: string;
  event_id: string;
  event_type: string;
  status: Delivery['status'];
  attempts: number;
  next_attempt_at: string | null;
  created_at: string;
  delivered_at: string | null;
  attempt_log: Array<{
    number: number;
    attempted_at: string;
    outcome: Attempt['outcome'];
    response_code: number | null;
    latency_ms: number | null;
    response_body: string | null;
    error: string | null;
  }>;
}

/** A Standard Webhooks secret: `whsec_` + base64 of 24 random bytes. */
const newSecret = (random: Random): string => `whsec_${Buffer.from(random.bytes(24)).toString('base64')}`;

/** What ManageWebhooks is built from (one object, named, instead of positions). */
export interface ManageWebhooksDeps extends RecordingDeps {
  readonly repo: WebhookRepository;
  readonly sender: WebhookSender;
  readonly box: SecretBox;
}

/** POST/GET/PATCH/DELETE /v1/webhooks, secret rotation, the delivery log and redelivery (webhook.manage, class 1). */
export class ManageWebhooks {
  constructor(private readonly deps: ManageWebhooksDeps) {}

  private checkUrl(url: string, key: ApiKey): string {
    const why = this.deps.sender.refuse(url, key.environment);
    if (why) throw new DomainError('webhook_url_refused', { url, reason: why });
    return url;
  }

  private checkEvents(events: string[]): string[] {
    if (events.length === 0) throw new DomainError('event_type_unknown', { types: [] });
    const unknown = events.filter((n) => n !== '*' && internalTypes([n]) === null);
    if (unknown.length > 0) throw new DomainError('event_type_unknown', { types: unknown });
    return [...new Set(events)];
  }

  private async emit<T extends EventType>(key: ApiKey, type: T, w: Webhook, data: EventData[T]): Promise<void> {
    await this.deps.events.record(
      type,
      {
        accountId: key.accountId,
        environment: key.environment,
        subject: `webhook:${w.id}`,
        actor: actorOf(key),
        occurredAt: this.deps.clock.now(),
      },
      data,
    );
  }

  private async load(key: ApiKey, id: string): Promise<Webhook> {
    const w = await this.deps.repo.find(key.accountId, key.environment, id);
    if (!w) throw new DomainError('webhook_not_found', { webhook_id: id });
    return w;
  }

  async create(key: ApiKey, input: WebhookInput & { url: string; events: string[] }): Promise<WebhookView & { secret: string }> {
    const url = this.checkUrl(input.url, key);
    const events = this.checkEvents(input.events);
    const domains = input.domains ? [...new Set(input.domains.map(normalizeDomain))] : null;
    const secret = newSecret(this.deps.random);
    const now = this.deps.clock.now();
    const w: Webhook = {
      id: `wh_${this.deps.random.base62(20)}`,
      accountId: key.accountId,
      environment: key.environment,
      url,
      description: input.description ?? null,
      events,
      domains,
      enabled: input.enabled ?? true,
      disabledReason: null,
      secretSealed: this.deps.box.seal(secret),
      oldSecretSealed: null,
      oldSecretExpiresAt: null,
      failingSince: null,
      createdBy: actorOf(key),
      createdAt: now,
      updatedAt: now,
    };
    return this.deps.uow.transaction(async () => {
      await this.deps.repo.insert(w);
      await this.emit(key, 'webhook.created', w, { webhook_id: w.id, host: hostOfUrl(url), events, domains, enabled: w.enabled });
      return { ...viewWebhook(w), secret };
    });
  }

  async list(key: ApiKey, after: string | null, limit: number): Promise<{ data: WebhookView[]; next_cursor: string | null }> {
    const rows = await this.deps.repo.list(key.accountId, key.environment, after, limit + 1);
    const page = rows.slice(0, limit);
    return { data: page.map(viewWebhook), next_cursor: rows.length > limit ? page[page.length - 1]!.id : null };
  }

  async get(key: ApiKey, id: string): Promise<WebhookView> {
    return viewWebhook(await this.load(key, id));
  }

  async update(key: ApiKey, id: string, input: WebhookInput): Promise<WebhookView> {
    return this.deps.uow.transaction(async () => {
      const w = await this.load(key, id);
      const enabling = input.enabled === true && !w.enabled;
      const next: Webhook = {
        ...w,
        url: input.url !== undefined ? this.checkUrl(input.url, key) : w.url,
        events: input.events !== undefined ? this.checkEvents(input.events) : w.events,
        domains: input.domains !== undefined ? (input.domains ? [...new Set(input.domains.map(normalizeDomain))] : null) : w.domains,
        description: input.description !== undefined ? input.description : w.description,
        enabled: input.enabled ?? w.enabled,
        disabledReason: enabling ? null : input.enabled === false ? null : w.disabledReason,
        failingSince: enabling ? null : w.failingSince,
        updatedAt: this.deps.clock.now(),
      };
      await this.deps.repo.update(next);
      if (!next.enabled && w.enabled) await this.deps.repo.cancelPending(w.id);
      await this.emit(key, 'webhook.updated', next, {
        webhook_id: w.id,
        host: hostOfUrl(next.url),
        events: next.events,
        domains: next.domains,
        enabled: next.enabled,
      });
      return viewWebhook(next);
    });
  }

  async delete(key: ApiKey, id: string): Promise<void> {
    await this.deps.uow.transaction(async () => {
      const w = await this.load(key, id);
      await this.deps.repo.delete(w.id);
      await this.emit(key, 'webhook.deleted', w, { webhook_id: w.id });
    });
  }

  /** A new secret; the old one keeps signing (a second v1 signature) for 24 hours. */
  async rotateSecret(key: ApiKey, id: string): Promise<WebhookView & { secret: string }> {
    return this.deps.uow.transaction(async () => {
      const w = await this.load(key, id);
      const secret = newSecret(this.deps.random);
      const now = this.deps.clock.now();
      const next: Webhook = {
        ...w,
        secretSealed: this.deps.box.seal(secret),
        oldSecretSealed: w.secretSealed,
        oldSecretExpiresAt: new Date(now.getTime() + ROTATION_OVERLAP_MS),
        updatedAt: now,
      };
      await this.deps.repo.update(next);
      await this.emit(key, 'webhook.secret_rotated', next, {
        webhook_id: w.id,
        old_secret_expires_at: next.oldSecretExpiresAt!.toISOString(),
      });
      return { ...viewWebhook(next), secret };
    });
  }

  async deliveries(
    key: ApiKey,
    id: string,
    after: string | null,
    limit: number,
  ): Promise<{ data: DeliveryView[]; next_cursor: string | null }> {
    const w = await this.load(key, id);
    const rows = await this.deps.repo.listDeliveries(w.id, after, limit + 1);
    const page = rows.slice(0, limit);
    return {
      data: page.map((d) => ({
        id: d.id,
        event_id: d.eventId,
        event_type: d.eventType,
        status: d.status,
        attempts: d.attempts,
        next_attempt_at: d.status === 'pending' ? (d.nextAttemptAt?.toISOString() ?? null) : null,
        created_at: d.createdAt.toISOString(),
        delivered_at: d.deliveredAt?.toISOString() ?? null,
        attempt_log: d.log.map((a) => ({
          number: a.number,
          attempted_at: a.attemptedAt.toISOString(),
          outcome: a.outcome,
          response_code: a.responseCode,
          latency_ms: a.latencyMs,
          response_body: a.responseBody,
          error: a.error,
        })),
      })),
      next_cursor: rows.length > limit ? page[page.length - 1]!.id : null,
    };
  }

  /** Queues the delivery's event again for this endpoint, as a new delivery due now. */
  async redeliver(
    key: ApiKey,
    id: string,
    deliveryId: string,
  ): Promise<{ id: string; event_id: string; status: 'pending'; redelivery_of: string }> {
    return this.deps.uow.transaction(async () => {
      const w = await this.load(key, id);
      const d = await this.deps.repo.findDelivery(w.id, deliveryId);
      if (!d) throw new DomainError('delivery_not_found', { delivery_id: deliveryId });
      const now = this.deps.clock.now();
      const newId = this.deps.random.id();
      await this.deps.repo.insertDeliveries([
        {
          id: newId,
          webhookId: w.id,
          accountId: w.accountId,
          environment: w.environment,
          eventId: d.eventId,
          eventSeq: d.eventSeq,
          eventCommittedAt: now,
          nextAttemptAt: now,
          createdAt: now,
        },
      ]);
      return { id: newId, event_id: d.eventId, status: 'pending', redelivery_of: d.id };
    });
  }
}
