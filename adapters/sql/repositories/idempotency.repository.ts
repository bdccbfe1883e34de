import { randomUUID } from 'node:crypto';
import {
  ClaimLostError,
  SETTLED_POINTS,
  type ClaimResult,
  type ResumableRequest,
  type IdempotencyRecord,
  type IdempotencyStore,
  type StoredResponse,
} from '../../../core/kernel/idempotency-store.port.js';
import { date, dateOrNull, iso, json, parse } from '../rows.js';
import { storedCheckpoints, type DurableCheckpoints, type DurableRun } from '../../../core/kernel/checkpoints.port.js';
import type { Clock } from '../../../core/kernel/clock.port.js';
import type { KnexUnitOfWork } from '../unit-of-work.js';

type Row = {
  scope: string;
  key: string;
  fingerprint: string;
  locked_at: string | null;
  recovery_point: string;
  recovery_data: string | null;
  response_status: number | null;
  response_body: string | null;
  response_headers: string | null;
  created_at: string;
  request: string | null;
  attempts: number | null;
  next_attempt_at: string | null;
};

const toRecord = (r: Row): IdempotencyRecord => ({
  scope: r.scope,
  key: r.key,
  fingerprint: r.fingerprint,
  lockedAt: dateOrNull(r.locked_at),
  recoveryPoint: r.recovery_point,
  recoveryData: r.recovery_data ? parse(r.recovery_data) : null,
  response:
    r.response_status === null
      ? null
      : {
          status: Number(r.response_status),
          body: r.response_body === null ? null : parse(r.response_body),
          headers: parse(r.response_headers ?? '{}'),
        },
  createdAt: date(r.created_at),
  request: r.request ? (parse(r.request) as ResumableRequest) : null,
  attempts: Number(r.attempts ?? 0),
});

export class SqlIdempotencyStore implements IdempotencyStore {
  constructor(private readonly uow: KnexUnitOfWork) {}

  async claim(scope: string, key: string, fingerprint: string, at: Date, token: string, request?: ResumableRequest): Promise<ClaimResult> {
    const db = this.uow.db();
    // INSERT … ON CONFLICT DO NOTHING is atomic on both engines: of two concurrent duplicates exactly
    // one inserts; the other reads the winner's row.
    const inserted = await db('idempotency_keys')
      .insert({
        scope,
        key,
        fingerprint,
        locked_at: iso(at),
        lock_token: token,
        recovery_point: 'started',
        created_at: iso(at),
        request: request ? json(request) : null,
      })
      .onConflict(['scope', 'key'])
      .ignore()
      .returning('key');
    const row: Row = await db('idempotency_keys').where({ scope, key }).first();
    return { outcome: inserted.length > 0 ? 'claimed' : 'existing', record: toRecord(row) };
  }

  async takeOver(scope: string, key: string, previousLockedAt: Date | null, at: Date, token: string): Promise<IdempotencyRecord | null> {
    const q = this.uow.db()('idempotency_keys').where({ scope, key }).whereNull('response_status');
    if (previousLockedAt === null) q.whereNull('locked_at');
    else q.andWhere({ locked_at: iso(previousLockedAt) });
    if ((await q.update({ locked_at: iso(at), lock_token: token })) === 0) return null;
    // Read after the takeover: whatever the previous holder committed before it is in this row, and
    // nothing it commits after can land (every write needs the token this takeover replaced).
    const row: Row | undefined = await this.uow.db()('idempotency_keys').where({ scope, key, lock_token: token }).first();
    return row ? toRecord(row) : null;
  }

  private async held(scope: string, key: string, token: string, update: Record<string, unknown>): Promise<void> {
    const n = await this.uow.db()('idempotency_keys').where({ scope, key, lock_token: token }).whereNull('response_status').update(update);
    if (n === 0) throw new ClaimLostError();
  }

  async setRecoveryPoint(scope: string, key: string, token: string, point: string, data: Readonly<Record<string, unknown>>): Promise<void> {
    await this.held(scope, key, token, { recovery_point: point, recovery_data: json(data) });
  }

