import { urlWithoutQuery } from '../kernel/url-parts.js';
import type { CheckResult, Incident, Monitor, MonitorSpec } from './monitor.js';

/** The wire shape of a monitor (snake_case, RFC 3339 instants). */
export interface MonitorView {
  id: string;
  kind: string;
  domain: string;
  environment: string;
  interval_seconds: number;
  enabled: boolean;
  state: string;
  state_changed_at: string | null;
  last_checked_at: string | null;
  next_check_at: string | null;
  last_failure_reason: string | null;
  created_at: string;
  updated_at: string;
  links: { self: string; results: string; report: string };
  [field: string]: unknown;
}

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

export const specFields = (s: MonitorSpec): Record<string, unknown> => {
  switch (s.kind) {
    case 'dns':
      return { name: s.name, type: s.type, expected: s.expected ? [...s.expected] : null, nameservers: [...s.nameservers] };
    case 'http':
      return { url: s.url, expected_status: s.expectedStatus, body_contains: s.bodyContains, max_latency_ms: s.maxLatencyMs };
    case 'tls':
      return { host: s.host, port: s.port, min_days_valid: s.minDaysValid };
    case 'domain_expiry':
      return { min_days_valid: s.minDaysValid };
  }
};

/** The probe's fields as events carry them: an HTTP URL without its query string (a token may sit there). */
export const eventSpecFields = (s: MonitorSpec): Record<string, unknown> =>
  s.kind === 'http' ? { ...specFields(s), url: urlWithoutQuery(s.url) } : specFields(s);

export const viewMonitor = (m: Monitor): MonitorView => ({
  id: m.id,
  kind: m.spec.kind,
  domain: m.domain,
  environment: m.environment,
  ...specFields(m.spec),
  interval_seconds: m.intervalSeconds,
  enabled: m.enabled,
  state: m.state,
  state_changed_at: iso(m.stateChangedAt),
  last_checked_at: iso(m.lastCheckedAt),
  next_check_at: m.enabled ? m.nextCheckAt.toISOString() : null,
  last_failure_reason: m.state === 'failing' ? m.lastReason : null,
  created_at: m.createdAt.toISOString(),
  updated_at: m.updatedAt.toISOString(),
  links: { self: `/v1/monitors/${m.id}`, results: `/v1/monitors/${m.id}/results`, report: `/v1/monitors/${m.id}/report` },
});

export const viewResult = (r: CheckResult) => ({
  id: r.id,
  checked_at: r.checkedAt.toISOString(),
  ok: r.ok,
  latency_ms: r.latencyMs,
  reason: r.reason,
  detail: r.detail,
});

export const viewIncident = (i: Incident) => ({
  id: i.id,
  started_at: i.startedAt.toISOString(),
  ended_at: iso(i.endedAt),
  reason: i.reason,
});
