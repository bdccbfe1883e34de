import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKnex, keepStatements } from '../../adapters/sql/connection.js';

describe('SQLite: prepared statements kept per connection (keepStatements)', () => {
  it('the same text gets the same statement; past the limit the least recently used goes', () => {
    let made = 0;
    const conn = { prepare: (sql: string) => ({ sql, n: ++made }) };
    keepStatements(conn, 2);
    const a = conn.prepare('select 1');
    expect(conn.prepare('select 1')).to.equal(a);
    const b = conn.prepare('select 2');
    expect(conn.prepare('select 1')).to.equal(a); // used last: 'select 2' is now the oldest
    conn.prepare('select 3');
    expect(conn.prepare('select 1')).to.equal(a);
    expect(conn.prepare('select 2')).to.not.equal(b); // gone, prepared again
    expect(made).to.equal(4);
  });

  it('through knex: kept statements see every write, run again after the table is dropped and made anew, and fail as before on a table gone', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sqlite-statements-'));
    const knex = createKnex({ url: join(dir, 'db.sqlite') });
    try {
      await knex.schema.createTable('t', (t) => {
        t.integer('id').primary();
        t.string('v');
      });
      for (let i = 0; i < 3; i++) await knex('t').insert({ id: i, v: `v${i}` });
      const read = () => knex('t').where('id', '>=', 0).orderBy('id').select('v');
      expect((await read()).map((r) => r.v)).to.deep.equal(['v0', 'v1', 'v2']);
      await knex('t').where({ id: 1 }).update({ v: 'changed' });
      expect((await read()).map((r) => r.v)).to.deep.equal(['v0', 'changed', 'v2']);
      await knex.transaction(async (trx) => {
        await trx('t').insert({ id: 3, v: 'in a transaction' });
      });
      expect(await read()).to.have.length(4);
      // The schema changes under a kept statement: SQLite prepares it again by itself.
      await knex.schema.dropTable('t');
      await read().then(
        () => expect.fail('a read of a dropped table must fail'),
        (err: Error) => expect(err.message).to.match(/no such table/),
      );
      await knex.schema.createTable('t', (t) => {
        t.integer('id').primary();
        t.string('v');
        t.string('extra');
      });
      await knex('t').insert({ id: 7, v: 'anew', extra: 'x' });
      expect((await read()).map((r) => r.v)).to.deep.equal(['anew']);
    } finally {
      await knex.destroy();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
