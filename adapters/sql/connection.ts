import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import knexFactory, { type Knex } from 'knex';

export type Engine = 'sqlite' | 'postgres';

export interface StoreConfig {
  /** A file path (SQLite) or a postgres:// URL. */
  readonly url: string;
  /** Postgres only: the schema to use (tests run each suite in a fresh schema). */
  readonly schema?: string;
  readonly poolMax?: number;
}

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
      afterCreate: (conn: { pragma(s: string): unknown }, done: (err: Error | null, conn: unknown) => void) => {
        conn.pragma('journal_mode = WAL');
        conn.pragma('synchronous = NORMAL');
        conn.pragma('foreign_keys = ON');
        conn.pragma('busy_timeout = 5000');
        done(null, conn);
      },
    },
  };
};

export const createKnex = (config: StoreConfig): Knex => knexFactory(knexConfig(config));
