import type { Knex } from 'knex';

/**
 * A zone's DNSSEC state: one row per signed zone, gone with the zone (cascade). The keys travel as one
 * JSON document (a zone holds one or two, three during a rollover); their private parts are sealed with
 * the secret box before they reach this table.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('dnssec_zones', (t) => {
    t.string('zone_id', 40).primary().references('dns_zones.id').onDelete('CASCADE');
    t.string('domain', 253).notNullable();
    t.integer('algorithm').notNullable();
    t.string('status', 12).notNullable();
    t.boolean('ds_at_parent').notNullable();
    t.string('window_start', 30).notNullable();
    t.string('enabled_at', 30).notNullable();
    t.text('keys').notNullable();
    t.index(['window_start']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('dnssec_zones');
}
