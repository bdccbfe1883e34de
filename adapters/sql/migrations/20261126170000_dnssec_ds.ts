import type { Knex } from 'knex';

/**
 * The DS at the registry. `sandbox_registry_ds`: the DS records the sandbox registry holds per name (what
 * the sandbox parent publishes), a table of its own so the registry's other columns stay as they are.
 * `dnssec_zones.stop_signing_at`: while DNSSEC is being switched off, when signing stops (the DS was
 * removed at the parent and its TTL must pass first); account time, null otherwise.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('sandbox_registry_ds', (t) => {
    t.string('domain', 253).primary();
    t.text('records').notNullable();
  });
  await knex.schema.alterTable('dnssec_zones', (t) => {
    t.string('stop_signing_at', 30).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('dnssec_zones', (t) => t.dropColumn('stop_signing_at'));
  await knex.schema.dropTableIfExists('sandbox_registry_ds');
}
