import type { Knex } from 'knex';

/**
 * `dns_zone_changes`: what each commit of a zone changed — the record sets written and the names and types
 * removed — from the serial it was at (`base_serial`) to the one it made (`serial`), written in the
 * commit's transaction. A DNS worker that serves the zone at `base_serial` builds the next version from
 * the one it holds and this change, instead of reading the whole zone again: the cost of a sync grows with
 * the change, not with the zone (issue 22). A short log: rows older than five minutes, or past the zone's last
 * 16 commits, are removed by the commits of the same zone, and a change too large to be worth it (an import) is not logged — a worker
 * that finds no chain from what it serves reads the whole zone, as before.
 *
 * Keyed by zone and base serial: each serial of a zone has one successor (commits are conditional on the
 * serial), and a serial that comes round again (RFC 1982, after 2^32 changes) replaces its old row.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('dns_zone_changes', (t) => {
    t.string('zone_id', 40).notNullable().references('dns_zones.id').onDelete('CASCADE');
    t.bigInteger('base_serial').notNullable();
    t.bigInteger('serial').notNullable();
    t.text('changes').notNullable();
    t.string('created_at', 30).notNullable();
    t.primary(['zone_id', 'base_serial']);
    t.index(['zone_id', 'created_at'], 'dns_zone_changes_age');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('dns_zone_changes');
}
