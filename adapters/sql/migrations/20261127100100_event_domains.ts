import type { Knex } from 'knex';

/**
 * `event_domains`: every domain a published event is about, one row each (events.domain keeps the first,
 * events.domains the whole list as JSON for the payload). The event log shows an event to a key only when the
 * key may read every one of them — the rule of the certificates list — and checks the domains past the
 * first through this table's primary key (event, domain), one indexed lookup per row read; (account,
 * environment, domain, pub_seq) reads one domain's events in cursor order. Written by the publisher with
 * the cursor position; filled here for the events already published, from their stored list. Rows go with
 * their event (retention deletes events; ON DELETE CASCADE).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('event_domains', (t) => {
    t.string('event_id', 40).notNullable().references('id').inTable('events').onDelete('CASCADE');
    t.string('account_id', 40).notNullable();
    t.string('environment', 4).notNullable();
    t.string('domain', 253).notNullable();
    t.bigInteger('pub_seq').notNullable();
    t.primary(['event_id', 'domain']);
    t.index(['account_id', 'environment', 'domain', 'pub_seq'], 'event_domains_account_domain_pub_seq');
  });
  type Row = {
    seq: number | string;
    id: string;
    account_id: string;
    environment: string;
    domain: string;
    domains: string | null;
    pub_seq: number | string;
  };
  for (let after: number | string = 0, more = true; more;) {
    const events: Row[] = await knex('events')
      .select('seq', 'id', 'account_id', 'environment', 'domain', 'domains', 'pub_seq')
      .where('seq', '>', after)
      .whereNotNull('pub_seq')
      .whereNotNull('domain')
      .orderBy('seq', 'asc')
      .limit(1000);
    more = events.length === 1000;
    if (events.length > 0) after = events[events.length - 1]!.seq;
    const rows = events.flatMap((e) =>
      [...new Set(e.domains ? (JSON.parse(e.domains) as string[]) : [e.domain])].map((domain) => ({
        event_id: e.id,
        account_id: e.account_id,
        environment: e.environment,
        domain,
        pub_seq: e.pub_seq,
      })),
    );
    for (let i = 0; i < rows.length; i += 200) await knex('event_domains').insert(rows.slice(i, i + 200));
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('event_domains');
}
