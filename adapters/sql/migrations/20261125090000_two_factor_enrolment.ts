import type { Knex } from 'knex';

/**
 * Switching two-factor checks on again: the new TOTP seed (sealed, like totp_secret) waits here until a
 * code from it confirms the enrolment; then it becomes totp_secret and this goes back to null.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('people', (t) => {
    t.string('totp_pending_secret', 100).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('people', (t) => t.dropColumn('totp_pending_secret'));
}
