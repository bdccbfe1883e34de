import type { Knex } from 'knex';

/** Certificates, their attempts, the sandbox CA's keys and ACME account keys. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('certificates', (t) => {
    t.string('id', 40).primary();
    t.string('account_id', 40).notNullable().references('accounts.id');
    t.string('environment', 4).notNullable();
    t.text('names').notNullable();
    t.string('status', 10).notNullable();
    t.string('ca', 10).notNullable();
    t.text('csr_pem').notNullable();
    t.text('key_sealed').nullable();
    t.text('chain_pem').nullable();
    t.string('not_before', 30).nullable();
    t.string('not_after', 30).nullable();
    t.string('issuer', 500).nullable();
    t.string('serial', 80).nullable();
    t.text('failure_reason').nullable();
    t.integer('attempts').notNullable().defaultTo(0);
    t.string('next_attempt_at', 30).nullable();
    t.string('renew_after', 30).nullable();
    t.boolean('auto_renew').notNullable();
    t.string('key_id', 12).nullable();
    t.string('created_at', 30).notNullable();
    t.string('updated_at', 30).notNullable();
    t.string('issued_at', 30).nullable();
    t.string('revoked_at', 30).nullable();
    t.string('lock_token', 40).nullable();
    t.string('lock_expires_at', 30).nullable();
    t.index(['account_id', 'environment', 'created_at']);
    t.index(['environment', 'status', 'next_attempt_at']);
    t.index(['environment', 'status', 'renew_after']);
  });
  await knex.schema.createTable('certificate_domains', (t) => {
    t.string('certificate_id', 40).notNullable().references('certificates.id').onDelete('CASCADE');
    t.string('environment', 4).notNullable();
    t.string('domain', 253).notNullable();
    t.string('created_at', 30).notNullable();
    t.primary(['certificate_id', 'domain']);
    t.index(['environment', 'domain', 'created_at']);
  });
  await knex.schema.createTable('certificate_attempts', (t) => {
    t.string('id', 40).primary();
    t.string('certificate_id', 40).notNullable().references('certificates.id').onDelete('CASCADE');
    t.string('kind', 8).notNullable();
    t.string('outcome', 8).notNullable();
    t.text('reason').nullable();
    t.string('started_at', 30).notNullable();
    t.string('finished_at', 30).notNullable();
    t.index(['certificate_id', 'started_at']);
  });
  // One row: the sandbox CA's root and issuing intermediate, private keys sealed with DATA_KEY.
  await knex.schema.createTable('sandbox_ca', (t) => {
    t.string('id', 10).primary();
    t.text('material').notNullable();
    t.string('created_at', 30).notNullable();
  });
  // ACME account keys, one per directory URL, sealed with DATA_KEY.
  await knex.schema.createTable('acme_accounts', (t) => {
    t.string('directory_url', 500).primary();
    t.text('key_sealed').notNullable();
    t.string('created_at', 30).notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['acme_accounts', 'sandbox_ca', 'certificate_attempts', 'certificate_domains', 'certificates'])
    await knex.schema.dropTableIfExists(table);
}
