import type { Knex } from 'knex';

/** Small conversions between row values and domain values, shared by the repositories. */
export const iso = (d: Date): string => d.toISOString();
export const date = (s: string): Date => new Date(s);
export const dateOrNull = (s: string | null | undefined): Date | null => (s ? new Date(s) : null);
export const json = (v: unknown): string => JSON.stringify(v);
export const parse = <T>(s: string): T => JSON.parse(s) as T;
/** SQLite returns booleans as 0/1, Postgres bigint sums as strings. */
export const bool = (v: unknown): boolean => v === true || v === 1 || v === '1';
export const num = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v));

/** Rows of a raw statement: pg answers {rows}, better-sqlite3 an array. */
export const rawRows = async <T>(db: Knex | Knex.Transaction, sql: string, params: readonly unknown[]): Promise<T[]> => {
  const r = (await db.raw(sql, params as Knex.RawBinding[])) as unknown;
  return (Array.isArray(r) ? r : (r as { rows: T[] }).rows) as T[];
};

/**
 * Newest first by (time column, id), from strictly after an `at|id` cursor when one is given, `limit` rows:
 * the keyset page every list of the API reads (an index on (…, time column, id) answers it).
 */
export const newestFirstPage = <Q extends Knex.QueryBuilder>(sel: Q, at: string, id: string, q: { before?: string; limit: number }): Q => {
  if (q.before) {
    const i = q.before.indexOf('|');
    const [t, k] = i < 0 ? [q.before, ''] : [q.before.slice(0, i), q.before.slice(i + 1)];
    sel.andWhere((w) => w.where(at, '<', t).orWhere((x) => x.where(at, t).andWhere(id, '<', k)));
  }
  return sel
    .orderBy([
      { column: at, order: 'desc' },
      { column: id, order: 'desc' },
    ])
    .limit(q.limit) as Q;
};
