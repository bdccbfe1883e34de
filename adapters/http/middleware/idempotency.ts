import { createHash, createHmac, randomUUID } from 'node:crypto';
import type { Clock } from '../../../core/kernel/clock.port.js';
import { DomainError, isDomainError } from '../../../core/kernel/errors.js';
import {
  ClaimLostError,
  IDEMPOTENCY_RETENTION_MS,
  type IdempotencyRecord,
  type IdempotencyStore,
  type ResumableRequest,
  type StoredResponse,
} from '../../../core/kernel/idempotency-store.port.js';
import type { UnitOfWork } from '../../../core/kernel/unit-of-work.port.js';
import { storedCheckpoints, type Checkpoints } from '../../../core/kernel/checkpoints.port.js';
import { ERROR_TABLE, errorBody } from '../error-table.js';
import type { Reply } from '../route.js';
import { canonicalJson } from './canonical-json.js';

/**
 * Seed 4 and DESIGN "Idempotency-Key": required on keyed writes; the fingerprint is method + path +
 * canonical JSON body; same key and request → the stored response again with Idempotent-Replayed;
 * other request → 422; still running → 409; kept 24 h; scoped per key.
 *
 * The record is claimed first (committed, so a concurrent duplicate sees it in flight). The handler
 * then runs inside one transaction that also writes the response, so the effects and the stored
 * response commit together: a crash in between leaves neither. A business error rolls the effects
 * back and is stored on its own; an unexpected error releases the claim so the client can retry.
 * A claim whose process died is taken over after the lock timeout (IDEMPOTENCY_LOCK_SECONDS, 60 s by
 * default); until then a retry gets 409 idempotency_key_in_use with Retry-After saying when.
 */
export const LOCK_TIMEOUT_MS = 60_000;
const KEY_RE = /^[\x21-\x7e]{1,255}$/;

export interface IdempotencyDeps {
  readonly store: IdempotencyStore;
  readonly uow: UnitOfWork;
  readonly clock: Clock;
  /** How long a claim stays locked to its request before a retry may take it over. */
  readonly lockTimeoutMs?: number;
}

/**
 * A request's fingerprint: method, path and canonical body, as an HMAC-SHA-256 under `key` (derived from
 * KEY_PEPPER: fingerprintKeyOf). The body may hold a secret (a transfer's auth code, a password and a code
 * on a session write): a plain hash of it, stored 24 hours, could be guessed offline for a short secret.
 * Without a key (tests of the middleware alone): the plain SHA-256 that was kept before keys, which
 * `sameRequest` still accepts for records stored then.
 */
export const fingerprintOf = (method: string, path: string, body: unknown, key?: Buffer): string => {
  const text = `${method} ${path}\n${canonicalJson(body)}`;
  return (key ? createHmac('sha256', key) : createHash('sha256')).update(text).digest('hex');
};

/** The fingerprint key: a purpose of its own under KEY_PEPPER (the pepper itself keys the API keys' hashes). */
export const fingerprintKeyOf = (pepper: Buffer): Buffer => createHmac('sha256', pepper).update('domivka/idempotency-fingerprint').digest();

/**
 * Whether a stored fingerprint is this request's: keyed, or the plain hash of a record stored before the
 * fingerprints were keyed (within the 24 hours a record lives), so a retry across that upgrade is still the same.
 */
export const sameRequest = (stored: string, fingerprint: { readonly keyed: string; readonly plain: string }): boolean =>
  stored === fingerprint.keyed || stored === fingerprint.plain;

/** Which outcomes are kept (DESIGN): successes and business errors (e.g. domain_taken) are; 401, 403,
 * 409 in flight, 422 schema violations, 429 and server faults are not, so the client may retry. */
// operation_in_progress is "busy, retry": a request resumed after a crash may find the domain's lease
// still held by the dead process; stored, it would strand the charge it had reserved. zone_busy likewise:
// other writes of the zone won every attempt, and the same key must be able to try again.
const NOT_STORED = new Set<string>([
  'validation_failed',
  'idempotency_key_in_use',
  'idempotency_key_reused',
  'rate_limited',
  'operation_in_progress',
  'zone_busy',
]);
const storable = (code: keyof typeof ERROR_TABLE): boolean => {
  const status = ERROR_TABLE[code].status;
  return !(status === 401 || status === 403 || status === 429 || status >= 500 || NOT_STORED.has(code));
};

const toStored = (r: Reply): StoredResponse => ({
  status: r.status,
  body: r.body ?? null,
  headers: { ...(r.headers ?? {}) },
});

