import type { Authorizer } from '../access/authorize.js';
import type { ApiKey } from '../kernel/caller.js';
import type { Clock } from '../kernel/clock.port.js';
import { DomainError } from '../kernel/errors.js';
import { loadMonitor } from './monitor-access.js';
import type { MonitorRepository } from './ports/monitor-repository.port.js';
import { computeReport, REPORT_PERIODS, type Report, type ReportPeriod } from './report.js';

/** GET /v1/monitors/{id}/report?period=24h|7d|30d: uptime %, p50/p95 latency, incidents with start and end. */
export class MonitorReport {
  constructor(
    private readonly monitors: MonitorRepository,
    private readonly authorizer: Authorizer,
    private readonly clock: Clock,
  ) {}

  async execute(key: ApiKey, id: string, period = '24h'): Promise<Report & { monitor_id: string }> {
    const m = await loadMonitor(this.monitors, this.authorizer, key, id, 'monitor.read');
    if (!Object.hasOwn(REPORT_PERIODS, period)) {
      throw new DomainError('validation_failed', {}, [
        { field: '/query/period', rule: 'report-period', message: { uk: 'період: 24h, 7d або 30d', en: 'the period is 24h, 7d or 30d' } },
      ]);
    }
    const to = this.clock.now();
    const from = new Date(to.getTime() - REPORT_PERIODS[period as ReportPeriod]);
    const [results, incidents] = await Promise.all([
      this.monitors.resultsBetween(m.id, from, to),
      this.monitors.incidentsBetween(m.id, from, to),
    ]);
    return { monitor_id: m.id, ...computeReport(period, from, to, results, incidents) };
  }
}
