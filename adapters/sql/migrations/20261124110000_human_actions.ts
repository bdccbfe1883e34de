import type { Knex } from 'knex';

/**
 * The six human-only actions: invitations, two-factor switch, removed people, deleted
 * accounts, a CSRF synchronizer token per session, the sandbox registry's registrant contact.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('people', (t) => {
    t.boolean('two_factor_enabled').notNullable().defaultTo(true);
    t.string('removed_at', 30).nullable();
  });
  await knex.schema.alterTable('accounts', (t) => {
    t.string('deleted_at', 30).nullable();
  });
  await knex.schema.alterTable('sessions', (t) => {
    t.string('csrf_token', 64).nullable();
  });
  await knex.schema.alterTable('sandbox_registry', (t) => {
    t.text('registrant').nullable();
  });
  await knex.schema.createTable('invitations', (t) => {
    t.string('id', 40).primary();
    t.string('account_id', 40).notNullable().references('accounts.id');
    t.string('email', 320).notNullable();
    t.string('role', 10).notNullable();
    t.string('token_hash', 64).notNullable().unique();
    t.string('invited_by', 40).notNullable();
    t.string('created_at', 30).notNullable();
    t.string('expires_at', 30).notNullable();
    t.string('accepted_at', 30).nullable();
    t.string('revoked_at', 30).nullable();
    t.index(['account_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('invitations');
  await knex.schema.alterTable('sandbox_registry', (t) => t.dropColumn('registrant'));
  await knex.schema.alterTable('sessions', (t) => t.dropColumn('csrf_token'));
  await knex.schema.alterTable('accounts', (t) => t.dropColumn('deleted_at'));
  await knex.schema.alterTable('people', (t) => {
    t.dropColumn('removed_at');
    t.dropColumn('two_factor_enabled');
  });
}
