import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import knexFactory, { type Knex } from 'knex';
import BetterSqlite3Client from 'knex/lib/dialects/better-sqlite3/index.js';
import SqliteTransaction from 'knex/lib/dialects/sqlite3/execution/sqlite-transaction.js';

export type Engine = 'sqlite' | 'postgres';

export interface StoreConfig {
  /** A file path (SQLite) or a postgres:// URL. */
  readonly url: string;
  /** Postgres only: the schema to use (tests run each suite in a fresh schema). */
  readonly schema?: string;
  readonly poolMax?: number;
  /**
   * SQLite only: the page cache of each connection, KB (SQLite's default is 2 000). A DNS worker reads each
   * zone once and then only what changed: a small cache keeps the pages of its first read from staying in
   * its memory for good (SqlDnsStore).
   */
  readonly sqliteCacheKb?: number;
}

/** Prepared statements kept per SQLite connection (knex's statements: one text per query shape, a few hundred in all). */
const SQLITE_STATEMENTS = 512;
/** Statements with longer text are prepared each time (each such statement holds tens of KB in SQLite). */
const SQLITE_STATEMENT_MAX_CHARS = 2_000;

/** What a better-sqlite3 connection is to keepStatements. */
interface PreparingConnection {
  prepare(sql: string): unknown;
}

/**
 * knex prepares every statement anew on better-sqlite3 (its `_query`), and preparing costs more than running
 * most of our queries (a CPU profile of a plan apply under `npm start`: `prepare` ahead of the queries
 * themselves). The connection keeps what it prepared, by text, the least recently used going first past
 * SQLITE_STATEMENTS. Safe for knex: it runs a statement to the end at once (`all` or `run`, never an
 * iterator), and sets no statement mode (knex sets safeIntegers only when a query asks; none of ours does).
 */
export const keepStatements = (conn: PreparingConnection, max = SQLITE_STATEMENTS): void => {
  const prepare = conn.prepare.bind(conn);
  const kept = new Map<string, unknown>();
  conn.prepare = (sql: string) => {
    let st = kept.get(sql);
    if (st !== undefined) {
      kept.delete(sql);
      kept.set(sql, st);
      return st;
    }
    st = prepare(sql);
    // A long text is a list of many placeholders (whereIn over hundreds of ids), one text per length: not kept.
    if (sql.length > SQLITE_STATEMENT_MAX_CHARS) return st;
    if (kept.size >= max) kept.delete(kept.keys().next().value!);
    kept.set(sql, st);
    return st;
  };
};

export const engineOf = (url: string): Engine => (/^postgres(ql)?:\/\//.test(url) ? 'postgres' : 'sqlite');

/** Builds the knex instance for either engine. SQLite runs in WAL mode with a busy timeout, so a
 * second process (`npm run sandbox:key`) can use the store beside a running server. */
export const knexConfig = (config: StoreConfig): Knex.Config => {
  if (engineOf(config.url) === 'postgres') {
    return {
      client: 'pg',
      connection: config.url,
      ...(config.schema ? { searchPath: [config.schema] } : {}),
      pool: { min: 0, max: config.poolMax ?? 10 },
    };
  }
  if (config.url !== ':memory:') mkdirSync(dirname(config.url), { recursive: true });
  return {
    client: 'better-sqlite3',
    connection: { filename: config.url },
    useNullAsDefault: true,
    pool: {
      min: 1,
      max: 1,
      afterCreate: (conn: PreparingConnection & { pragma(s: string): unknown }, done: (err: Error | null, conn: unknown) => void) => {
        conn.pragma('journal_mode = WAL');
        conn.pragma('synchronous = NORMAL');
        conn.pragma('foreign_keys = ON');
        conn.pragma('busy_timeout = 5000');
        if (config.sqliteCacheKb !== undefined) conn.pragma(`cache_size = -${Math.max(1, Math.round(config.sqliteCacheKb))}`);
        keepStatements(conn);
        done(null, conn);
      },
    },
  };
};

/**
 * SQLite transactions begin IMMEDIATE: a deferred BEGIN that reads first and writes later fails at once
 * with SQLITE_BUSY_SNAPSHOT when another process committed in between; an immediate one takes the
 * write lock up front and waits (busy_timeout) like any other writer. knex has no option for it, so
 * its better-sqlite3 client is extended here, in the one place that knows the dialect. (Imported, not
 * required, so that the build's bundler takes them from the one copy of knex it bundles: knex-dialects.d.ts.)
 */

class ImmediateTransaction extends SqliteTransaction {
  begin(conn: unknown) {
    return this.query(conn, 'BEGIN IMMEDIATE;');
  }
}

class ImmediateBetterSqlite3Client extends BetterSqlite3Client {
  transaction(...args: unknown[]) {
    return new ImmediateTransaction(this, ...args);
  }
}

export const createKnex = (config: StoreConfig): Knex => {
  const c = knexConfig(config);
  return knexFactory(c.client === 'better-sqlite3' ? { ...c, client: ImmediateBetterSqlite3Client as unknown as typeof Knex.Client } : c);
};
