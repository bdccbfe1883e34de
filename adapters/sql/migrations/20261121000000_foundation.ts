import type { Knex } from 'knex';

/**
 * Foundation schema. Runs on SQLite and Postgres alike: instants are ISO-8601 UTC strings (24 chars,
 * so text order is time order on both engines), JSON is text, money is integer kopiykas (bigint).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('accounts', (t) => {
    t.string('id', 40).primary();
    t.string('name', 200).notNullable();
    t.string('created_at', 30).notNullable();
  });
  await knex.schema.createTable('people', (t) => {
    t.string('id', 40).primary();
    t.string('account_id', 40).notNullable().references('accounts.id');
    t.string('email', 320).notNullable().unique();
    t.string('name', 200).notNullable();
    t.string('role', 10).notNullable();
    t.string('password_hash', 200).notNullable();
    t.string('totp_secret', 100).notNullable();
    t.bigInteger('totp_last_step').nullable();
    t.string('last_sign_in_at', 30).nullable();
    t.string('created_at', 30).notNullable();
    t.index(['account_id', 'role']);
  });
  await knex.schema.createTable('sessions', (t) => {
    t.string('id', 40).primary();
    t.string('token_hash', 64).notNullable().unique();
    t.string('person_id', 40).notNullable().references('people.id');
    t.string('account_id', 40).notNullable().references('accounts.id');
    t.string('created_at', 30).notNullable();
    t.string('authenticated_at', 30).notNullable();
    t.string('expires_at', 30).notNullable();
    t.string('revoked_at', 30).nullable();
  });
  await knex.schema.createTable('api_keys', (t) => {
    t.string('id', 12).primary();
    t.string('account_id', 40).notNullable().references('accounts.id');
    t.string('environment', 4).notNullable();
    t.string('name', 200).notNullable();
    t.string('created_by', 40).notNullable().references('people.id');
    t.text('policies').notNullable();
    t.string('cidr', 18).nullable();
    t.string('expires_on', 10).notNullable();
    t.bigInteger('spend_limit').nullable();
    t.integer('class').notNullable();
    t.string('secret_hash', 64).notNullable();
    t.string('created_at', 30).notNullable();
    t.string('last_used_at', 30).nullable();
    t.string('revoked_at', 30).nullable();
    t.string('revoked_by', 40).nullable();
    t.index(['account_id', 'id']);
  });
  await knex.schema.createTable('domains', (t) => {
    t.string('id', 40).primary();
    t.string('account_id', 40).notNullable().references('accounts.id');
    t.string('environment', 4).notNullable();
    t.string('name', 253).notNullable();
    t.text('status').notNullable();
    t.string('expires_on', 10).notNullable();
    t.boolean('auto_renew').notNullable();
    t.boolean('transfer_lock').notNullable();
    t.text('nameservers').notNullable();
    t.string('created_at', 30).notNullable();
    // One holder per name in each environment; every query is scoped by account and environment.
    t.unique(['environment', 'name']);
    t.index(['account_id', 'environment', 'name']);
  });
  await knex.schema.createTable('domain_labels', (t) => {
    t.string('domain_id', 40).notNullable().references('domains.id').onDelete('CASCADE');
    t.string('label', 63).notNullable();
    t.primary(['domain_id', 'label']);
    t.index(['label']);
  });
  await knex.schema.createTable('ledger_entries', (t) => {
    t.string('id', 40).primary();
    t.string('account_id', 40).notNullable().references('accounts.id');
    t.string('environment', 4).notNullable();
    t.bigInteger('amount').notNullable();
    t.string('kind', 20).notNullable();
    t.string('key_id', 12).nullable();
    t.string('domain', 253).nullable();
    t.string('description', 500).notNullable();
    t.string('created_at', 30).notNullable();
    t.index(['account_id', 'environment', 'created_at']);
    t.index(['key_id', 'created_at']);
  });
  await knex.schema.createTable('notices', (t) => {
    t.string('id', 40).primary();
    t.string('account_id', 40).notNullable().references('accounts.id');
    t.string('environment', 4).notNullable();
    t.string('recipient_id', 40).notNullable().references('people.id');
    t.string('kind', 60).notNullable();
    t.string('domain', 253).nullable();
    t.text('message_uk').notNullable();
    t.text('message_en').notNullable();
    t.text('data').notNullable();
    t.string('created_at', 30).notNullable();
    t.index(['recipient_id', 'id']);
  });
  await knex.schema.createTable('events', (t) => {
    t.bigIncrements('seq').primary();
    t.string('id', 40).notNullable().unique();
    t.string('account_id', 40).notNullable();
    t.string('environment', 4).nullable();
    t.string('type', 60).notNullable();
    t.string('subject', 300).notNullable();
    t.string('actor', 60).notNullable();
    t.text('data').notNullable();
    t.string('occurred_at', 30).notNullable();
    t.index(['account_id', 'seq']);
  });
  await knex.schema.createTable('idempotency_keys', (t) => {
    t.string('scope', 60).notNullable();
    t.string('key', 255).notNullable();
    t.string('fingerprint', 64).notNullable();
    t.string('locked_at', 30).nullable();
    t.string('recovery_point', 60).notNullable();
    t.integer('response_status').nullable();
    t.text('response_body').nullable();
    t.text('response_headers').nullable();
    t.string('created_at', 30).notNullable();
    t.primary(['scope', 'key']);
    t.index(['created_at']);
  });
  await knex.schema.createTable('sandbox_registry', (t) => {
    t.string('domain', 253).primary();
    t.string('registered_until', 10).notNullable();
    t.text('status').notNullable();
    t.text('nameservers').notNullable();
    t.string('transfer_code', 40).notNullable();
  });
  await knex.schema.createTable('sandbox_registry_transactions', (t) => {
    t.string('client_transaction_id', 100).primary();
    t.string('op', 20).notNullable();
    t.string('domain', 253).notNullable();
    t.text('result').notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [
    'sandbox_registry_transactions',
    'sandbox_registry',
    'idempotency_keys',
    'events',
    'notices',
    'ledger_entries',
    'domain_labels',
    'domains',
    'api_keys',
    'sessions',
    'people',
    'accounts',
  ]) {
    await knex.schema.dropTableIfExists(table);
  }
}
