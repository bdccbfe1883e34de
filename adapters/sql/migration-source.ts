import type { Knex } from 'knex';
import * as foundation from './migrations/20261121000000_foundation.js';

/** Migrations listed explicitly: no directory scanning, so they load the same under tsx, tests and CLI. */
const MIGRATIONS: ReadonlyArray<[string, Knex.Migration]> = [['20261121000000_foundation', foundation]];

export const migrationSource: Knex.MigrationSource<[string, Knex.Migration]> = {
  getMigrations: async () => [...MIGRATIONS],
  getMigrationName: ([name]) => name,
  getMigration: async ([, migration]) => migration,
};
