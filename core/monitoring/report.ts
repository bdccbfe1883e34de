import type { CheckResult, Incident } from './monitor.js';

export const REPORT_PERIODS = { '24h': 24 * 3600_000, '7d': 7 * 24 * 3600_000, '30d': 30 * 24 * 3600_000 } as const;
export type ReportPeriod = keyof typeof REPORT_PERIODS;

export interface Report {
  period: string;
  from: string;
  to: string;
  checks: number;
  failures: number;
  /** ok checks / all checks × 100, three decimals; null with no checks in the period. */
  uptime_percent: number | null;
  /** Nearest-rank percentiles over the checks that measured a latency. */
  latency_ms: { p50: number | null; p95: number | null };
  incidents: Array<{ id: string; started_at: string; ended_at: string | null; duration_seconds: number; reason: string | null }>;
}

/** Nearest-rank percentile (the smallest value with at least p% of values at or below it). */
export const percentile = (sorted: readonly number[], p: number): number | null => {
  if (sorted.length === 0) return null;
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1]!;
};

/** The figures of a report, computed from the results and incidents of the period. */
export const computeReport = (
  period: string,
  from: Date,
  to: Date,
  results: readonly CheckResult[],
  incidents: readonly Incident[],
): Report => {
  const failures = results.filter((r) => !r.ok).length;
  const latencies = results
    .map((r) => r.latencyMs)
    .filter((l): l is number => l !== null)
    .sort((a, b) => a - b);
  return {
    period,
    from: from.toISOString(),
    to: to.toISOString(),
    checks: results.length,
    failures,
    uptime_percent: results.length === 0 ? null : Math.round(((results.length - failures) / results.length) * 100_000) / 1000,
    latency_ms: { p50: percentile(latencies, 50), p95: percentile(latencies, 95) },
    incidents: incidents.map((i) => ({
      id: i.id,
      started_at: i.startedAt.toISOString(),
      ended_at: i.endedAt ? i.endedAt.toISOString() : null,
      // Time down within the period (an incident may have begun before it or still be open).
      duration_seconds: Math.round(
        (Math.min((i.endedAt ?? to).getTime(), to.getTime()) - Math.max(i.startedAt.getTime(), from.getTime())) / 1000,
      ),
      reason: i.reason,
    })),
  };
};
