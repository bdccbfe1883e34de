import type { Clock } from '../kernel/clock.port.js';
import type { MonitorRepository } from './ports/monitor-repository.port.js';

/** Results (and closed incidents) are kept 30 days — the longest report period. The worker prunes the rest. */
export const MONITOR_RETENTION_MS = 30 * 24 * 3600_000;

export class PruneMonitorResults {
  constructor(
    private readonly monitors: MonitorRepository,
    private readonly clock: Clock,
  ) {}

  async run(): Promise<number> {
    return this.monitors.prune(new Date(this.clock.now().getTime() - MONITOR_RETENTION_MS));
  }
}
