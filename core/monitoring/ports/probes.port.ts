import type { Environment } from '../../kernel/environment.js';
import type { DnsSpec, HttpSpec, TlsSpec } from '../monitor.js';

/** What one probe run found. `reason` says why it failed (null when ok). */
export interface ProbeOutcome {
  readonly ok: boolean;
  readonly latencyMs: number | null;
  readonly reason: string | null;
  readonly detail: Readonly<Record<string, unknown>>;
}

/** Each probe honours `timeoutMs` itself; the runner also abandons a probe that overruns it. */
export interface HttpProbe {
  check(spec: HttpSpec, timeoutMs: number): Promise<ProbeOutcome>;
}

export interface TlsProbe {
  /** `now`: the instant expiry is measured from (the account's time in the sandbox). */
  check(spec: TlsSpec, now: Date, timeoutMs: number): Promise<ProbeOutcome>;
}

export interface DnsProbe {
  /** Asks our own authoritative server and every listed nameserver; all must answer as expected. */
  check(spec: DnsSpec, timeoutMs: number): Promise<ProbeOutcome>;
}

/** The probes of one environment (live ones refuse private targets at connect time). */
export interface MonitorProbes {
  readonly http: HttpProbe;
  readonly tls: TlsProbe;
  readonly dns: DnsProbe;
}

export type ProbesFor = (environment: Environment) => MonitorProbes;
