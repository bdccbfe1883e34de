import type { Knex } from 'knex';

/** Class 3 operations: nameservers, lifting the transfer lock, labels — each waits for a
 * second owner or 24 hours. `pending_domain` holds the domain id while the operation is pending and is
 * unique, so two conflicting operations on one domain can never both be pending (even under concurrency). */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('operations', (t) => {
    t.string('id', 40).primary();
    t.string('account_id', 40).notNullable().references('accounts.id');
    t.string('environment', 4).notNullable();
    t.string('domain_id', 40).notNullable();
    t.string('domain', 253).notNullable();
    t.string('kind', 20).notNullable();
    t.string('status', 10).notNullable();
    t.text('params').notNullable();
    t.text('warnings').notNullable();
    t.string('requested_by_key', 40).nullable();
    t.string('requested_by_person', 40).notNullable();
    t.text('confirmations').notNullable();
    t.string('created_at', 30).notNullable();
    t.string('activates_at', 30).notNullable();
    t.string('resolved_at', 30).nullable();
    t.text('cancelled_by').nullable();
    t.text('failure_reason').nullable();
    t.string('pending_domain', 40).nullable().unique();
    t.string('lock_token', 40).nullable();
    t.string('lock_expires_at', 30).nullable();
    t.index(['account_id', 'environment', 'created_at']);
    t.index(['environment', 'status', 'activates_at']);
    t.index(['domain_id', 'created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('operations');
}
