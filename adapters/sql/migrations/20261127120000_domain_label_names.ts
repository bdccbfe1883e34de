import type { Knex } from 'knex';

/**
 * A label row carries its domain's account, environment and name (a domain keeps all three for life: no
 * write changes them), so that a list by label reads the label's domains in name order straight from the
 * index (account, environment, label, name) and stops at the page's end — a page costs its size, not what
 * the account or the label holds. Filled here from the domains for the rows already there. Added NOT NULL
 * with a default of '' (SQLite adds no NOT NULL column without one); on Postgres the default is dropped
 * once the rows are filled, so that a writer that forgot a column fails there.
 *
 * The index on the label alone goes: every read of labels is an account's, and it drew Postgres without
 * statistics away from the primary key (domain, label) for "does this domain carry the label?" — to a walk of
 * every domain carrying it, per row checked.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('domain_labels', (t) => {
    t.string('account_id', 40).notNullable().defaultTo('');
    t.string('environment', 4).notNullable().defaultTo('');
    t.string('name', 253).notNullable().defaultTo('');
  });
  await knex.raw(
    'update domain_labels set ' +
      'account_id = (select d.account_id from domains d where d.id = domain_labels.domain_id), ' +
      'environment = (select d.environment from domains d where d.id = domain_labels.domain_id), ' +
      'name = (select d.name from domains d where d.id = domain_labels.domain_id)',
  );
  if ((knex.client as { dialect?: string }).dialect === 'postgresql')
    await knex.raw(
      'alter table domain_labels alter column account_id drop default, alter column environment drop default, alter column name drop default',
    );
  await knex.schema.alterTable('domain_labels', (t) => {
    t.index(['account_id', 'environment', 'label', 'name'], 'domain_labels_account_label_name');
    t.dropIndex(['label']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('domain_labels', (t) => {
    t.index(['label']);
    t.dropIndex(['account_id', 'environment', 'label', 'name'], 'domain_labels_account_label_name');
  });
  await knex.schema.alterTable('domain_labels', (t) => {
    t.dropColumn('name');
    t.dropColumn('environment');
    t.dropColumn('account_id');
  });
}
