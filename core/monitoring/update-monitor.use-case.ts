import type { RecordingDeps } from '../kernel/recording-deps.js';
import type { Authorizer } from '../access/authorize.js';
import { actorOf, type ApiKey } from '../kernel/caller.js';
import { DomainError } from '../kernel/errors.js';
import type { Monitor } from './monitor.js';
import { loadMonitor } from './monitor-access.js';
import { buildSpec, checkInterval, type MonitorRules, type MonitorSpecInput } from './monitor-spec.js';
import { eventSpecFields, specFields, viewMonitor, type MonitorView } from './monitor-view.js';
import type { MonitorRepository } from './ports/monitor-repository.port.js';

export interface UpdateMonitorInput extends MonitorSpecInput {
  readonly interval_seconds?: number;
  readonly enabled?: boolean;
  readonly kind?: string;
  readonly domain?: string;
}

/** What UpdateMonitor is built from (one object, named, instead of positions). */
export interface UpdateMonitorDeps extends RecordingDeps {
  readonly monitors: MonitorRepository;
  readonly authorizer: Authorizer;
  readonly rules: MonitorRules;
}

/**
 * PATCH /v1/monitors/{id} (monitor.edit): any kind-specific field, the interval, enabled. The kind and
 * the domain stay (create another monitor instead). The merged monitor is checked like a new one.
 */
export class UpdateMonitor {
  constructor(private readonly deps: UpdateMonitorDeps) {}

  async execute(key: ApiKey, id: string, input: UpdateMonitorInput): Promise<MonitorView> {
    const current = await loadMonitor(this.deps.monitors, this.deps.authorizer, key, id, 'monitor.edit');
    const fixed = (['kind', 'domain'] as const).filter(
      (f) => input[f] !== undefined && input[f] !== (f === 'kind' ? current.spec.kind : current.domain),
    );
    if (fixed.length > 0) {
      throw new DomainError(
        'validation_failed',
        {},
        fixed.map((f) => ({
          field: `/body/${f}`,
          rule: 'immutable',
          message: { uk: `поле ${f} не змінюється: створіть нову перевірку`, en: `${f} cannot change: create a new monitor instead` },
        })),
      );
    }
    const { interval_seconds, enabled, kind: _k, domain: _d, ...specInput } = input;
    const spec = buildSpec(
      current.spec.kind,
      { ...(specFields(current.spec) as MonitorSpecInput), ...specInput },
      current.domain,
      key.environment,
      this.deps.rules,
    );
    const interval = interval_seconds ?? current.intervalSeconds;
    if (interval_seconds !== undefined) checkInterval(interval, key.environment, this.deps.rules);
    const now = this.deps.clock.now();
    const nowEnabled = enabled ?? current.enabled;
    const next: Monitor = {
      ...current,
      spec,
      intervalSeconds: interval,
      enabled: nowEnabled,
      updatedAt: now,
      // Switched on again or rescheduled: check soon rather than after the old interval.
      nextCheckAt: (!current.enabled && nowEnabled) || interval !== current.intervalSeconds ? now : current.nextCheckAt,
    };
    await this.deps.uow.transaction(async () => {
      if (!(await this.deps.monitors.update(next))) throw new DomainError('monitor_not_found', { monitor_id: id });
      await this.deps.events.record(
        'monitor.updated',
        { accountId: key.accountId, environment: key.environment, subject: `monitor:${id}`, actor: actorOf(key), occurredAt: now },
        {
          monitor_id: id,
          domain: current.domain,
          kind: spec.kind,
          ...eventSpecFields(spec),
          interval_seconds: interval,
          enabled: nowEnabled,
        },
      );
    });
    return viewMonitor(next);
  }
}
