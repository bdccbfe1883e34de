import type { AttemptCounter, CredentialAttempts } from '../../../core/accounts/ports/credential-attempts.port.js';
import type { Engine } from '../connection.js';
import { dateOrNull, iso, num } from '../rows.js';
import type { KnexUnitOfWork } from '../unit-of-work.js';

interface Row {
  key: string;
  failures: number | string;
  last_failed_at: string | null;
  admit_at: string | null;
  notified_at: string | null;
}

/**
 * The throttle's counters. `lock` runs inside the caller's transaction: on Postgres the rows are made to
 * exist and then locked (FOR UPDATE, in key order so two checks never wait on each other crosswise); on
 * SQLite the transaction already holds the one write lock (BEGIN IMMEDIATE).
 */
export class SqlCredentialAttempts implements CredentialAttempts {
  constructor(
    private readonly uow: KnexUnitOfWork,
    private readonly engine: Engine,
  ) {}

  async lock(keys: readonly string[]): Promise<AttemptCounter[]> {
    const db = this.uow.db();
    const sorted = [...new Set(keys)].sort();
    if (this.engine === 'postgres') {
      await db('credential_attempts')
        .insert(sorted.map((key) => ({ key, failures: 0, touched_at: '' })))
        .onConflict('key')
        .ignore();
      const rows: Row[] = [];
      // One at a time, in order: a single IN (…) FOR UPDATE may lock in any order.
      for (const key of sorted) rows.push(...((await db('credential_attempts').where({ key }).forUpdate()) as Row[]));
      return rows.map(counterOf);
    }
    return ((await db('credential_attempts').whereIn('key', sorted)) as Row[]).map(counterOf);
  }

  async peek(keys: readonly string[]): Promise<AttemptCounter[]> {
    return (
      (await this.uow
        .db()('credential_attempts')
        .whereIn('key', [...new Set(keys)])) as Row[]
    ).map(counterOf);
  }

  async save(counters: readonly AttemptCounter[]): Promise<void> {
    const db = this.uow.db();
    for (const c of counters) {
      // The counter's own latest time (the throttle's clock), so housekeeping and the counts agree.
      const times = [c.lastFailedAt, c.admitAt, c.notifiedAt].filter((d): d is Date => d !== null).map((d) => d.getTime());
      const row = {
        key: c.key,
        failures: c.failures,
        last_failed_at: c.lastFailedAt ? iso(c.lastFailedAt) : null,
        admit_at: c.admitAt ? iso(c.admitAt) : null,
        notified_at: c.notifiedAt ? iso(c.notifiedAt) : null,
        touched_at: times.length > 0 ? iso(new Date(Math.max(...times))) : '',
      };
      await db('credential_attempts').insert(row).onConflict('key').merge();
    }
  }

  async prune(before: Date): Promise<number> {
    return this.uow.db()('credential_attempts').where('touched_at', '<', iso(before)).delete();
  }
}

const counterOf = (r: Row): AttemptCounter => ({
  key: r.key,
  failures: num(r.failures),
  lastFailedAt: dateOrNull(r.last_failed_at),
  admitAt: dateOrNull(r.admit_at),
  notifiedAt: dateOrNull(r.notified_at),
});
