import type { Knex } from 'knex';

/**
 * `dnssec_zones.foreign_keys`: other operators' DNSKEYs that the zone's DNSKEY set carries while a signed
 * zone moves between operators (RFC 8901 model 2). JSON: [{tag, algorithm, flags, publicKey, addedAt, note}];
 * public keys only. Null: none. `operations.kind` widens for `dnssec_foreign_key_remove` (25 characters).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('dnssec_zones', (t) => {
    t.text('foreign_keys').nullable();
  });
  await knex.schema.alterTable('operations', (t) => {
    t.string('kind', 40).notNullable().alter();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('dnssec_zones', (t) => t.dropColumn('foreign_keys'));
}
