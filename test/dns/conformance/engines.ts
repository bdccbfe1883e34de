import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The stores `npm start` runs on in a test: SQLite always, and Postgres (a fresh schema) when TEST_PG_URL is set. */
export interface ServerEngine {
  readonly name: 'SQLite' | 'Postgres';
  /** The environment that points `npm start` at a fresh store of this engine. */
  env(): Promise<Record<string, string>>;
  drop?(env: Record<string, string>): Promise<void>;
}

const pgSql = async (sql: string): Promise<void> => {
  const client = new pg.Client({ connectionString: process.env.TEST_PG_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
};

export const serverEngines = (prefix: string): ServerEngine[] => [
  // SQLite: startServerProcess makes a fresh file of its own.
  { name: 'SQLite', env: async () => ({}) },
  ...(process.env.TEST_PG_URL
    ? [
        {
          name: 'Postgres' as const,
          // A fresh schema of its own (npm start migrates into it), dropped afterwards.
          env: async () => {
            const schema = `${prefix}_${randomBytes(6).toString('hex')}`;
            await pgSql(`create schema ${schema}`);
            return { DATABASE_URL: process.env.TEST_PG_URL!, DATABASE_SCHEMA: schema };
          },
          drop: async (env: Record<string, string>) => pgSql(`drop schema if exists ${env.DATABASE_SCHEMA!} cascade`),
        },
      ]
    : []),
];
