import type { DnssecState } from './dnssec-state.js';

/**
 * The first DS of `ds` that must not reach the parent now, or null when all may. With the zone unsigned, or
 * going unsigned ("disabling"), any DS at the parent makes validating resolvers answer SERVFAIL (RFC 4035
 * §5.2: a DS with no signed DNSKEY set behind it is bogus). A DS that named one of our keys when it was
 * requested (`own`) must name a live one now, in the DNSKEY set and signing (RFC 6781 §4.1.2, RFC 7583
 * §3.3: the DS follows the key, never precedes or outlives it) — a key switched off and replaced is no
 * longer ours to match. Another operator's DS (a multi-signer move, RFC 8901) is theirs to keep live.
 */
export const staleDs = (
  state: Pick<DnssecState, 'status' | 'keys'> | null,
  ds: readonly string[],
  own: readonly string[] = ds,
): string | null => {
  if (!state || state.status === 'disabling') return ds[0] ?? null;
  const live = new Set(state.keys.filter((k) => k.state === 'active').map((k) => k.ds.toUpperCase()));
  const anyKey = new Set(state.keys.map((k) => k.ds.toUpperCase()));
  const ours = new Set(own.map((d) => d.toUpperCase()));
  return ds.find((d) => (ours.has(d.toUpperCase()) || anyKey.has(d.toUpperCase())) && !live.has(d.toUpperCase())) ?? null;
};
