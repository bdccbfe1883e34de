import type { Knex } from 'knex';

/**
 * The RRSIGs of signed zones, made once per zone version by the one signer and served by every DNS server
 * (core/dns/ports/zone-signature-repository.port.ts). `dnssec_signatures`: one row per RRset and key, its
 * digest (what it signs) and RRSIG RDATA (public data: answered to anyone), and the generation that wrote
 * it, so a server reads only what changed since its last read. `dnssec_signed_versions`: per zone, the
 * generation and the serial last signed; its conditional update lets one signer win when two race.
 * Both go with the zone (cascade).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('dnssec_signed_versions', (t) => {
    t.string('zone_id', 40).primary().references('dns_zones.id').onDelete('CASCADE');
    t.bigInteger('serial').notNullable();
    t.integer('generation').notNullable();
    t.string('signed_at', 30).notNullable();
  });
  await knex.schema.createTable('dnssec_signatures', (t) => {
    t.string('zone_id', 40).notNullable().references('dns_zones.id').onDelete('CASCADE');
    t.string('rrset', 300).notNullable();
    t.integer('key_tag').notNullable();
    t.string('digest', 24).notNullable();
    t.text('rdata').notNullable();
    t.integer('generation').notNullable();
    t.primary(['zone_id', 'rrset', 'key_tag']);
    t.index(['zone_id', 'generation']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('dnssec_signatures');
  await knex.schema.dropTableIfExists('dnssec_signed_versions');
}
