import type { Knex } from 'knex';

/**
 * DNSSEC schedules: `rollover` holds the rollover under way and the last finished one (JSON: steps and
 * their times); `next_step_at` is when the worker has something to do for the zone (the next rollover
 * step, or the end of signing while switching off), account time, indexed for the worker's pass.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('dnssec_zones', (t) => {
    t.text('rollover').nullable();
    t.string('next_step_at', 30).nullable();
    t.index(['next_step_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('dnssec_zones', (t) => {
    t.dropIndex(['next_step_at']);
    t.dropColumn('next_step_at');
    t.dropColumn('rollover');
  });
}
