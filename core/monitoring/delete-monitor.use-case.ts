import type { RecordingDeps } from '../kernel/recording-deps.js';
import type { Authorizer } from '../access/authorize.js';
import { actorOf, type ApiKey } from '../kernel/caller.js';
import { DomainError } from '../kernel/errors.js';
import { loadMonitor } from './monitor-access.js';
import type { MonitorRepository } from './ports/monitor-repository.port.js';

/** What DeleteMonitor is built from (one object, named, instead of positions). */
export interface DeleteMonitorDeps extends RecordingDeps {
  readonly monitors: MonitorRepository;
  readonly authorizer: Authorizer;
}

/** DELETE /v1/monitors/{id} (monitor.edit): the monitor, its results and incidents go. */
export class DeleteMonitor {
  constructor(private readonly deps: DeleteMonitorDeps) {}

  async execute(key: ApiKey, id: string): Promise<{ id: string; deleted: true }> {
    const m = await loadMonitor(this.deps.monitors, this.deps.authorizer, key, id, 'monitor.edit');
    await this.deps.uow.transaction(async () => {
      if (!(await this.deps.monitors.delete(id))) throw new DomainError('monitor_not_found', { monitor_id: id });
      await this.deps.events.record(
        'monitor.deleted',
        {
          accountId: key.accountId,
          environment: key.environment,
          subject: `monitor:${id}`,
          actor: actorOf(key),
          occurredAt: this.deps.clock.now(),
        },
        { monitor_id: id, domain: m.domain, kind: m.spec.kind },
      );
    });
    return { id, deleted: true };
  }
}
