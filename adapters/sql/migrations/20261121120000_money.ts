import type { Knex } from 'knex';

/**
 * Money, notices outbox, lifecycle. Same conventions as the foundation: ISO-8601 UTC text
 * instants, JSON as text, kopiykas as bigint.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('ledger_entries', (t) => {
    t.string('status', 10).notNullable().defaultTo('posted');
  });
  // The balance as one row per account and environment: the conditional UPDATE on it is what makes
  // "never below 0" atomic. It always equals the sum of posted and pending ledger entries.
  await knex.schema.createTable('wallets', (t) => {
    t.string('account_id', 40).notNullable().references('accounts.id');
    t.string('environment', 4).notNullable();
    t.bigInteger('balance').notNullable().defaultTo(0);
    t.primary(['account_id', 'environment']);
  });
  await knex.raw(`insert into wallets (account_id, environment, balance)
    select account_id, environment, sum(amount) from ledger_entries group by account_id, environment`);
  await knex.schema.createTable('key_spend', (t) => {
    t.string('key_id', 12).notNullable();
    t.string('month', 7).notNullable();
    t.bigInteger('spent').notNullable().defaultTo(0);
    t.primary(['key_id', 'month']);
  });
  await knex.schema.createTable('saved_cards', (t) => {
    t.string('account_id', 40).notNullable().references('accounts.id');
    t.string('environment', 4).notNullable();
    t.string('brand', 20).notNullable();
    t.string('last4', 4).notNullable();
    t.string('payment_method_ref', 100).notNullable();
    t.string('customer_ref', 100).nullable();
    t.primary(['account_id', 'environment']);
  });
  await knex.schema.createTable('topups', (t) => {
    t.string('id', 40).primary();
    t.string('account_id', 40).notNullable().references('accounts.id');
    t.string('environment', 4).notNullable();
    t.string('key_id', 12).nullable();
    t.bigInteger('amount').notNullable();
    t.string('status', 12).notNullable();
    t.string('provider_id', 100).nullable();
    t.string('failure_code', 60).nullable();
    t.string('created_at', 30).notNullable();
  });
  await knex.schema.alterTable('notices', (t) => {
    // All recipients' copies of one notice share a group; keys list each notice once.
    t.string('group_id', 40).nullable();
    t.index(['account_id', 'environment', 'group_id']);
  });
  await knex.raw('update notices set group_id = id');
  await knex.schema.createTable('notice_deliveries', (t) => {
    t.string('id', 40).primary();
    t.string('notice_id', 40).notNullable();
    t.string('recipient_id', 40).notNullable();
    t.string('address', 320).notNullable();
    t.string('subject', 300).notNullable();
    t.text('body').notNullable();
    t.string('status', 10).notNullable();
    t.integer('attempts').notNullable().defaultTo(0);
    t.string('next_attempt_at', 30).notNullable();
    t.text('last_error').nullable();
    t.string('sent_at', 30).nullable();
    t.string('created_at', 30).notNullable();
    t.index(['status', 'next_attempt_at']);
  });
  await knex.schema.alterTable('events', (t) => {
    // For the webhook dispatcher and event log (later): consumers claim unpublished rows with
    // FOR UPDATE SKIP LOCKED and set this, rather than trusting seq order (Postgres hands out
    // sequence numbers at insert, not at commit, so a reader of "seq > last" could skip a late commit).
    t.string('published_at', 30).nullable();
    t.index(['published_at']);
  });
  await knex.schema.createTable('sandbox_clocks', (t) => {
    t.string('account_id', 40).primary();
    t.bigInteger('offset_ms').notNullable().defaultTo(0);
  });
  await knex.schema.alterTable('domains', (t) => {
    // A lease that serialises money operations on one domain across processes.
    t.string('lock_token', 40).nullable();
    t.string('lock_expires_at', 30).nullable();
    t.string('auto_renew_failed_for', 10).nullable();
    t.index(['environment', 'expires_on']);
  });
  await knex.schema.alterTable('idempotency_keys', (t) => {
    t.text('recovery_data').nullable();
    // Who holds the claim: every later write must match it, so a taken-over request cannot finish.
    t.string('lock_token', 40).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('idempotency_keys', (t) => {
    t.dropColumn('recovery_data');
    t.dropColumn('lock_token');
  });
  await knex.schema.alterTable('domains', (t) => {
    t.dropIndex(['environment', 'expires_on']);
    t.dropColumn('lock_token');
    t.dropColumn('lock_expires_at');
    t.dropColumn('auto_renew_failed_for');
  });
  await knex.schema.alterTable('events', (t) => {
    t.dropIndex(['published_at']);
    t.dropColumn('published_at');
  });
  for (const table of ['sandbox_clocks', 'notice_deliveries', 'topups', 'saved_cards', 'key_spend', 'wallets']) {
    await knex.schema.dropTableIfExists(table);
  }
  await knex.schema.alterTable('notices', (t) => {
    t.dropIndex(['account_id', 'environment', 'group_id']);
    t.dropColumn('group_id');
  });
  await knex.schema.alterTable('ledger_entries', (t) => t.dropColumn('status'));
}
