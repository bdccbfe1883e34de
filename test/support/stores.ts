import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import knexFactory from 'knex';

/**
 * Every storage-touching suite runs on SQLite always and on Postgres when TEST_PG_URL is set
 * (STYLE 10). Each call to `fresh()` gives a new, empty database: a new SQLite file, or a new
 * Postgres schema that is dropped afterwards. Nothing depends on leftovers.
 */
export interface FreshStore {
  readonly engine: 'sqlite' | 'postgres';
  readonly url: string;
  readonly schema?: string;
  /** What SqlStore takes to open it: `new SqlStore(fresh.connection)`. */
  readonly connection: { readonly url: string; readonly schema?: string };
  drop(): Promise<void>;
}

export interface StoreKind {
  readonly engine: 'sqlite' | 'postgres';
  fresh(): Promise<FreshStore>;
}

const sqlite: StoreKind = {
  engine: 'sqlite',
  async fresh() {
    const dir = mkdtempSync(join(tmpdir(), 'domivka-test-'));
    const url = join(dir, 'test.sqlite');
    return { engine: 'sqlite', url, connection: { url }, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  },
};

const postgres = (url: string): StoreKind => ({
  engine: 'postgres',
  async fresh() {
    const schema = `t_${randomBytes(6).toString('hex')}`;
    const admin = knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 1 } });
    await admin.raw(`create schema "${schema}"`);
    await admin.destroy();
    return {
      engine: 'postgres',
      url,
      schema,
      connection: { url, schema },
      drop: async () => {
        const a = knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 1 } });
        await a.raw(`drop schema if exists "${schema}" cascade`);
        await a.destroy();
      },
    };
  },
});

export const STORES: StoreKind[] = [sqlite, ...(process.env.TEST_PG_URL ? [postgres(process.env.TEST_PG_URL)] : [])];

/** describe() the same suite once per engine. */
export const eachStore = (title: string, suite: (kind: StoreKind) => void): void => {
  for (const kind of STORES) describe(`${title} [${kind.engine}]`, () => suite(kind));
};
