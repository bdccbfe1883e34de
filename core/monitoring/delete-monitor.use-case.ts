import type { Authorizer } from '../access/authorize.js';
import type { ApiKey } from '../kernel/caller.js';
import type { EventLog } from '../kernel/event-log.port.js';
import type { Clock } from '../kernel/clock.port.js';
import { DomainError } from '../kernel/errors.js';
import type { Random } from '../kernel/random.port.js';
import type { UnitOfWork } from '../kernel/unit-of-work.port.js';
import { loadMonitor } from './monitor-access.js';
import type { MonitorRepository } from './ports/monitor-repository.port.js';

/** DELETE /v1/monitors/{id} (monitor.edit): the monitor, its results and incidents go. */
export class DeleteMonitor {
  constructor(
    private readonly monitors: MonitorRepository,
    private readonly authorizer: Authorizer,
    private readonly events: EventLog,
    private readonly uow: UnitOfWork,
    private readonly random: Random,
    private readonly clock: Clock,
  ) {}

  async execute(key: ApiKey, id: string): Promise<{ id: string; deleted: true }> {
    const m = await loadMonitor(this.monitors, this.authorizer, key, id, 'monitor.edit');
    await this.uow.transaction(async () => {
      if (!(await this.monitors.delete(id))) throw new DomainError('monitor_not_found', { monitor_id: id });
      await this.events.append({
        id: this.random.id(), accountId: key.accountId, environment: key.environment, type: 'monitor.deleted', subject: `monitor:${id}`,
        actor: `key:${key.id}`, occurredAt: this.clock.now(), data: { monitor_id: id, domain: m.domain, kind: m.spec.kind },
      });
    });
    return { id, deleted: true };
  }
}
