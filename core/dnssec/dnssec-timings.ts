/**
 * How long each step of a switch-off or a rollover waits (seconds). A step that changes what validators
 * must trust waits until every cache that could hold the old data has let it go: the TTL of that data
 * plus the propagation delay (the time our secondaries take to serve the change). Values come from the
 * configuration (src/config.ts); tests shorten them with DNSSEC_TEST_WAIT_S.
 */
export interface DnssecTimings {
  /** TTL of our DNSKEY set (the nameserver publishes it with 3600). */
  readonly dnskeyTtlS: number;
  /** TTL of the DS at the parent: what the registry publishes, which we cannot read before removing it. */
  readonly dsTtlS: number;
  readonly propagationS: number;
  /** A CSK is replaced by an automatic rollover once it has signed this long (account time). */
  readonly cskLifetimeS: number;
  /** When set (tests only): every wait is this many seconds, whatever the TTLs. */
  readonly testWaitS?: number | null;
}

export const DEFAULT_DNSSEC_TIMINGS: DnssecTimings = {
  dnskeyTtlS: 3600,
  dsTtlS: 86400,
  propagationS: 3600,
  cskLifetimeS: 365 * 86400,
  testWaitS: null,
};

/** The wait after a change whose old data lived `ttlS` in caches. */
export const waitAfter = (t: DnssecTimings, ttlS: number): number => (t.testWaitS != null ? t.testWaitS : ttlS + t.propagationS);
