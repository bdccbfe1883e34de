import type { Knex } from 'knex';

/**
 * The retention pass (src/worker.ts, every 30 s) deletes events and webhook deliveries older than the
 * retention: without an index on their age each pass scanned every row — ~200 ms on an account of 50,000
 * events, the event loop held every half minute. With these it reads only the rows it deletes.
 *
 * On Postgres the indexes are built CONCURRENTLY, outside a transaction (`postgresConfig`): a plain CREATE
 * INDEX would hold every insert of an event (and of a delivery) for as long as the build takes on a large
 * table, those of the processes still running the previous version during a rolling deploy included. On
 * SQLite the migration runs in its batch's transaction (see migrationSourceFor: a `config` here would take
 * every batch it is in out of its transaction, on both engines).
 */
export const postgresConfig = { transaction: false };

const INDEXES = [
  ['events', 'occurred_at', 'events_occurred_at'],
  ['webhook_deliveries', 'created_at', 'webhook_deliveries_created_at'],
] as const;

const postgres = (knex: Knex): boolean => (knex.client as { dialect?: string }).dialect === 'postgresql';

export async function up(knex: Knex): Promise<void> {
  for (const [table, column, name] of INDEXES) {
    if (postgres(knex)) {
      // A build cut short (a kill) leaves an INVALID index, which `if not exists` would keep and the planner
      // never uses: it goes first.
      const invalid = await knex.raw(
        'select 1 from pg_index i join pg_class c on c.oid = i.indexrelid ' +
          'where c.relname = ? and c.relnamespace = current_schema()::regnamespace and not i.indisvalid',
        [name],
      );
      if ((invalid as { rows: unknown[] }).rows.length > 0) await knex.raw('drop index concurrently if exists ??', [name]);
      await knex.raw('create index concurrently if not exists ?? on ?? (??)', [name, table, column]);
    } else await knex.schema.alterTable(table, (t) => t.index([column], name));
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const [table, column, name] of INDEXES) {
    if (postgres(knex)) await knex.raw('drop index concurrently if exists ??', [name]);
    else await knex.schema.alterTable(table, (t) => t.dropIndex([column], name));
  }
}
