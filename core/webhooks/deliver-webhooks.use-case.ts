import { hostOfUrl } from '../kernel/url-parts.js';
import type { RecordingDeps } from '../kernel/recording-deps.js';
import { withDefaults } from '../kernel/defaults.js';
import type { EventFeed } from '../events/ports/event-feed.port.js';
import { toPublicEvent, type PublishedEvent } from '../events/public-event.js';
import type { SecretBox } from '../kernel/secret-box.port.js';
import type { WebhookRepository } from './ports/webhook-repository.port.js';
import type { SendOutcome, WebhookSender } from './ports/webhook-sender.port.js';
import { storableText } from '../kernel/foreign-text.js';
import { RETRY_WINDOW_MS, retryDelayMs, type Delivery, type Webhook } from './webhook.js';

class LeaseLost extends Error {}

/** What a run of one endpoint's deliveries needs, loaded once: its webhook, their events, its unsealed secrets. */
export interface DeliveryContext {
  webhook: Webhook | null;
  events: Map<string, PublishedEvent>;
  /** The opened secrets, cached for the run (sealed → plain), so a run unseals each once. */
  secrets?: Map<string, string>;
}

interface Delivered {
  readonly d: Delivery;
  readonly w: Webhook;
  readonly token: string;
  readonly at: Date;
  readonly outcome: Extract<SendOutcome, { kind: 'response' }>;
  readonly resolve: (recorded: boolean) => void;
  readonly reject: (err: unknown) => void;
}

export interface DeliverOptions {
  /** How long a claim is held; a crashed worker's claims come free after it (default 60 s: > the 10 s attempt timeout). */
  readonly leaseMs: number;
}

/** What DeliverWebhooks is built from (one object, named, instead of positions). */
export interface DeliverWebhooksDeps extends RecordingDeps {
  readonly repo: WebhookRepository;
  readonly feed: EventFeed;
  readonly sender: WebhookSender;
  readonly box: SecretBox;
  readonly options?: DeliverOptions;
}

/**
 * Sends webhook deliveries: at least once; 2xx = delivered; 410 disables the endpoint;
 * anything else (or a timeout, a refused address, a redirect) is retried with exponential backoff and
 * jitter for 3 days on the Clock port; an endpoint failing for 3 days is disabled and its owners told.
 * Every attempt is logged. The dispatcher (src/webhook-dispatcher.ts) calls `claim` and `attempt`.
 */
export class DeliverWebhooks {
  private readonly deps: Required<DeliverWebhooksDeps>;

  constructor(deps: DeliverWebhooksDeps) {
    this.deps = withDefaults(deps, { options: { leaseMs: 60_000 } });
  }

  /** Successful attempts waiting for the next group commit, and the commit running now. */
  private delivered: Delivered[] = [];
  private committing = false;

  /** Leases due deliveries, skipping endpoints that are busy in this process. */
  async claim(limit: number, busy: readonly string[] = []): Promise<{ token: string; deliveries: Delivery[] }> {
    const now = this.deps.clock.now();
    const token = this.deps.random.id();
    const deliveries = await this.deps.repo.claimDue({
      now,
      leaseUntil: new Date(now.getTime() + this.deps.options.leaseMs),
      token,
      limit,
      busy,
    });
    return { token, deliveries };
  }

  /** Gives a leased delivery back untouched (a worker stopping, or a chain running out of lease time). */
  async release(d: Delivery, token: string): Promise<void> {
    await this.deps.repo.release(d.id, token);
  }

  /** One pass for tests and the worker tick: claims and sends everything due, one endpoint's in order. */
  async runOnce(limit = 200): Promise<{ attempted: number }> {
    const { token, deliveries } = await this.claim(limit);
    const byHook = new Map<string, Delivery[]>();
    for (const d of deliveries) byHook.set(d.webhookId, [...(byHook.get(d.webhookId) ?? []), d]);
    await Promise.all(
      [...byHook.values()].map(async (list) => {
        const ctx = await this.prepare(list);
        for (const d of list) await this.attempt(d, token, ctx);
      }),
    );
    return { attempted: deliveries.length };
  }

  private jitter(): number {
    const b = this.deps.random.bytes(2);
    return ((b[0]! << 8) | b[1]!) / 65536;
  }

  /** Loads, in two queries, what a run of one endpoint's deliveries needs (its webhook and their events). */
  async prepare(list: readonly Delivery[]): Promise<DeliveryContext> {
    if (list.length === 0) return { webhook: null, events: new Map(), secrets: new Map() };
    const webhook = await this.deps.repo.findById(list[0]!.webhookId);
    const events = new Map((await this.deps.feed.getMany(list.map((d) => d.eventId))).map((e) => [e.id, e]));
    return { webhook, events, secrets: new Map() };
  }

