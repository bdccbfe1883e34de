import type { Knex } from 'knex';

/**
 * Requests for a new password by e-mailed link (core/accounts/passwords.use-case.ts): one use, 30 minutes,
 * the token kept only as its SHA-256.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('password_resets', (t) => {
    t.string('id', 40).primary();
    t.string('person_id', 40).notNullable().references('people.id');
    t.string('token_hash', 64).notNullable().unique();
    t.string('created_at', 30).notNullable();
    t.string('expires_at', 30).notNullable();
    t.string('used_at', 30).nullable();
    t.index(['person_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('password_resets');
}
