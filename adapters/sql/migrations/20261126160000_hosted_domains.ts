import type { Knex } from 'knex';

/**
 * Hosted domains (DNS for a domain registered elsewhere): a domain row says who registered it
 * (`registrar`: domivka | external) and, when hosted, its verification state. Several accounts may claim
 * one name while it is unverified (a claim must not lock the rightful holder out), so "one holder per
 * name" becomes "one served holder per name": a partial unique index over registered domains and active
 * hosted ones, and over served zones (a pending hosted zone is stored, not answered).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('domains', (t) => {
    t.dropUnique(['environment', 'name']);
  });
  await knex.schema.alterTable('domains', (t) => {
    t.string('expires_on', 10).nullable().alter();
    t.string('registrar', 10).notNullable().defaultTo('domivka');
    t.string('hosting_status', 24).nullable();
    t.string('hosting_token', 64).nullable();
    t.string('hosting_checked_at', 30).nullable();
    t.text('hosting_problem').nullable();
    t.text('hosting_proof').nullable();
  });
  await knex.raw('create unique index domains_account_name_unique on domains (account_id, environment, name)');
  await knex.raw(
    "create unique index domains_served_name_unique on domains (environment, name) where registrar = 'domivka' or hosting_status = 'active'",
  );
  await knex.raw('create index domains_env_name on domains (environment, name)');
  await knex.schema.alterTable('dns_zones', (t) => {
    t.dropUnique(['environment', 'domain']);
  });
  await knex.schema.alterTable('dns_zones', (t) => {
    t.boolean('served').notNullable().defaultTo(true);
  });
  await knex.raw('create unique index dns_zones_account_domain_unique on dns_zones (account_id, environment, domain)');
  await knex.raw('create unique index dns_zones_served_unique on dns_zones (environment, domain) where served');
  // The sandbox's simulated parent zones: whether a hosted name is delegated (POST /v1/sandbox/delegations).
  await knex.schema.createTable('sandbox_delegations', (t) => {
    t.string('account_id', 40).notNullable();
    t.string('domain', 253).notNullable();
    t.boolean('delegated').notNullable();
    t.primary(['account_id', 'domain']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('sandbox_delegations');
  await knex.raw('drop index dns_zones_served_unique');
  await knex.raw('drop index dns_zones_account_domain_unique');
  await knex.schema.alterTable('dns_zones', (t) => t.dropColumn('served'));
  await knex.schema.alterTable('dns_zones', (t) => t.unique(['environment', 'domain']));
  await knex.raw('drop index domains_env_name');
  await knex.raw('drop index domains_served_name_unique');
  await knex.raw('drop index domains_account_name_unique');
  await knex('domains').where({ registrar: 'external' }).delete();
  await knex.schema.alterTable('domains', (t) => {
    for (const c of ['registrar', 'hosting_status', 'hosting_token', 'hosting_checked_at', 'hosting_problem', 'hosting_proof'])
      t.dropColumn(c);
  });
  await knex.schema.alterTable('domains', (t) => {
    t.string('expires_on', 10).notNullable().alter();
    t.unique(['environment', 'name']);
  });
}
