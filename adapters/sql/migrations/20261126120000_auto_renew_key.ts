import type { Knex } from 'knex';

/**
 * The key that switched a domain's automatic renewal on: the renewals that follow count against that
 * key's spend limit while the key is valid (null: switched on by no key — registration's default, the
 * demo seed — or switched off since).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('domains', (t) => {
    t.string('auto_renew_key_id', 40).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('domains', (t) => t.dropColumn('auto_renew_key_id'));
}
