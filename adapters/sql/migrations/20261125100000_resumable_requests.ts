import type { Knex } from 'knex';

/**
 * A phased request keeps what it asked for (route, key, validated input) with its idempotency record, so
 * the worker's completer can finish it when the client never retries: a charge it reserved is then posted
 * or voided instead of staying pending for good.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('idempotency_keys', (t) => {
    t.text('request').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('idempotency_keys', (t) => t.dropColumn('request'));
}
