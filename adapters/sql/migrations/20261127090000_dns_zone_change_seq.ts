import type { Knex } from 'knex';

/**
 * `dns_zones.change_seq`: where in the order of zone writes a zone's row was last written, so that a DNS
 * server asks for the rows written since it last looked (one indexed range) instead of reading every
 * zone's serial on every change. SQLite: one more than the highest number so far (writes are serialised,
 * so the numbers follow the commits). Postgres: the writing transaction's id (`pg_current_xact_id()`); a
 * reader remembers the oldest transaction still running when it read (its snapshot's xmin) and next asks
 * for the rows written by that one or later, so a transaction that committed after the read is never
 * skipped. Rows written before this migration hold 0 (a server's first read takes every row).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('dns_zones', (t) => {
    t.bigInteger('change_seq').notNullable().defaultTo(0);
    t.index(['change_seq'], 'dns_zones_change_seq');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('dns_zones', (t) => {
    t.dropIndex(['change_seq'], 'dns_zones_change_seq');
    t.dropColumn('change_seq');
  });
}
