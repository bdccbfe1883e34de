import type { Knex } from 'knex';

/**
 * The public event log and webhooks.
 *
 * events.pub_seq is the public cursor. It is NOT the insert sequence (`seq`): Postgres hands out
 * sequence values at insert, so a transaction holding seq 10 may commit after one holding seq 11 and a
 * reader of "seq > 10" would skip it. Instead a single publisher at a time (it locks the one row of
 * event_publisher) takes committed rows with published_at IS NULL in seq order and numbers them
 * last_seq+1, last_seq+2, … in its own transaction. A row that commits late is simply numbered by a
 * later pass, so pub_seq only ever grows in commit order of the publisher, and readers see a gap-free,
 * never-reordered prefix.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('events', (t) => {
    t.bigInteger('pub_seq').nullable().unique();
    t.string('public_type', 60).nullable();
    t.string('domain', 253).nullable();
    // Every domain the event is about (a certificate may cover several), as a JSON array.
    t.text('domains').nullable();
    t.index(['account_id', 'environment', 'pub_seq']);
  });
  await knex.schema.createTable('event_publisher', (t) => {
    t.integer('id').primary();
    t.bigInteger('last_seq').notNullable();
    t.string('locked_at', 30).nullable();
  });
  await knex('event_publisher').insert({ id: 1, last_seq: 0 });
  await knex.schema.createTable('webhooks', (t) => {
    t.string('id', 40).primary();
    t.string('account_id', 40).notNullable();
    t.string('environment', 4).notNullable();
    t.text('url').notNullable();
    t.text('description').nullable();
    t.text('events').notNullable();
    t.text('domains').nullable();
    t.boolean('enabled').notNullable();
    t.string('disabled_reason', 20).nullable();
    t.text('secret_sealed').notNullable();
    t.text('old_secret_sealed').nullable();
    t.string('old_secret_expires_at', 30).nullable();
    // The first failure of the current failing streak (null once a delivery succeeds).
    t.string('failing_since', 30).nullable();
    t.string('created_by', 60).notNullable();
    t.string('created_at', 30).notNullable();
    t.string('updated_at', 30).notNullable();
    t.boolean('deleted').notNullable().defaultTo(false);
    t.index(['account_id', 'environment']);
  });
  await knex.schema.createTable('webhook_deliveries', (t) => {
    t.string('id', 40).primary();
    t.string('webhook_id', 40).notNullable();
    t.string('account_id', 40).notNullable();
    t.string('environment', 4).notNullable();
    t.string('event_id', 40).notNullable();
    t.bigInteger('event_seq').notNullable();
    t.string('status', 12).notNullable(); // pending | delivered | failed | cancelled
    t.integer('attempts').notNullable().defaultTo(0);
    t.string('next_attempt_at', 30).nullable();
    t.string('lease_token', 40).nullable();
    t.string('lease_expires_at', 30).nullable();
    t.string('event_committed_at', 30).notNullable();
    t.string('first_attempt_at', 30).nullable();
    t.string('delivered_at', 30).nullable();
    t.string('created_at', 30).notNullable();
    t.index(['status', 'next_attempt_at']);
    t.index(['webhook_id', 'event_seq']);
  });
  await knex.schema.createTable('webhook_attempts', (t) => {
    t.string('id', 40).primary();
    t.string('delivery_id', 40).notNullable();
    t.string('webhook_id', 40).notNullable();
    t.integer('number').notNullable();
    t.string('attempted_at', 30).notNullable();
    t.string('outcome', 12).notNullable(); // succeeded | failed
    t.integer('response_code').nullable();
    t.integer('latency_ms').nullable();
    t.text('response_body').nullable();
    t.text('error').nullable();
    t.unique(['delivery_id', 'number']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['webhook_attempts', 'webhook_deliveries', 'webhooks', 'event_publisher']) await knex.schema.dropTableIfExists(table);
  await knex.schema.alterTable('events', (t) => {
    t.dropIndex(['account_id', 'environment', 'pub_seq']);
    t.dropUnique(['pub_seq']);
    t.dropColumn('pub_seq');
    t.dropColumn('public_type');
    t.dropColumn('domain');
    t.dropColumn('domains');
  });
}
