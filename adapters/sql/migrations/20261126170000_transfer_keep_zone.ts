import type { Knex } from 'knex';

/**
 * A transfer out's owner choice: `keep_zone` set while it is under way keeps the domain's zone served as a
 * hosted domain when the name leaves (POST /v1/domains/{domain}/transfer-out/keep-zone); unset, the zone goes.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('domain_transfers', (t) => {
    t.boolean('keep_zone').notNullable().defaultTo(false);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('domain_transfers', (t) => {
    t.dropColumn('keep_zone');
  });
}
