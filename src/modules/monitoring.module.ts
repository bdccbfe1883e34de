import type { Clock } from '../../core/kernel/clock.port.js';
import type { Random } from '../../core/kernel/random.port.js';
import type { Domain } from '../../core/domains/domain.js';
import type { Authorizer } from '../../core/access/authorize.js';
import { Recorder } from '../../core/kernel/recorder.js';
import { ContainerModule, type Container, type ServiceIdentifier } from 'inversify';
import type { UseCases } from '../../adapters/http/index.js';
import { SqlStore } from '../../adapters/sql/index.js';
import type { EnvironmentAdapters } from '../tokens.js';
import type { Config } from '../config.js';
import { TOKENS as T } from '../tokens.js';
import { CreateMonitor } from '../../core/monitoring/create-monitor.use-case.js';
import { UpdateMonitor } from '../../core/monitoring/update-monitor.use-case.js';
import { DeleteMonitor } from '../../core/monitoring/delete-monitor.use-case.js';
import { GetMonitor, ListMonitors } from '../../core/monitoring/read-monitors.use-case.js';
import { ListMonitorResults } from '../../core/monitoring/monitor-results.use-case.js';
import { MonitorReport } from '../../core/monitoring/monitor-report.use-case.js';
import { RunMonitorChecks } from '../../core/monitoring/run-monitor-checks.use-case.js';
import { PruneMonitorResults } from '../../core/monitoring/prune-monitor-results.use-case.js';
import { monitorProbes, monitorRules } from '../monitor-probes.js';

/** The monitoring capability's use cases, constructed by hand from their ports (no decorators in core/). */
export const monitoringModule = () =>
  new ContainerModule(({ bind }) => {
    const s = id(T.Store);
    bind(T.MonitorProbes)
      .toResolvedValue((cfg: Config, test: EnvironmentAdapters) => monitorProbes(cfg, test), [T.Config, T.TestAdapters])
      .inSingletonScope();
    bind(T.CreateMonitor)
      .toResolvedValue(
        (st: SqlStore, a: Authorizer<Domain>, cfg: Config, r: Random, c: Clock, rec: Recorder) =>
          new CreateMonitor(editing(st, a, cfg, r, c, rec)),
        [s, T.Authorizer, T.Config, T.Random, T.Clock, T.Recorder],
      )
      .inSingletonScope();
    bind(T.UpdateMonitor)
      .toResolvedValue(
        (st: SqlStore, a: Authorizer<Domain>, cfg: Config, r: Random, c: Clock, rec: Recorder) =>
          new UpdateMonitor(editing(st, a, cfg, r, c, rec)),
        [s, T.Authorizer, T.Config, T.Random, T.Clock, T.Recorder],
      )
      .inSingletonScope();
    bind(T.DeleteMonitor)
      .toResolvedValue(
        (st: SqlStore, a, r, c, rec: Recorder) =>
          new DeleteMonitor({ monitors: st.monitors, authorizer: a, events: rec, uow: st.uow, random: r, clock: c }),
        [s, T.Authorizer, T.Random, T.Clock, T.Recorder],
      )
      .inSingletonScope();
    bind(T.ListMonitors)
      .toResolvedValue((st: SqlStore, a) => new ListMonitors(st.monitors, a), [s, T.Authorizer])
      .inSingletonScope();
    bind(T.GetMonitor)
      .toResolvedValue((st: SqlStore, a) => new GetMonitor(st.monitors, a), [s, T.Authorizer])
      .inSingletonScope();
    bind(T.ListMonitorResults)
      .toResolvedValue((st: SqlStore, a) => new ListMonitorResults(st.monitors, a), [s, T.Authorizer])
      .inSingletonScope();
    bind(T.MonitorReport)
      .toResolvedValue((st: SqlStore, a, c) => new MonitorReport(st.monitors, a, c), [s, T.Authorizer, T.Clock])
      .inSingletonScope();
    bind(T.RunMonitorChecks)
      .toResolvedValue(
        (st: SqlStore, p, at, r, c, cfg: Config, rec: Recorder) =>
          new RunMonitorChecks({
            monitors: st.monitors,
            domains: st.domains,
            probesFor: p,
            accountTime: at,
            events: rec,
            uow: st.uow,
            random: r,
            clock: c,
            options: { timeoutMs: cfg.monitors.checkTimeoutMs, batch: cfg.monitors.batch },
          }),
        [s, T.MonitorProbes, T.AccountTime, T.Random, T.Clock, T.Config, T.Recorder],
      )
      .inSingletonScope();
    bind(T.PruneMonitorResults)
      .toResolvedValue((st: SqlStore, c) => new PruneMonitorResults(st.monitors, c), [s, T.Clock])
      .inSingletonScope();
  });

const id = <X>(token: ServiceIdentifier<X>) => token;

/** What the routes (and the console) call of this capability. */
export const monitoringUseCases = (c: Container): Pick<UseCases, 'monitors'> => ({
  monitors: {
    create: c.get(T.CreateMonitor),
    update: c.get(T.UpdateMonitor),
    delete: c.get(T.DeleteMonitor),
    list: c.get(T.ListMonitors),
    get: c.get(T.GetMonitor),
    results: c.get(T.ListMonitorResults),
    report: c.get(T.MonitorReport),
  },
});

/** Creating and changing a monitor need the same parts. */
const editing = (st: SqlStore, authorizer: Authorizer<Domain>, cfg: Config, random: Random, clock: Clock, events: Recorder) => ({
  monitors: st.monitors,
  authorizer,
  events,
  rules: monitorRules(cfg),
  uow: st.uow,
  random,
  clock,
});
