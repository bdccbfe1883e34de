import type { Knex } from 'knex';

/**
 * Zone imports (DESIGN "Zone import"): one row per job, read by GET …/dns/imports/{id}. A TSIG secret for
 * an AXFR pull is kept sealed only while the pull runs (tsig_sealed is set to null when it ends).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('dns_imports', (t) => {
    t.string('id', 40).primary();
    t.string('account_id', 40).notNullable();
    t.string('environment', 4).notNullable();
    t.string('domain', 253).notNullable();
    t.string('key_id', 12).notNullable();
    t.string('source', 10).notNullable();
    t.string('server', 300).nullable();
    t.text('tsig_sealed').nullable();
    t.string('status', 10).notNullable();
    t.integer('records_read').notNullable();
    t.text('skipped').notNullable();
    t.string('plan_id', 40).nullable();
    t.text('error').nullable();
    t.string('created_at', 30).notNullable();
    t.string('finished_at', 30).nullable();
    t.index(['account_id', 'environment', 'domain']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('dns_imports');
}
