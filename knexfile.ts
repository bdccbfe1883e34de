/**
 * knex CLI configuration, to look at the store:
 *   node --import tsx node_modules/knex/bin/cli.js --knexfile knexfile.ts migrate:status
 * The application itself migrates through adapters/sql (npm start, npm run migrate): that takes turns with
 * the other processes starting on the same store (SqlStore.migrate), which the CLI does not, so do not
 * migrate with the CLI while anything runs. This file reads the same DATABASE_URL, and lists the migrations
 * as the application does (migrationSourceFor: what runs outside a transaction, on which engine).
 */
import type { Knex } from 'knex';
import { engineOf, knexConfig } from './adapters/sql/connection.js';
import { migrationSourceFor } from './adapters/sql/migration-source.js';

const url = process.env.DATABASE_URL || './var/domivka.sqlite';

const config: Knex.Config = {
  ...knexConfig({ url, ...(process.env.DATABASE_SCHEMA ? { schema: process.env.DATABASE_SCHEMA } : {}) }),
  migrations: { migrationSource: migrationSourceFor(engineOf(url)) },
};

export default config;
