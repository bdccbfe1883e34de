import type { Knex } from 'knex';

/**
 * A phased request keeps what it asked for (route, key, validated input) with its idempotency record, so
 * the worker's completer can finish it when the client never retries: a charge it reserved is then posted
 * or voided instead of staying pending for good.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('idempotency_keys', (t) => {
    t.text('request').nullable();
    // The completer's tries at a request it could not finish yet, and when it may try again (backoff).
    t.integer('attempts').notNullable().defaultTo(0);
    t.string('next_attempt_at', 30).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('idempotency_keys', (t) => {
    t.dropColumn('next_attempt_at');
    t.dropColumn('attempts');
    t.dropColumn('request');
  });
}
