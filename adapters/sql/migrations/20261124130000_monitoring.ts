import type { Knex } from 'knex';

/** Monitoring: monitors, their check results (kept 30 days) and incidents. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('monitors', (t) => {
    t.string('id', 40).primary();
    t.string('account_id', 40).notNullable().references('accounts.id');
    t.string('environment', 4).notNullable();
    t.string('domain', 253).notNullable();
    t.string('kind', 16).notNullable();
    t.text('spec').notNullable();
    t.integer('interval_seconds').notNullable();
    t.boolean('enabled').notNullable();
    t.string('state', 10).notNullable();
    t.string('state_changed_at', 30).nullable();
    t.text('last_reason').nullable();
    t.string('last_checked_at', 30).nullable();
    t.string('next_check_at', 30).notNullable();
    t.string('open_incident_id', 40).nullable();
    t.string('created_at', 30).notNullable();
    t.string('updated_at', 30).notNullable();
    t.string('deleted_at', 30).nullable();
    t.string('lock_token', 40).nullable();
    t.string('lock_expires_at', 30).nullable();
    t.index(['account_id', 'environment', 'created_at']);
    t.index(['enabled', 'next_check_at']);
  });
  await knex.schema.createTable('monitor_results', (t) => {
    t.string('id', 40).primary();
    t.string('monitor_id', 40).notNullable().references('monitors.id').onDelete('CASCADE');
    t.string('checked_at', 30).notNullable();
    t.boolean('ok').notNullable();
    t.integer('latency_ms').nullable();
    t.text('reason').nullable();
    t.text('detail').notNullable();
    t.index(['monitor_id', 'checked_at']);
    t.index(['checked_at']);
  });
  await knex.schema.createTable('monitor_incidents', (t) => {
    t.string('id', 40).primary();
    t.string('monitor_id', 40).notNullable().references('monitors.id').onDelete('CASCADE');
    t.string('started_at', 30).notNullable();
    t.string('ended_at', 30).nullable();
    t.text('reason').nullable();
    t.index(['monitor_id', 'started_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['monitor_incidents', 'monitor_results', 'monitors']) await knex.schema.dropTableIfExists(table);
}