export const parseIdempotencyKey = (value: string | undefined, required: boolean): string | null => {
  if (value === undefined || value === '') {
    if (required) throw new DomainError('idempotency_key_required');
    return null;
  }
  if (!KEY_RE.test(value)) throw new DomainError('idempotency_key_invalid');
  return value;
};

export const runIdempotent = async (
  deps: IdempotencyDeps,
  scope: string,
  key: string,
  /** This request's fingerprint; with `plain`, a record stored before fingerprints were keyed matches too. */
  fingerprint: string | { readonly keyed: string; readonly plain: string },
  run: (checkpoints: Checkpoints | null) => Promise<Reply>,
  replayable: (reply: Reply) => Reply = (r) => r,
  phased = false,
  /** What a phased request asked for, kept so the completer can finish it if its client never returns. */
  request?: ResumableRequest,
): Promise<Reply & { replayed?: boolean }> => {
  const now = deps.clock.now();
  const token = randomUUID();
  const fp = typeof fingerprint === 'string' ? { keyed: fingerprint, plain: fingerprint } : fingerprint;
  const claimIt = () => deps.store.claim(scope, key, fp.keyed, now, token, phased ? request : undefined);
  let claim: { outcome: 'claimed' | 'existing'; record: IdempotencyRecord } = await claimIt();
  if (claim.outcome === 'existing' && now.getTime() - claim.record.createdAt.getTime() > IDEMPOTENCY_RETENTION_MS) {
    // Past retention the key is forgotten: reuse it as new.
    await deps.store.purge(new Date(now.getTime() - IDEMPOTENCY_RETENTION_MS));
    claim = await claimIt();
  }
  if (claim.outcome === 'existing') {
    const rec: IdempotencyRecord = claim.record;
    if (!sameRequest(rec.fingerprint, fp)) throw new DomainError('idempotency_key_reused');
    if (rec.response) {
      return { status: rec.response.status, body: rec.response.body, headers: { ...rec.response.headers }, replayed: true };
    }
    const lockMs = deps.lockTimeoutMs ?? LOCK_TIMEOUT_MS;
    const heldFor = rec.lockedAt === null ? Infinity : now.getTime() - rec.lockedAt.getTime();
    const taken = heldFor <= lockMs ? null : await deps.store.takeOver(scope, key, rec.lockedAt, now, token);
    if (!taken) {
      throw new DomainError('idempotency_key_in_use', { retry_after: Math.max(1, Math.ceil((lockMs - Math.min(heldFor, lockMs)) / 1000)) });
    }
    claim = { outcome: 'claimed', record: taken }; // resume from the record as it is now
  }
  return runClaimed(deps, scope, key, token, claim.record, run, replayable, phased);
};

/**
 * Runs a request whose record `token` holds, and stores its outcome: the reply, or a business error that
 * is kept. Phased, each phase commits with its recovery point and an unexpected error leaves the record
 * unlocked to be resumed (by a retry or the completer); otherwise one transaction, and the claim released.
 */
export const runClaimed = async (
  deps: IdempotencyDeps,
  scope: string,
  key: string,
  token: string,
  record: IdempotencyRecord,
  run: (checkpoints: Checkpoints | null) => Promise<Reply>,
  replayable: (reply: Reply) => Reply,
  phased: boolean,
): Promise<Reply> => {
  try {
    if (phased) {
      // The use case commits phase by phase; each phase records its recovery point in its transaction.
      const checkpoints = storedCheckpoints(record, deps.uow, (point, data) => deps.store.setRecoveryPoint(scope, key, token, point, data));
      const reply = await run(checkpoints);
      await deps.store.complete(scope, key, token, toStored(replayable(reply)));
      return reply;
    }
    return await deps.uow.transaction(async () => {
      const reply = await run(null);
      await deps.store.complete(scope, key, token, toStored(replayable(reply)));
      return reply;
    });
  } catch (err) {
    // Taken over by a retry meanwhile: this attempt's last writes were rolled back; the retry answers.
    if (err instanceof ClaimLostError) throw new DomainError('idempotency_key_in_use');
    if (isDomainError(err) && storable(err.code)) {
      const reply: Reply = { status: ERROR_TABLE[err.code].status, body: errorBody(err.code, err.params, err.details) };
      try {
        await deps.store.complete(scope, key, token, toStored(reply));
      } catch (e) {
        if (e instanceof ClaimLostError) throw new DomainError('idempotency_key_in_use');
        throw e;
      }
      return reply;
    }
    // Phased: earlier phases may have committed, so the record (and its recovery point) stays for a
    // retry to resume; otherwise nothing happened and the key is forgotten.
    if (phased) await deps.store.unlock(scope, key, token);
    else await deps.store.release(scope, key, token);
    throw err;
  }
};
