import type { Knex } from 'knex';

/**
 * Counters of failed password and TOTP checks (core/accounts/credential-throttle.ts): one row per source
 * address, per sign-in identity and per pair of both, keyed by HMACs (never an address or an e-mail). In the
 * store, not in memory, so every API process counts the same failures.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('credential_attempts', (t) => {
    t.string('key', 200).primary();
    t.integer('failures').notNullable().defaultTo(0);
    t.string('last_failed_at', 30).nullable();
    t.string('admit_at', 30).nullable();
    t.string('notified_at', 30).nullable();
    // Housekeeping drops rows untouched since a time.
    t.string('touched_at', 30).notNullable().index();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('credential_attempts');
}
