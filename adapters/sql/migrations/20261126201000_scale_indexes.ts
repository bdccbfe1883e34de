import type { Knex } from 'knex';

/**
 * Reads whose cost follows what the caller sees, not what the account holds: the event log read per
 * domain in cursor order (a key that sees one domain reads that domain's events, not the whole log; account
 * events are the rows whose domain is null).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('events', (t) => {
    t.index(['account_id', 'environment', 'domain', 'pub_seq'], 'events_account_domain_pub_seq');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('events', (t) => {
    t.dropIndex(['account_id', 'environment', 'domain', 'pub_seq'], 'events_account_domain_pub_seq');
  });
}
