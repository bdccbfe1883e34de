import type { RecordingDeps } from '../kernel/recording-deps.js';
import type { Authorizer } from '../access/authorize.js';
import { actorOf, type ApiKey } from '../kernel/caller.js';
import { normalizeDomain } from '../kernel/domain-name.js';
import { DomainError } from '../kernel/errors.js';
import { MONITOR_KINDS, type Monitor, type MonitorKind } from './monitor.js';
import { buildSpec, checkInterval, DEFAULT_INTERVAL_SECONDS, type MonitorRules, type MonitorSpecInput } from './monitor-spec.js';
import { eventSpecFields, viewMonitor, type MonitorView } from './monitor-view.js';
import type { MonitorRepository } from './ports/monitor-repository.port.js';

export interface CreateMonitorInput extends MonitorSpecInput {
  readonly kind: string;
  readonly domain: string;
  readonly interval_seconds?: number;
  readonly enabled?: boolean;
}

/** What CreateMonitor is built from (one object, named, instead of positions). */
export interface CreateMonitorDeps extends RecordingDeps {
  readonly monitors: MonitorRepository;
  readonly authorizer: Authorizer;
  readonly rules: MonitorRules;
}

/** POST /v1/monitors (monitor.edit on the domain, class 1). The first check runs on the worker's next pass. */
export class CreateMonitor {
  constructor(private readonly deps: CreateMonitorDeps) {}

  async execute(key: ApiKey, input: CreateMonitorInput): Promise<MonitorView> {
    const name = normalizeDomain(input.domain);
    const domain = await this.deps.authorizer.check(key, 'monitor.edit', name);
    if (!domain) throw new DomainError('domain_not_found', { domain: name });
    if (!(MONITOR_KINDS as readonly string[]).includes(input.kind))
      throw new DomainError('validation_failed', {}, [
        {
          field: '/body/kind',
          rule: 'monitor-kind',
          message: { uk: `вид перевірки: ${MONITOR_KINDS.join(', ')}`, en: `the monitor kind is one of ${MONITOR_KINDS.join(', ')}` },
        },
      ]);
    const spec = buildSpec(input.kind as MonitorKind, input, domain.name, key.environment, this.deps.rules);
    const interval = input.interval_seconds ?? DEFAULT_INTERVAL_SECONDS;
    checkInterval(interval, key.environment, this.deps.rules);
    const now = this.deps.clock.now();
    const m: Monitor = {
      id: `mon_${this.deps.random.id()}`,
      accountId: key.accountId,
      environment: key.environment,
      domain: domain.name,
      spec,
      intervalSeconds: interval,
      enabled: input.enabled ?? true,
      state: 'pending',
      stateChangedAt: null,
      lastReason: null,
      lastCheckedAt: null,
      nextCheckAt: now,
      openIncidentId: null,
      createdAt: now,
      updatedAt: now,
    };
    await this.deps.uow.transaction(async () => {
      if ((await this.deps.monitors.count(key.accountId, key.environment, true)) >= this.deps.rules.maxPerAccount) {
        throw new DomainError('monitor_limit_reached', { limit: this.deps.rules.maxPerAccount, environment: key.environment });
      }
      await this.deps.monitors.insert(m);
      await this.deps.events.record(
        'monitor.created',
        { accountId: key.accountId, environment: key.environment, subject: `monitor:${m.id}`, actor: actorOf(key), occurredAt: now },
        {
          monitor_id: m.id,
          domain: m.domain,
          kind: spec.kind,
          ...eventSpecFields(spec),
          interval_seconds: interval,
          enabled: m.enabled,
        },
      );
    });
    return viewMonitor(m);
  }
}