  async complete(scope: string, key: string, token: string, response: StoredResponse): Promise<void> {
    await this.held(scope, key, token, {
      locked_at: null,
      lock_token: null,
      recovery_point: 'finished',
      response_status: response.status,
      response_body: response.body === undefined ? null : json(response.body),
      response_headers: json(response.headers),
      // Finished: the request kept for the completer is no longer needed, and may hold a (sealed) secret.
      request: null,
    });
  }

  async unlock(scope: string, key: string, token: string): Promise<void> {
    await this.uow
      .db()('idempotency_keys')
      .where({ scope, key, lock_token: token })
      .whereNull('response_status')
      .update({ locked_at: null, lock_token: null });
  }

  async release(scope: string, key: string, token: string): Promise<void> {
    await this.uow.db()('idempotency_keys').where({ scope, key, lock_token: token }).whereNull('response_status').delete();
  }

  async purge(createdBefore: Date): Promise<number> {
    return this.uow
      .db()('idempotency_keys')
      .where('created_at', '<', iso(createdBefore))
      .andWhere((q) => q.whereNotNull('response_status').orWhereIn('recovery_point', SETTLED_POINTS))
      .delete();
  }

  async abandoned(q: {
    readonly createdBefore: Date;
    readonly lockedBefore: Date;
    readonly now: Date;
    readonly limit: number;
  }): Promise<IdempotencyRecord[]> {
    const rows: Row[] = await this.uow
      .db()('idempotency_keys')
      .whereNull('response_status')
      .whereNotNull('request')
      .whereNotIn('recovery_point', SETTLED_POINTS)
      .andWhere('created_at', '<', iso(q.createdBefore))
      .andWhere((w) => w.whereNull('locked_at').orWhere('locked_at', '<', iso(q.lockedBefore)))
      .andWhere((w) => w.whereNull('next_attempt_at').orWhere('next_attempt_at', '<=', iso(q.now)))
      .orderBy('created_at')
      .limit(q.limit);
    return rows.map(toRecord);
  }

  async postpone(scope: string, key: string, until: Date): Promise<void> {
    await this.uow
      .db()('idempotency_keys')
      .where({ scope, key })
      .whereNull('response_status')
      .update({ next_attempt_at: iso(until), attempts: this.uow.db().raw('coalesce(attempts, 0) + 1') });
  }
}

/**
 * The worker's own phased operations keep their recovery points in the same table as keyed requests, in a
 * `system:` scope with no request (so the completer and the purge leave a half-done one to its next pass).
 */
export class SqlDurableCheckpoints implements DurableCheckpoints {
  constructor(
    private readonly store: SqlIdempotencyStore,
    private readonly uow: KnexUnitOfWork,
    private readonly clock: Clock,
  ) {}

  async open(scope: string, name: string): Promise<DurableRun> {
    const token = randomUUID();
    const now = this.clock.now();
    const claim = await this.store.claim(scope, name, scope, now, token);
    // The caller holds the lease that makes `name` exclusive: a record left by a dead run is taken over.
    let rec = claim.record;
    if (claim.outcome === 'existing') {
      const taken = await this.store.takeOver(scope, name, claim.record.lockedAt, now, token);
      if (!taken) throw new Error(`durable run ${scope}/${name} is held by another process`);
      rec = taken;
    }
    return {
      ...storedCheckpoints(rec, this.uow, (point, data) => this.store.setRecoveryPoint(scope, name, token, point, data)),
      finish: () => this.store.release(scope, name, token),
      suspend: () => this.store.unlock(scope, name, token),
    };
  }

  async unfinished(scope: string, limit: number): Promise<string[]> {
    return this.uow
      .db()('idempotency_keys')
      .where({ scope })
      .whereNull('response_status')
      .whereNotIn('recovery_point', SETTLED_POINTS)
      .orderBy('created_at')
      .limit(limit)
      .pluck('key');
  }
}
