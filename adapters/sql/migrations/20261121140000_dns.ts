import type { Knex } from 'knex';

/** DNS zones, record sets, plans and ACME challenge values. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('dns_zones', (t) => {
    t.string('id', 40).primary();
    t.string('account_id', 40).notNullable().references('accounts.id');
    t.string('environment', 4).notNullable();
    t.string('domain', 253).notNullable();
    t.bigInteger('serial').notNullable();
    t.string('updated_at', 30).notNullable();
    t.unique(['environment', 'domain']);
  });
  await knex.schema.createTable('dns_record_sets', (t) => {
    t.string('zone_id', 40).notNullable().references('dns_zones.id').onDelete('CASCADE');
    t.string('name', 255).notNullable();
    t.string('type', 10).notNullable();
    t.integer('ttl').notNullable();
    t.text('record_values').notNullable();
    t.primary(['zone_id', 'name', 'type']);
  });
  await knex.schema.createTable('dns_plans', (t) => {
    t.string('id', 40).primary();
    t.string('account_id', 40).notNullable();
    t.string('environment', 4).notNullable();
    t.string('domain', 253).notNullable();
    t.string('key_id', 12).notNullable();
    t.string('source', 10).notNullable();
    t.bigInteger('base_serial').notNullable();
    t.text('changes').notNullable();
    t.text('before_sets').notNullable();
    t.text('checks').notNullable();
    t.boolean('valid').notNullable();
    t.string('created_at', 30).notNullable();
    t.string('expires_at', 30).notNullable();
    t.string('applied_at', 30).nullable();
    t.index(['account_id', 'environment', 'domain']);
  });
  await knex.schema.createTable('acme_challenges', (t) => {
    t.string('id', 40).primary();
    t.string('zone_id', 40).notNullable().references('dns_zones.id').onDelete('CASCADE');
    t.string('name', 255).notNullable();
    t.text('value').notNullable();
    t.string('key_id', 12).nullable();
    t.string('created_at', 30).notNullable();
    t.string('expires_at', 30).notNullable();
    t.index(['zone_id', 'name']);
    t.index(['expires_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['acme_challenges', 'dns_plans', 'dns_record_sets', 'dns_zones']) await knex.schema.dropTableIfExists(table);
}
