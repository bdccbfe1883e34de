import type { Knex } from 'knex';

/**
 * DNS UPDATE (RFC 2136) with TSIG (RFC 8945): a key holding a DNS right carries a TSIG credential — a
 * name unique across keys (stored lower case, so DNS's case-insensitive comparison cannot make two keys
 * collide), the algorithm chosen at issuance, and the secret sealed by the secret box (it must be read
 * back to check MACs, so it cannot be hashed). Seen MACs are kept a while to refuse replays, in the store
 * so that every DNS worker shares them.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_keys', (t) => {
    t.string('tsig_name', 255).nullable().unique();
    t.string('tsig_algorithm', 20).nullable();
    t.text('tsig_secret').nullable();
  });
  await knex.schema.createTable('tsig_replays', (t) => {
    t.string('key_id', 40).notNullable();
    t.string('mac', 200).notNullable();
    t.bigInteger('time_signed').notNullable();
    t.string('seen_at', 40).notNullable();
    t.primary(['key_id', 'mac']);
    t.index(['seen_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('tsig_replays');
  await knex.schema.alterTable('api_keys', (t) => {
    t.dropUnique(['tsig_name']);
  });
  await knex.schema.alterTable('api_keys', (t) => {
    t.dropColumn('tsig_name');
    t.dropColumn('tsig_algorithm');
    t.dropColumn('tsig_secret');
  });
}
