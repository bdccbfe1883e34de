import type { Knex } from 'knex';

/**
 * `webhook_event_types`: each endpoint's subscribed public event names ('*' for all), one row each, so the
 * publisher reads only the endpoints that want a batch's types (an index on account, environment and type)
 * instead of every endpoint of the account. Written with the endpoint (webhooks.events stays the endpoint's
 * own list); filled here from webhooks.events for the endpoints that exist.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('webhook_event_types', (t) => {
    t.string('webhook_id', 40).notNullable().references('id').inTable('webhooks').onDelete('CASCADE');
    t.string('account_id', 40).notNullable();
    t.string('environment', 4).notNullable();
    t.string('event_type', 60).notNullable();
    t.primary(['webhook_id', 'event_type']);
    t.index(['account_id', 'environment', 'event_type'], 'webhook_event_types_account_type');
  });
  for (let after = '', more = true; more;) {
    const hooks: Array<{ id: string; account_id: string; environment: string; events: string }> = await knex('webhooks')
      .select('id', 'account_id', 'environment', 'events')
      .where('id', '>', after)
      .orderBy('id', 'asc')
      .limit(500);
    more = hooks.length === 500;
    if (hooks.length > 0) after = hooks[hooks.length - 1]!.id;
    const rows = hooks.flatMap((w) =>
      [...new Set(JSON.parse(w.events) as string[])].map((event_type) => ({
        webhook_id: w.id,
        account_id: w.account_id,
        environment: w.environment,
        event_type,
      })),
    );
    for (let i = 0; i < rows.length; i += 200) await knex('webhook_event_types').insert(rows.slice(i, i + 200));
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('webhook_event_types');
}