  private open(sealed: string, ctx?: DeliveryContext): string {
    if (!ctx) return this.deps.box.open(sealed);
    const cache = (ctx.secrets ??= new Map());
    let plain = cache.get(sealed);
    if (plain === undefined) {
      plain = this.deps.box.open(sealed);
      cache.set(sealed, plain);
    }
    return plain;
  }

  /** Sends one leased delivery and records the attempt; false when the lease was lost meanwhile. */
  async attempt(d: Delivery, token: string, ctx?: DeliveryContext): Promise<boolean> {
    return (await this.send(d, token, ctx)).recorded;
  }

  /**
   * Sends one leased delivery; resolves once it is sent. A failure is recorded before it resolves (it
   * may disable the endpoint, which the rest of the run must see); a success is handed to the group
   * commit, and `recorded` resolves when that commit is done (false when the lease was lost meanwhile).
   * The dispatcher starts the endpoint's next attempt meanwhile and waits for every `recorded` before
   * it lets the endpoint go.
   */
  async send(d: Delivery, token: string, ctx?: DeliveryContext): Promise<{ recorded: Promise<boolean> }> {
    const w = ctx ? ctx.webhook : await this.deps.repo.findById(d.webhookId);
    if (!w || !w.enabled) {
      await this.deps.repo.release(d.id, token);
      return { recorded: Promise.resolve(false) };
    }
    const found = ctx ? ctx.events.get(d.eventId) : await this.deps.feed.get(d.accountId, d.eventId);
    const event = found && found.accountId === d.accountId ? found : null;
    const started = this.deps.clock.now();
    let outcome: SendOutcome;
    if (!event) {
      outcome = { kind: 'error', error: 'refused', message: 'the event is past the 30-day retention', latencyMs: 0 };
    } else {
      const secrets = [this.open(w.secretSealed, ctx)];
      if (w.oldSecretSealed && w.oldSecretExpiresAt && w.oldSecretExpiresAt > started) secrets.push(this.open(w.oldSecretSealed, ctx));
      outcome = await this.deps.sender.send({
        url: w.url,
        environment: w.environment,
        messageId: d.eventId,
        payload: JSON.stringify(toPublicEvent(event)),
        secrets,
      });
    }
    if (event && outcome.kind === 'response' && outcome.status >= 200 && outcome.status < 300) {
      // A success changes nothing but the delivery: it joins the next group commit with the others.
      const success = outcome;
      const recorded = new Promise<boolean>((resolve, reject) => {
        this.delivered.push({ d, w, token, at: started, outcome: success, resolve, reject });
        if (!this.committing) void this.commitDelivered();
      });
      return { recorded };
    }
    const disabled = await this.recordOrFail(d, w, token, started, outcome, !event);
    // The rest of this endpoint's run sees it disabled (their leases are released, not sent).
    if (disabled && ctx) ctx.webhook = null;
    return { recorded: Promise.resolve(disabled !== null) };
  }

  /**
   * Records the attempt; when the store refuses it (anything but a lost lease), records a failed
   * attempt that says so instead, with the usual back-off: a delivery whose attempt cannot be stored is
   * retried on the schedule and in the end disables its endpoint, never re-sent every lease period.
   * Resolves whether it disabled the endpoint, or null when the lease was lost.
   */
  private async recordOrFail(
    d: Delivery,
    w: Webhook,
    token: string,
    at: Date,
    outcome: SendOutcome,
    expired: boolean,
  ): Promise<boolean | null> {
    try {
      return await this.record(d, w, token, at, outcome, expired);
    } catch (err) {
      if (err instanceof LeaseLost) return null;
      const message = `the attempt could not be recorded (${err instanceof Error ? err.message : String(err)})`;
      try {
        return await this.record(
          d,
          w,
          token,
          at,
          { kind: 'error', error: 'store', message: message.slice(0, 500), latencyMs: outcome.latencyMs },
          expired,
        );
      } catch (again) {
        if (again instanceof LeaseLost) return null;
        throw again;
      }
    }
  }

