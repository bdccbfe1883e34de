/**
 * knex CLI configuration (`npx knex --knexfile knexfile.ts migrate:status`). The application itself
 * migrates through adapters/sql (npm start, npm run migrate); this file reads the same DATABASE_URL.
 */
import type { Knex } from 'knex';
import { knexConfig } from './adapters/sql/connection.js';

const url = process.env.DATABASE_URL || './var/domivka.sqlite';

const config: Knex.Config = {
  ...knexConfig({ url, ...(process.env.DATABASE_SCHEMA ? { schema: process.env.DATABASE_SCHEMA } : {}) }),
  migrations: { directory: './adapters/sql/migrations', loadExtensions: ['.ts'], extension: 'ts' },
};

export default config;
