import type { Knex } from 'knex';

/**
 * The change log that SQLite processes poll to drop what they cache (key lookups, domain reads,
 * zone data). Postgres uses LISTEN/NOTIFY instead and never writes here; the table exists on both so the
 * schemas stay the same.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('change_log', (t) => {
    t.increments('seq').primary();
    t.string('topic', 16).notNullable();
    t.string('ref', 80).notNullable();
    t.string('at', 30).notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('change_log');
}
