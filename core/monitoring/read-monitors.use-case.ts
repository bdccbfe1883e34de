import type { Authorizer } from '../access/authorize.js';
import type { ApiKey } from '../kernel/caller.js';
import { normalizeDomain } from '../kernel/domain-name.js';
import { clampLimit, decodeCursor, encodeCursor, type Page } from '../kernel/pagination.js';
import type { Monitor } from './monitor.js';
import { loadMonitor } from './monitor-access.js';
import { viewMonitor, type MonitorView } from './monitor-view.js';
import type { MonitorRepository } from './ports/monitor-repository.port.js';

const cursorOf = (m: Monitor): string => `${m.createdAt.toISOString()}|${m.id}`;

/** GET /v1/monitors: monitors of the domains the key may read (monitor.read), newest first, cursor pages. */
export class ListMonitors {
  constructor(
    private readonly monitors: MonitorRepository,
    private readonly authorizer: Authorizer,
  ) {}

  async execute(key: ApiKey, q: { cursor?: string; limit?: number; domain?: string }): Promise<Page<MonitorView>> {
    const domain = q.domain !== undefined ? normalizeDomain(q.domain) : undefined;
    await this.authorizer.check(key, 'monitor.read', domain);
    const limit = clampLimit(q.limit);
    let before = decodeCursor(q.cursor);
    const readable = new Map<string, boolean>();
    const out: Monitor[] = [];
    let next: string | undefined;
    // Filtered by the key's domains after reading: fetch until the page is full or the list ends.
    for (let round = 0; ; round++) {
      const batch = await this.monitors.list(key.accountId, key.environment, {
        ...(before ? { before } : {}),
        limit,
        ...(domain ? { domain } : {}),
      });
      let i = 0;
      for (; i < batch.length && out.length < limit; i++) {
        const m = batch[i]!;
        before = cursorOf(m);
        let ok = readable.get(m.domain);
        if (ok === undefined) readable.set(m.domain, (ok = await this.authorizer.allows(key, 'monitor.read', m.domain)));
        if (ok) out.push(m);
      }
      if (out.length >= limit) {
        next = i < batch.length || batch.length === limit ? before : undefined;
        break;
      }
      if (batch.length < limit) break;
      if (round >= 20) {
        next = before;
        break;
      }
    }
    return { data: out.map(viewMonitor), next_cursor: next ? encodeCursor(next) : null };
  }
}

/** GET /v1/monitors/{id} (monitor.read on its domain). */
export class GetMonitor {
  constructor(
    private readonly monitors: MonitorRepository,
    private readonly authorizer: Authorizer,
  ) {}

  async execute(key: ApiKey, id: string): Promise<MonitorView> {
    return viewMonitor(await loadMonitor(this.monitors, this.authorizer, key, id, 'monitor.read'));
  }
}
