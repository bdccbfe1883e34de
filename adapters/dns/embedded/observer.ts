/**
 * What the embedded server tells an observer (metrics) as it serves: called on the hot path, so an
 * implementation only counts (no allocation, no I/O). `answered` gets the reply as sent (its header
 * carries the opcode and rcode) and whether it came from the answer cache.
 */
export interface DnsObserver {
  answered(reply: Uint8Array, offset: number, transport: 'udp' | 'tcp', cached: boolean): void;
  /** A zone transfer served: AXFR, or IXFR (incremental or AXFR-style). */
  transferred(type: 'AXFR' | 'IXFR'): void;
  /** NOTIFY sent to the secondaries for one zone change. */
  notified(): void;
}
