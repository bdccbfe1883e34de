import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { ApiKey } from '../../core/access/key.js';
import type { IdempotencyRecord } from '../../core/idempotency/ports/idempotency-store.port.js';
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
 * so a late retry gets it replayed. The registry and the card processor see the same client
 * transaction id or idempotency key again: whatever they did the first time is not done twice.
 *
 * The request was authorised when it was made; it is finished even if its key was revoked since, because
 * the registry or the card may already have acted on it. Owners are told, as for any other result.
 */
export interface CompleterDeps extends IdempotencyDeps {
  readonly keys: { findById(id: string): Promise<ApiKey | null> };
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

export const completeAbandoned = async (
  deps: CompleterDeps,
  routes: readonly Route[],
  opts: { readonly abandonedAfterMs: number; readonly limit?: number },
): Promise<CompleterReport> => {
  const now = deps.clock.now();
  const lockMs = deps.lockTimeoutMs ?? LOCK_TIMEOUT_MS;
  const records = await deps.store.abandoned(new Date(now.getTime() - opts.abandonedAfterMs), new Date(now.getTime() - lockMs), opts.limit ?? 50);
  let completed = 0;
  let failed = 0;
  let skipped = 0;
  for (const rec of records) {
    const outcome = await completeOne(deps, routes, rec, now);
    if (outcome === 'completed') completed++;
    else if (outcome === 'failed') failed++;
    else skipped++;
  }
  return { completed, failed, skipped };
};

const completeOne = async (deps: CompleterDeps, routes: readonly Route[], rec: IdempotencyRecord, now: Date): Promise<'completed' | 'failed' | 'skipped'> => {
  const req = rec.request!;
  const where = { scope: rec.scope, idempotency_key: rec.key, route: req.route, recovery_point: rec.recoveryPoint };
  const route = routes.find((r) => r.id === req.route && r.phased === true);
  const key = route ? await deps.keys.findById(req.keyId) : null;
  if (!route || !key || rec.scope !== `key:${key.id}`) {
    deps.logger.warn(where, route ? 'abandoned request not resumable: its key is gone' : 'abandoned request not resumable: no such phased route');
    return 'skipped';
  }
  const token = randomUUID();
  // Of several workers (or a retry arriving now), exactly one takes the record over.
  if (!(await deps.store.takeOver(rec.scope, rec.key, rec.lockedAt, now, token))) return 'skipped';
  try {
    const reply = await runClaimed(
      deps, rec.scope, rec.key, token, rec,
      (checkpoints) => route.handle({ params: { ...req.params }, query: { ...req.query }, body: req.body, ip: req.ip, key, ...(checkpoints ? { checkpoints } : {}) }),
      route.replayable ?? ((r) => r), true,
    );
    deps.logger.info({ ...where, status: reply.status }, 'finished an abandoned request');
    return 'completed';
  } catch (err) {
    deps.logger.warn({ ...where, err }, 'abandoned request failed again; the next pass retries it');
    return 'failed';
  }
};
