import type { Authorizer } from '../access/authorize.js';
import type { ApiKey } from '../kernel/caller.js';
import { normalizeDomain } from '../kernel/domain-name.js';
import { filteredPage, memoized, type Page } from '../kernel/pagination.js';
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
    const readable = memoized((d) => this.authorizer.allows(key, 'monitor.read', d));
    return filteredPage({
      cursor: q.cursor,
      limit: q.limit,
      fetch: (before, limit) =>
        this.monitors.list(key.accountId, key.environment, { ...(before ? { before } : {}), limit, ...(domain ? { domain } : {}) }),
      sortKey: cursorOf,
      keep: (m) => readable(m.domain),
      view: viewMonitor,
    });
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
