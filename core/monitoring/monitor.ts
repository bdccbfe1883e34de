import type { Environment } from '../kernel/environment.js';

/**
 * A monitor: one check of one of the account's domains, run by the worker every
 * `intervalSeconds`. Its state moves pending → ok | failing; each move between ok and failing opens or
 * closes an incident and appends monitor.check_failed / monitor.check_recovered.
 */
export const MONITOR_KINDS = ['dns', 'http', 'tls', 'domain_expiry'] as const;
export type MonitorKind = (typeof MONITOR_KINDS)[number];

/** Record types a dns monitor may ask for (what node:dns's Resolver answers). */
export const DNS_MONITOR_TYPES = ['A', 'AAAA', 'CNAME', 'MX', 'NS', 'TXT', 'CAA', 'SRV', 'SOA'] as const;
export type DnsMonitorType = (typeof DNS_MONITOR_TYPES)[number];

export interface DnsSpec {
  readonly kind: 'dns';
  /** Fully qualified, lower case, no trailing dot: the domain or a name under it. */
  readonly name: string;
  readonly type: DnsMonitorType;
  /** When set, the answer must hold exactly these values (order and case do not matter). */
  readonly expected: readonly string[] | null;
  /** Asked besides our own server: "ip" or "ip:port" / "[ipv6]:port". */
  readonly nameservers: readonly string[];
}

export interface HttpSpec {
  readonly kind: 'http';
  readonly url: string;
  readonly expectedStatus: number;
  readonly bodyContains: string | null;
  /** Slower than this (ms) counts as a failure; null: only the check timeout applies. */
  readonly maxLatencyMs: number | null;
}

export interface TlsSpec {
  readonly kind: 'tls';
  readonly host: string;
  readonly port: number;
  /** Fails when the certificate expires within this many days. */
  readonly minDaysValid: number;
}

export interface DomainExpirySpec {
  readonly kind: 'domain_expiry';
  /** Fails when the domain expires within this many days. */
  readonly minDaysValid: number;
}

export type MonitorSpec = DnsSpec | HttpSpec | TlsSpec | DomainExpirySpec;
export type MonitorState = 'pending' | 'ok' | 'failing';

export interface Monitor {
  readonly id: string;
  readonly accountId: string;
  readonly environment: Environment;
  readonly domain: string;
  readonly spec: MonitorSpec;
  readonly intervalSeconds: number;
  readonly enabled: boolean;
  readonly state: MonitorState;
  readonly stateChangedAt: Date | null;
  readonly lastReason: string | null;
  readonly lastCheckedAt: Date | null;
  readonly nextCheckAt: Date;
  readonly openIncidentId: string | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/** One run of a check. */
export interface CheckResult {
  readonly id: string;
  readonly monitorId: string;
  readonly checkedAt: Date;
  readonly ok: boolean;
  readonly latencyMs: number | null;
  /** Why it failed (plain English from the probe), null when ok. */
  readonly reason: string | null;
  readonly detail: Readonly<Record<string, unknown>>;
}

/** From a check that turned the monitor failing to the one that turned it ok again. */
export interface Incident {
  readonly id: string;
  readonly monitorId: string;
  readonly startedAt: Date;
  readonly endedAt: Date | null;
  readonly reason: string | null;
}
