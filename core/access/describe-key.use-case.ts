import type { SpendCounters } from './ports/spend-counters.port.js';
import type { Clock } from '../kernel/clock.port.js';
import { kyivMonth } from '../kernel/dates.js';
import { uah, type Money } from '../kernel/money.js';
import type { ApiKey } from '../kernel/caller.js';
import { viewKey, type KeyView } from './key-view.js';
import { CLASSES } from './classes.js';

export interface KeySelfView extends KeyView {
  class_meaning: { uk: string; en: string };
  /** Spend in the current Europe/Kyiv calendar month (DESIGN: spend limits). */
  spend: { month: string; used: Money; limit: Money | null; remaining: Money | null };
}

/** GET /v1/key — what the calling key is (Cloudflare's "verify token"). */
export class DescribeKey {
  constructor(
    private readonly spend: SpendCounters,
    private readonly clock: Clock,
  ) {}

  async execute(key: ApiKey): Promise<KeySelfView> {
    const now = this.clock.now();
    const month = kyivMonth(now);
    const used = await this.spend.spent(key.id, month.month);
    const limit = key.conditions.spendLimit;
    return {
      ...viewKey(key, now),
      class_meaning: { ...CLASSES[key.class].meaning },
      spend: {
        month: month.month,
        used: uah(used),
        limit: limit === null ? null : uah(limit),
        remaining: limit === null ? null : uah(Math.max(0, limit - used)),
      },
    };
  }
}
