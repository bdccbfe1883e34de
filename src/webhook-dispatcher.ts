import type { Logger } from 'pino';
import type { PublishEvents } from '../core/webhooks/publish-events.use-case.js';
import type { DeliverWebhooks } from '../core/webhooks/deliver-webhooks.use-case.js';
import type { Delivery } from '../core/webhooks/webhook.js';

export interface DispatcherOptions {
  /**
   * Sleep between passes when there was nothing to do; each idle pass after it doubles the sleep, up to
   * idleMaxMs (or pollMs, if longer). Work found, or a nudge (an event appended in this process), starts
   * again from pollMs.
   */
  readonly pollMs: number;
  /** The longest idle sleep (default IDLE_MAX_MS). */
  readonly idleMaxMs?: number;
  /** Endpoints served at once by this process. */
  readonly concurrency: number;
  readonly leaseMs: number;
  readonly timeoutMs: number;
  /** Attempts in flight per endpoint, started in event order (1: strictly one after another). */
  readonly perEndpoint: number;
}

/**
 * The longest idle sleep by default (ms; WEBHOOKS_IDLE_MAX_MS): an idle dispatcher's two claiming transactions ten times a second cost the
 * API process it runs in CPU and SQLite's write lock under every request (issue 21, the keyed read's tail);
 * events appended in this process wake it at once, and those of other processes (another API process in
 * `npm run cluster`) and due retries are found within this.
 */
export const IDLE_MAX_MS = 1_000;

/** The idle sleep after one of `current` ms (0: the first since work): pollMs, then doubling up to idleMaxMs (or pollMs, if longer). */
export const nextIdleMs = (current: number, pollMs: number, idleMaxMs = IDLE_MAX_MS): number =>
  current === 0 ? pollMs : Math.min(current * 2, Math.max(pollMs, idleMaxMs));

/**
 * The worker's webhook loop: publish new events (numbering + fan-out), claim due deliveries
 * for endpoints not already busy here, and run one chain per endpoint — that endpoint's deliveries in
 * event order, one at a time — while other endpoints proceed in parallel, so a slow endpoint holds back
 * only itself. A chain stops and releases what is left before its lease could run out under a slow
 * endpoint, so no other worker ever takes a delivery this one is still sending.
 */
export class WebhookDispatcher {
  private running = false;
  private loop: Promise<void> | null = null;
  private readonly busy = new Set<string>();
  private readonly chains = new Set<Promise<void>>();
  private wake: (() => void) | null = null;
  /** A chain ended while no one was sleeping (during a pass): the next sleep is skipped, not missed. */
  private woken = false;

  constructor(
    private readonly publish: PublishEvents,
    private readonly deliver: DeliverWebhooks,
    private readonly options: DispatcherOptions,
    private readonly log: Logger,
  ) {}

  /** One pass; returns whether it found work. */
  async pass(): Promise<boolean> {
    let work = false;
    for (let i = 0; i < 20; i++) {
      const r = await this.publish.run(500);
      if (r.taken > 0) work = true;
      if (r.taken < 500) break;
    }
    const free = this.options.concurrency - this.busy.size;
    if (free <= 0) return work;
    const { token, deliveries } = await this.deliver.claim(free * 20, [...this.busy]);
    if (deliveries.length === 0) return work;
    const byHook = new Map<string, Delivery[]>();
    for (const d of deliveries) byHook.set(d.webhookId, [...(byHook.get(d.webhookId) ?? []), d]);
    const deadline = Date.now() + this.options.leaseMs - this.options.timeoutMs - 2000;
    for (const [hook, list] of byHook) {
      this.busy.add(hook);
      const chain = this.chain(list, token, deadline).finally(() => {
        this.busy.delete(hook);
        this.chains.delete(chain);
        this.woken = true;
        this.wake?.();
      });
      this.chains.add(chain);
    }
    return true;
  }

  private async chain(list: Delivery[], token: string, deadline: number): Promise<void> {
    let ctx: Awaited<ReturnType<DeliverWebhooks['prepare']>>;
    try {
      ctx = await this.deliver.prepare(list);
    } catch (err) {
      this.log.error({ err }, 'webhook deliveries could not be loaded; the lease will free them');
      return;
    }
    let next = 0;
    // Successful attempts are recorded by group commit while the lane goes on; the endpoint stays busy
    // (and its claim untouched by the next pass) until every one of them is recorded.
    const recording: Array<Promise<unknown>> = [];
    const lane = async () => {
      while (next < list.length) {
        const d = list[next++]!;
        if ((!this.running && this.loop) || Date.now() > deadline) {
          await this.deliver.release(d, token).catch(() => undefined);
          continue;
        }
        try {
          const { recorded } = await this.deliver.send(d, token, ctx);
          recording.push(
            recorded.catch((err: unknown) => {
              this.log.error({ err, deliveryId: d.id }, 'webhook attempt could not be recorded; the lease will free it');
            }),
          );
        } catch (err) {
          this.log.error({ err, deliveryId: d.id }, 'webhook attempt could not be recorded; the lease will free it');
        }
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(this.options.perEndpoint, list.length)) }, lane));
    await Promise.all(recording);
  }

  /** Work may be waiting (an event was appended here): the next pass starts now, or right after the one running. */
  nudge(): void {
    this.idleMs = 0;
    this.woken = true;
    this.wake?.();
  }

  /** The current idle sleep (0: none yet since the last work). */
  private idleMs = 0;

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = (async () => {
      while (this.running) {
        let work = false;
        this.woken = false;
        try {
          work = await this.pass();
        } catch (err) {
          this.log.error({ err }, 'webhook dispatcher pass failed');
        }
        if (work) this.idleMs = 0;
        if (!work && this.running && !this.woken) {
          this.idleMs = nextIdleMs(this.idleMs, this.options.pollMs, this.options.idleMaxMs);
          await new Promise<void>((resolve) => {
            const t = setTimeout(resolve, this.idleMs);
            this.wake = () => {
              clearTimeout(t);
              resolve();
            };
          });
          this.wake = null;
        }
      }
    })();
  }

  /** Stops claiming; waits for the chains in flight (the rest of each chain is released). */
  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
    await Promise.all([...this.chains]);
    this.loop = null;
  }
}
