import type { Knex } from 'knex';
import * as foundation from './migrations/20261121000000_foundation.js';
import * as money from './migrations/20261121120000_money.js';
import * as dns from './migrations/20261121140000_dns.js';
import * as certificates from './migrations/20261122090000_certificates.js';

/** Migrations listed explicitly: no directory scanning, so they load the same under tsx, tests and CLI. */
const MIGRATIONS: ReadonlyArray<[string, Knex.Migration]> = [
  ['20261121000000_foundation', foundation],
  ['20261121120000_money', money],
  ['20261121140000_dns', dns],
  ['20261122090000_certificates', certificates],
];

export const migrationSource: Knex.MigrationSource<[string, Knex.Migration]> = {
  getMigrations: async () => [...MIGRATIONS],
  getMigrationName: ([name]) => name,
  getMigration: async ([, migration]) => migration,
};
