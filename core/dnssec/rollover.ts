import type { DnssecKey, DnssecKeyState, DnssecState, Rollover, RolloverEntry, RolloverStep } from './dnssec-state.js';
import { waitAfter, type DnssecTimings } from './dnssec-timings.js';

/**
 * Rollovers as a schedule of pure steps (RFC 6781 §4.1; RFC 7583 for the timing terms). Each step says
 * which keys are published and which sign; the wait before the next one is the TTL of what the step
 * replaced, plus the propagation delay, so that no cache can hold data the new state no longer vouches for.
 *
 * CSK (one key for everything, so the DNSKEY set must always be signed by a key the parent's DS names):
 *   prepublish    new key in the DNSKEY set only                      wait DNSKEY TTL
 *   double_sign   both keys sign everything; CDS/CDNSKEY name both    wait DNSKEY TTL
 *   ds_replaced   the registry swaps the DS (a system step)           wait DS TTL
 *   old_unsigned  the old key stops signing, stays published          wait the zone's largest TTL
 *   done          the old key leaves the DNSKEY set
 * Algorithm (§4.1.4: every RRset carries both algorithms' signatures before the new DNSKEY is relied on):
 *   new_signatures    the new key signs, not yet published             wait the zone's largest TTL
 *   new_dnskey        the new DNSKEY published; CDS names both         wait DNSKEY TTL
 *   ds_replaced       the registry swaps the DS                        wait DS TTL
 *   old_dnskey_removed the old DNSKEY leaves; its signatures stay      wait DNSKEY TTL
 *   done              the old signatures go
 */
const PLAN: Readonly<Record<Rollover['kind'], readonly RolloverStep[]>> = {
  csk: ['prepublish', 'double_sign', 'ds_replaced', 'old_unsigned', 'done'],
  algorithm: ['new_signatures', 'new_dnskey', 'ds_replaced', 'old_dnskey_removed', 'done'],
};

/** Each rollover kind's steps in order (what a reader shows as the rollover's timeline). */
export const ROLLOVER_STEPS: Readonly<Record<Rollover['kind'], readonly RolloverStep[]>> = PLAN;

/** The keys' states at each step: [old, new]. */
const KEYS: Readonly<Record<RolloverStep, readonly [DnssecKeyState, DnssecKeyState]>> = {
  prepublish: ['active', 'published'],
  double_sign: ['active', 'active'],
  new_signatures: ['active', 'signing'],
  new_dnskey: ['active', 'active'],
  ds_replaced: ['active', 'active'],
  old_unsigned: ['published', 'active'],
  old_dnskey_removed: ['signing', 'active'],
  done: ['retired', 'active'],
};

/** How long the step waits before the next one: the TTL of what it changed. */
const waitOf = (step: RolloverStep, t: DnssecTimings, zoneTtlS: number): number => {
  switch (step) {
    case 'prepublish':
    case 'double_sign':
    case 'new_dnskey':
    case 'old_dnskey_removed':
      return waitAfter(t, t.dnskeyTtlS);
    case 'ds_replaced':
      return waitAfter(t, t.dsTtlS);
    case 'new_signatures':
    case 'old_unsigned':
      return waitAfter(t, zoneTtlS);
    case 'done':
      return 0;
  }
};

const withKeys = (keys: readonly DnssecKey[], r: Pick<Rollover, 'oldKeyId' | 'newKeyId'>, step: RolloverStep, now: Date): DnssecKey[] => {
  const [oldState, newState] = KEYS[step];
  return keys.map((k) => {
    const to = k.id === r.oldKeyId ? oldState : k.id === r.newKeyId ? newState : k.state;
    if (to === k.state) return k;
    return {
      ...k,
      state: to,
      ...(to === 'published' && k.state === 'retired' ? { publishedAt: now } : {}),
      ...((to === 'published' || to === 'active') && !k.publishedAt ? { publishedAt: now } : {}),
      ...((to === 'active' || to === 'signing') && !k.activeAt ? { activeAt: now } : {}),
      ...(to === 'retired' ? { retiredAt: now } : {}),
    };
  });
};

/** Starts a rollover to `newKey` (generated, state ignored): its first step at once. */
export const startRollover = (
  state: DnssecState,
  newKey: DnssecKey,
  kind: Rollover['kind'],
  now: Date,
  timings: DnssecTimings,
  zoneTtlS: number,
): DnssecState => {
  const old = state.keys.find((k) => k.state === 'active');
  if (!old) throw new TypeError(`dnssec: ${state.domain} has no active key to roll`);
  const first = PLAN[kind][0]!;
  const ids = { oldKeyId: old.id, newKeyId: newKey.id };
  const rollover: Rollover = {
    kind,
    step: first,
    nextAt: new Date(now.getTime() + waitOf(first, timings, zoneTtlS) * 1000),
    startedAt: now,
    ...ids,
    oldKeyTag: old.tag,
    newKeyTag: newKey.tag,
    history: [
      { step: 'started', at: now },
      { step: first, at: now },
    ],
  };
  const keys = withKeys([...state.keys.filter((k) => k.state !== 'retired'), { ...newKey, state: 'retired' }], ids, first, now);
  return { ...state, status: 'rolling', keys, rollover };
};

/** The step after the current one (null when the rollover is finished). */
export const nextStepOf = (r: Rollover): RolloverStep | null => {
  const plan = PLAN[r.kind];
  const i = plan.indexOf(r.step);
  return i >= 0 && i + 1 < plan.length ? plan[i + 1]! : null;
};

/** Moves the rollover one step on. `done` drops the old key, sets the new algorithm and ends the rollover. */
export const advanceRollover = (state: DnssecState, now: Date, timings: DnssecTimings, zoneTtlS: number, note?: string): DnssecState => {
  const r = state.rollover;
  if (!r) return state;
  const step = nextStepOf(r);
  if (!step) return state;
  const keys = withKeys(state.keys, r, step, now);
  const entry: RolloverEntry = { step, at: now, ...(note ? { note } : {}) };
  if (step === 'done') {
    const current = keys.find((k) => k.id === r.newKeyId)!;
    return {
      ...state,
      algorithm: current.algorithm,
      status: state.dsAtParent ? 'secure' : 'signed',
      // The retired key leaves the state: its sealed private key has no use left.
      keys: keys.filter((k) => k.state !== 'retired'),
      rollover: null,
      nextRolloverAt: new Date(now.getTime() + timings.cskLifetimeS * 1000),
      lastRollover: { ...r, step, nextAt: now, history: [...r.history, entry] },
    };
  }
  return {
    ...state,
    keys,
    rollover: { ...r, step, nextAt: new Date(now.getTime() + waitOf(step, timings, zoneTtlS) * 1000), history: [...r.history, entry] },
  };
};

/** A step that could not happen now (the registry refused the DS): the rollover stays where it is and tries again later. */
export const holdRollover = (state: DnssecState, now: Date, retryS: number, entry: Omit<RolloverEntry, 'at'>): DnssecState => {
  const r = state.rollover;
  if (!r) return state;
  return { ...state, rollover: { ...r, nextAt: new Date(now.getTime() + retryS * 1000), history: [...r.history, { ...entry, at: now }] } };
};
