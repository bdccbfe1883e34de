import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { ApiKey } from '../../core/kernel/caller.js';
import type { IdempotencyRecord, ResumableRequest } from '../../core/kernel/idempotency-store.port.js';
import type { SecretBox } from '../../core/kernel/secret-box.port.js';
import { openedRequest, replayableOf } from './middleware/sealed-fields.js';
import { LOCK_TIMEOUT_MS, runClaimed, type IdempotencyDeps } from './middleware/idempotency.js';
import type { Route } from './route.js';

/**
 * The completer (after Stripe's "atomic phases"): finishes phased requests whose client went away.
 *
 * A phased write (registration, renewal, top-up, plan apply …) commits phase by phase and, after an
 * unknown outcome (a crash, a registry timeout), waits for the client to retry with the same
 * Idempotency-Key. A client that never does left what the request had committed, such as a pending
 * charge, held for good. The worker runs this pass: a request still unfinished `abandonedAfterMs` after
 * it began, and not held by a live process, is taken over and run again from its last recovery point,
 * exactly as a retry would run it, through the same route and with the same key. Its outcome is stored,
 * so a late retry gets it replayed. One that fails again (the peer still down) is tried again later, with
 * a growing delay, so it never holds up the others. The registry and the card processor see the same client
 * transaction id or idempotency key again: whatever they did the first time is not done twice.
 *
 * The request was authorised when it was made; it is finished even if its key was revoked since, because
 * the registry or the card may already have acted on it. Owners are told, as for any other result.
 */
export interface CompleterDeps extends IdempotencyDeps {
  readonly keys: { findById(id: string): Promise<ApiKey | null> };
  /** Opens the request's sealed secret fields (the data key's box): only here are they read back. */
  readonly secretBox: SecretBox;
  readonly logger: Logger;
}

export interface CompleterReport {
  /** Finished with a stored outcome (success or a business error). */
  readonly completed: number;
  /** Tried and failed again unexpectedly (the peer still down): left for the next pass. */
  readonly failed: number;
  /** Not resumable here (unknown route, key gone) or taken by another process first. */
  readonly skipped: number;
}

/** Backoff of a request the completer could not finish: 1, 2, 4 … minutes, at most 6 hours. */
export const retryDelayMs = (attempts: number): number => Math.min(2 ** Math.min(attempts, 20), 360) * 60_000;

export const completeAbandoned = async (
  deps: CompleterDeps,
  routes: readonly Route[],
  opts: { readonly abandonedAfterMs: number; readonly limit?: number },
): Promise<CompleterReport> => {
  const start = deps.clock.now();
  const lockMs = deps.lockTimeoutMs ?? LOCK_TIMEOUT_MS;
  const records = await deps.store.abandoned({
    createdBefore: new Date(start.getTime() - opts.abandonedAfterMs),
    lockedBefore: new Date(start.getTime() - lockMs),
    now: start,
    limit: opts.limit ?? 50,
  });
  let completed = 0;
  let failed = 0;
  let skipped = 0;
  for (const rec of records) {
    const outcome = await completeOne(deps, routes, rec);
    if (outcome === 'completed') completed++;
    else if (outcome === 'failed') failed++;
    else skipped++;
  }
  return { completed, failed, skipped };
};

const completeOne = async (
  deps: CompleterDeps,
  routes: readonly Route[],
  listed: IdempotencyRecord,
): Promise<'completed' | 'failed' | 'skipped'> => {
  const stored = listed.request!;
  const where = { scope: listed.scope, idempotency_key: listed.key, route: stored.route, attempts: listed.attempts };
  const postpone = () =>
    deps.store.postpone(listed.scope, listed.key, new Date(deps.clock.now().getTime() + retryDelayMs(listed.attempts)));
  const route = routes.find((r) => r.id === stored.route && r.phased === true);
  const key = route ? await deps.keys.findById(stored.keyId) : null;
  // Its secret fields were sealed (sealed-fields.ts) and are opened only now, to run it; one a migration
  // took out of the clear (`withheld`) is gone, and only its client's retry, which sends it again, can finish it.
  let req: ResumableRequest | null = null;
  let why = '';
  if (!route) why = 'no such phased route';
  else if (!key || listed.scope !== `key:${key.id}`) why = 'its key is gone';
  else if (stored.withheld && stored.withheld.length > 0) why = 'its secret fields were withheld';
  else {
    try {
      req = openedRequest(deps.secretBox, stored);
    } catch {
      why = 'its sealed fields cannot be opened';
    }
  }
  if (!route || !key || !req) {
    deps.logger.warn(where, `abandoned request not resumable: ${why}`);
    await postpone();
    return 'skipped';
  }
  const token = randomUUID();
  // The clock is read per record: a pass that spent minutes on a slow peer must not stamp a lock that
  // already looks dead. Of several workers (or a retry arriving now), exactly one takes the record over,
  // and it resumes from the record as it is after the takeover, not as it was listed.
  const rec = await deps.store.takeOver(listed.scope, listed.key, listed.lockedAt, deps.clock.now(), token);
  if (!rec) return 'skipped';
  try {
    const reply = await runClaimed(
      deps,
      rec.scope,
      rec.key,
      token,
      rec,
      (checkpoints) =>
        route.handle({
          params: { ...req.params },
          query: { ...req.query },
          body: req.body,
          ip: req.ip,
          key,
          ...(checkpoints ? { checkpoints } : {}),
        }),
      replayableOf(route, req.body),
      true,
    );
    deps.logger.info({ ...where, recovery_point: rec.recoveryPoint, status: reply.status }, 'finished an abandoned request');
    return 'completed';
  } catch (err) {
    deps.logger.warn({ ...where, recovery_point: rec.recoveryPoint, err }, 'abandoned request failed again; retried later');
    await postpone();
    return 'failed';
  }
};
