import type { DnssecState } from './dnssec-state.js';

/**
 * The first DS of `ds` that must not reach the parent now, or null when all may. With the zone unsigned, or
 * going unsigned ("disabling"), any DS at the parent makes validating resolvers answer SERVFAIL (RFC 4035
 * §5.2: a DS with no signed DNSKEY set behind it is bogus). A DS that named one of our keys when it was
 * requested (`own`) must name a live one now, in the DNSKEY set and signing (RFC 6781 §4.1.2, RFC 7583
 * §3.3: the DS follows the key, never precedes or outlives it) — a key switched off and replaced is no
 * longer ours to match, and neither is the key a rollover under way retires. Another operator's DS (a
 * multi-signer move, RFC 8901) is theirs to keep live.
 */
export const staleDs = (
  state: (Pick<DnssecState, 'status' | 'keys'> & Pick<Partial<DnssecState>, 'rollover'>) | null,
  ds: readonly string[],
  own: readonly string[] = ds,
): string | null => {
  if (!state || state.status === 'disabling') return ds[0] ?? null;
  // A key a rollover under way is retiring is leaving, though still active until its last steps: a DS of it
  // reaching the parent now would outlive it (and the rollover, which swaps the DS only when one is there,
  // would not replace it).
  const leaving = state.rollover ? state.keys.find((k) => k.id === state.rollover!.oldKeyId) : undefined;
  const live = new Set(state.keys.filter((k) => k.state === 'active' && k !== leaving).map((k) => k.ds.toUpperCase()));
  const anyKey = new Set(state.keys.map((k) => k.ds.toUpperCase()));
  const ours = new Set(own.map((d) => d.toUpperCase()));
  return ds.find((d) => (ours.has(d.toUpperCase()) || anyKey.has(d.toUpperCase())) && !live.has(d.toUpperCase())) ?? null;
};
