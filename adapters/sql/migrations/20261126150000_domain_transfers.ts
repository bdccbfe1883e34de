import type { Knex } from 'knex';

/**
 * Transfers between registrars, both directions (RFC 5731 §3.2.4). `active` holds
 * `<environment>:<domain>` while a transfer is requesting or pending and is unique, so two transfers of
 * one name can never both be under way (two parallel requests: one reserves money, the other is refused).
 * `auth_code` is the authInfo, sealed, and deleted when the transfer ends. The sandbox registry keeps its
 * own side of a transfer in `sandbox_registry.transfer`.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('domain_transfers', (t) => {
    t.string('id', 40).primary();
    t.string('account_id', 40).notNullable().references('accounts.id');
    t.string('environment', 4).notNullable();
    t.string('domain', 253).notNullable();
    t.string('direction', 3).notNullable();
    t.string('status', 12).notNullable();
    t.string('active', 260).nullable().unique();
    t.integer('years').nullable();
    t.bigInteger('amount').nullable();
    t.string('ledger_entry_id', 40).nullable();
    t.string('key_id', 40).nullable();
    t.string('requested_by', 80).notNullable();
    t.text('labels').notNullable();
    t.text('auth_code').nullable();
    t.string('client_transaction_id', 64).notNullable();
    t.string('registry_status', 20).nullable();
    t.string('action_at', 30).nullable();
    t.string('registered_until', 10).nullable();
    t.string('error', 60).nullable();
    t.string('created_at', 30).notNullable();
    t.string('finished_at', 30).nullable();
    t.index(['account_id', 'environment', 'domain', 'created_at']);
    t.index(['environment', 'status']);
  });
  await knex.schema.alterTable('sandbox_registry', (t) => {
    t.text('transfer').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('sandbox_registry', (t) => t.dropColumn('transfer'));
  await knex.schema.dropTableIfExists('domain_transfers');
}
