import { DnsProbeAdapter } from '../adapters/monitoring/dns/index.js';
import { HttpProbeAdapter } from '../adapters/monitoring/http/index.js';
import { ownDnsResolve } from '../adapters/monitoring/resolver/index.js';
import { TlsProbeAdapter } from '../adapters/monitoring/tls/index.js';
import { assertPublicUrl, guardedLookup } from '../adapters/net/ssrf/index.js';
import type { MonitorProbes, ProbeOutcome, ProbesFor } from '../core/monitoring/ports/probes.port.js';
import type { MonitorRules } from '../core/monitoring/monitor-spec.js';
import type { EnvironmentAdapters } from './tokens.js';
import { ownDns, type Config } from './config.js';

/** Interval floors and loopback: 60 s live, 10 s sandbox; loopback only in the sandbox with MONITORS_ALLOW_LOOPBACK=1. */
export const monitorRules = (config: Config): MonitorRules => ({
  minIntervalSeconds: (e) => (e === 'live' ? 60 : 10),
  allowLoopback: (e) => e === 'test' && config.monitors.allowLoopback,
  maxPerAccount: config.monitors.maxPerAccount,
});

/** A backstop a second after the per-check timeout: a probe that never settles still yields a failed result. */
const within =
  <T extends unknown[]>(fn: (...args: T) => Promise<ProbeOutcome>, timeoutOf: (...args: T) => number) =>
  (...args: T): Promise<ProbeOutcome> => {
    const timeoutMs = timeoutOf(...args);
    let timer: NodeJS.Timeout | undefined;
    const overrun = new Promise<ProbeOutcome>((resolve) => {
      timer = setTimeout(
        () => resolve({ ok: false, latencyMs: null, reason: `no answer within ${timeoutMs} ms`, detail: { timeout_ms: timeoutMs } }),
        timeoutMs + 1000,
      );
    });
    return Promise.race([fn(...args), overrun]).finally(() => clearTimeout(timer));
  };

const bounded = (p: MonitorProbes): MonitorProbes => ({
  http: {
    check: within(
      (spec, t: number) => p.http.check(spec, t),
      (_s, t) => t,
    ),
  },
  tls: {
    check: within(
      (spec, now: Date, t: number) => p.tls.check(spec, now, t),
      (_s, _n, t) => t,
    ),
  },
  dns: {
    check: within(
      (spec, t: number) => p.dns.check(spec, t),
      (_s, t) => t,
    ),
  },
});

/**
 * The probes of each environment. Both go through the SSRF guard (adapters/net/ssrf): the URL is
 * checked before the request and every resolved address at connect time. Live targets resolve through
 * the system resolver and must be public; sandbox targets resolve through our own DNS server (sandbox
 * domains exist only there), may be loopback only with MONITORS_ALLOW_LOOPBACK=1, and their TLS chains
 * may end at the sandbox CA's root.
 */
export const monitorProbes = (config: Config, test: EnvironmentAdapters): ProbesFor => {
  const build = (
    environment: 'test' | 'live',
    allowLoopback: boolean,
    viaOwnDns: boolean,
    ca?: () => Promise<readonly string[]>,
  ): MonitorProbes => {
    // Each environment asks the server its zones are on (production: sandbox zones on SANDBOX_DNS_PORT).
    const own = ownDns(config, environment);
    const dns = new DnsProbeAdapter({ own });
    const lookup = guardedLookup({ allowLoopback }, viaOwnDns ? ownDnsResolve(own) : undefined);
    const assertUrl = (url: string) => assertPublicUrl(url, { allowLoopback, requireHttps: false });
    return {
      http: new HttpProbeAdapter({ lookup: lookup as never, assertUrl, ...(ca ? { ca } : {}) }),
      tls: new TlsProbeAdapter({ lookup: lookup as never, ...(ca ? { ca } : {}) }),
      dns,
    };
  };
  const sandboxRoot = async (): Promise<readonly string[]> => {
    const root = await test.ca.rootPem();
    return root ? [root] : [];
  };
  const probes = {
    live: bounded(build('live', false, false)),
    test: bounded(build('test', config.monitors.allowLoopback, true, sandboxRoot)),
  };
  return (environment) => probes[environment];
};
