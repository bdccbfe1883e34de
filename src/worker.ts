import type { Logger } from 'pino';
import { IDEMPOTENCY_RETENTION_MS } from '../adapters/http/middleware/idempotency.js';
import type { System } from './system.js';

/**
 * The background worker: periodic housekeeping now (idempotency records past their 24 h), the
 * domain lifecycle later. Runs inside `npm start` or alone as `npm run worker`.
 */
export class Worker {
  private timer: NodeJS.Timeout | null = null;
  private readonly log: Logger;

  constructor(private readonly system: System, private readonly intervalMs = 60_000) {
    this.log = system.logger.child({ component: 'worker' });
  }

  async tick(now = new Date()): Promise<{ idempotencyPurged: number }> {
    const idempotencyPurged = await this.system.store.idempotency.purge(new Date(now.getTime() - IDEMPOTENCY_RETENTION_MS));
    if (idempotencyPurged > 0) this.log.info({ idempotencyPurged }, 'purged idempotency records');
    return { idempotencyPurged };
  }

  start(): void {
    const run = () => {
      this.tick().catch((err) => this.log.error({ err }, 'worker tick failed'));
    };
    run();
    this.timer = setInterval(run, this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
