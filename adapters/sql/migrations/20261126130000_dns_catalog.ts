import type { Knex } from 'knex';

/**
 * The version of the catalog zone (RFC 9432) the DNS server offers its secondaries: one row, bumped in
 * the transaction that adds or removes a zone, so every DNS worker serves the same catalog serial.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('dns_catalog', (t) => {
    t.integer('id').primary();
    t.bigInteger('serial').notNullable();
  });
  await knex('dns_catalog').insert({ id: 1, serial: 1 });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('dns_catalog');
}