  /**
   * Group commit of successful attempts: everything that succeeded while the previous commit ran is
   * recorded in one transaction (each delivery still only while its own lease holds), so the cost of a
   * transaction is shared by every attempt that finished meanwhile.
   */
  private async commitDelivered(): Promise<void> {
    this.committing = true;
    try {
      while (this.delivered.length > 0) {
        // Let the answers already read in this turn of the event loop join the batch.
        await new Promise<void>((resolve) => setImmediate(resolve));
        const batch = this.delivered.splice(0, 500);
        try {
          const now = this.deps.clock.now();
          const items = batch.map((x) => ({
            token: x.token,
            firstAttemptAt: x.d.firstAttemptAt ?? x.at,
            deliveredAt: now,
            attempt: {
              id: this.deps.random.id(),
              deliveryId: x.d.id,
              webhookId: x.w.id,
              number: x.d.attempts + 1,
              attemptedAt: x.at,
              outcome: 'succeeded' as const,
              responseCode: x.outcome.status,
              latencyMs: Math.round(x.outcome.latencyMs),
              responseBody: storableText(x.outcome.body),
              error: null,
            },
          }));
          const recorded = await this.deps.uow.transaction(async () => {
            const done = await this.deps.repo.recordDelivered(items);
            const healed = new Set<string>();
            for (const x of batch) {
              if (!done.has(x.d.id) || !x.w.failingSince || healed.has(x.w.id)) continue;
              healed.add(x.w.id);
              await this.deps.repo.markHealthy(x.w.id);
            }
            return done;
          });
          for (const x of batch) x.resolve(recorded.has(x.d.id));
        } catch {
          // The batch could not be stored: each attempt is recorded on its own, as a failure if need be.
          for (const x of batch) {
            await this.recordOrFail(x.d, x.w, x.token, x.at, x.outcome, false).then(
              (r) => x.resolve(r !== null),
              (err: unknown) => x.reject(err),
            );
          }
        }
      }
    } finally {
      this.committing = false;
    }
  }

  /** Records the attempt; resolves true when it disabled the endpoint. */
  private async record(d: Delivery, w: Webhook, token: string, at: Date, outcome: SendOutcome, expired: boolean): Promise<boolean> {
    const now = this.deps.clock.now();
    const number = d.attempts + 1;
    const ok = outcome.kind === 'response' && outcome.status >= 200 && outcome.status < 300;
    const gone = outcome.kind === 'response' && outcome.status === 410;
    let status: Delivery['status'] = 'pending';
    let nextAttemptAt: Date | null = null;
    if (ok) status = 'delivered';
    else if (gone || expired) status = 'failed';
    else {
      nextAttemptAt = new Date(now.getTime() + retryDelayMs(number, this.jitter()));
      if (nextAttemptAt.getTime() > d.createdAt.getTime() + RETRY_WINDOW_MS) {
        status = 'failed';
        nextAttemptAt = null;
      }
    }
    return this.deps.uow.transaction(async () => {
      const recorded = await this.deps.repo.recordAttempt(
        {
          id: this.deps.random.id(),
          deliveryId: d.id,
          webhookId: w.id,
          number,
          attemptedAt: at,
          outcome: ok ? 'succeeded' : 'failed',
          responseCode: outcome.kind === 'response' ? outcome.status : null,
          latencyMs: Math.round(outcome.latencyMs),
          // The receiver's answer and an error's text are foreign: stored so that any store takes them.
          responseBody: outcome.kind === 'response' ? storableText(outcome.body) : null,
          error: outcome.kind === 'error' ? storableText(`${outcome.error}: ${outcome.message}`) : null,
        },
        { status, nextAttemptAt, firstAttemptAt: d.firstAttemptAt ?? at, deliveredAt: ok ? now : null },
        token,
      );
      if (!recorded) throw new LeaseLost();
      if (ok) {
        if (w.failingSince) await this.deps.repo.markHealthy(w.id);
        return false;
      }
      if (gone) return this.disable(w, 'gone', now);
      const since = await this.deps.repo.markFailing(w.id, now);
      // Failing for 3 days: the streak is that old, or this delivery used up its 3 days of retries with
      // nothing delivered to the endpoint since it was created.
      const exhausted = status === 'failed' && since.getTime() <= (d.firstAttemptAt ?? at).getTime();
      if (now.getTime() - since.getTime() >= RETRY_WINDOW_MS || exhausted) return this.disable(w, 'failing', now);
      return false;
    });
  }

  private async disable(w: Webhook, reason: 'gone' | 'failing', now: Date): Promise<boolean> {
    if (!(await this.deps.repo.disable(w.id, reason, now))) return true;
    await this.deps.repo.cancelPending(w.id);
    await this.deps.events.record(
      'webhook.disabled',
      { accountId: w.accountId, environment: w.environment, subject: `webhook:${w.id}`, actor: 'system:webhooks', occurredAt: now },
      { webhook_id: w.id, host: hostOfUrl(w.url), reason },
    );
    return true;
  }
}
