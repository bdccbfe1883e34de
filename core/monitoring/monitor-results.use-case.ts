import type { Authorizer } from '../access/authorize.js';
import type { ApiKey } from '../kernel/caller.js';
import { DomainError } from '../kernel/errors.js';
import { clampLimit, decodeCursor, encodeCursor, type Page } from '../kernel/pagination.js';
import { loadMonitor } from './monitor-access.js';
import { viewResult } from './monitor-view.js';
import type { MonitorRepository } from './ports/monitor-repository.port.js';

/** Parses an RFC 3339 instant from the query, or answers validation_failed naming the field. */
export const instant = (value: string | undefined, field: string): Date | undefined => {
  if (value === undefined) return undefined;
  const d = new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:\d{2}))?$/.test(value) || Number.isNaN(d.getTime())) {
    throw new DomainError('validation_failed', {}, [
      {
        field: `/query/${field}`,
        rule: 'date-time',
        message: {
          uk: 'момент у форматі RFC 3339 (2026-11-24T12:00:00Z) або дата YYYY-MM-DD',
          en: 'an RFC 3339 instant (2026-11-24T12:00:00Z) or a YYYY-MM-DD date',
        },
      },
    ]);
  }
  return d;
};

/** GET /v1/monitors/{id}/results?from&to: check results, newest first, cursor pages (kept 30 days). */
export class ListMonitorResults {
  constructor(
    private readonly monitors: MonitorRepository,
    private readonly authorizer: Authorizer,
  ) {}

  async execute(
    key: ApiKey,
    id: string,
    q: { from?: string; to?: string; cursor?: string; limit?: number },
  ): Promise<Page<ReturnType<typeof viewResult>>> {
    const m = await loadMonitor(this.monitors, this.authorizer, key, id, 'monitor.read');
    const from = instant(q.from, 'from');
    const to = instant(q.to, 'to');
    const limit = clampLimit(q.limit);
    const before = decodeCursor(q.cursor);
    const rows = await this.monitors.results(m.id, {
      ...(from ? { from } : {}),
      ...(to ? { to } : {}),
      ...(before ? { before } : {}),
      limit: limit + 1,
    });
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      data: page.map(viewResult),
      next_cursor: rows.length > limit && last ? encodeCursor(`${last.checkedAt.toISOString()}|${last.id}`) : null,
    };
  }
}
