import { token } from './token.js';
import type { CreateMonitor } from '../../core/monitoring/create-monitor.use-case.js';
import type { UpdateMonitor } from '../../core/monitoring/update-monitor.use-case.js';
import type { DeleteMonitor } from '../../core/monitoring/delete-monitor.use-case.js';
import type { GetMonitor, ListMonitors } from '../../core/monitoring/read-monitors.use-case.js';
import type { ListMonitorResults } from '../../core/monitoring/monitor-results.use-case.js';
import type { MonitorReport } from '../../core/monitoring/monitor-report.use-case.js';
import type { RunMonitorChecks } from '../../core/monitoring/run-monitor-checks.use-case.js';
import type { PruneMonitorResults } from '../../core/monitoring/prune-monitor-results.use-case.js';
import type { ProbesFor } from '../../core/monitoring/ports/probes.port.js';

/** Injection tokens of the monitoring capability (src/ binds them by explicit token; core/ has no decorators). */
export const MONITORING_TOKENS = {
  MonitorProbes: token<ProbesFor>('MonitorProbes'),
  CreateMonitor: token<CreateMonitor>('CreateMonitor'),
  UpdateMonitor: token<UpdateMonitor>('UpdateMonitor'),
  DeleteMonitor: token<DeleteMonitor>('DeleteMonitor'),
  ListMonitors: token<ListMonitors>('ListMonitors'),
  GetMonitor: token<GetMonitor>('GetMonitor'),
  ListMonitorResults: token<ListMonitorResults>('ListMonitorResults'),
  MonitorReport: token<MonitorReport>('MonitorReport'),
  RunMonitorChecks: token<RunMonitorChecks>('RunMonitorChecks'),
  PruneMonitorResults: token<PruneMonitorResults>('PruneMonitorResults'),
} as const;
