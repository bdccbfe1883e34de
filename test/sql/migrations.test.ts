import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { migrationSourceFor, SqlStore } from '../../adapters/sql/index.js';
import { eachStore, type FreshStore } from '../support/stores.js';
import { ROOT } from '../support/server-process.js';
import { MIGRATION_NAMES } from '../../adapters/sql/migration-source.js';

eachStore('Migrations (both engines, up and down)', (kind) => {
  let fresh: FreshStore;
  let store: SqlStore;
  before(async () => {
    fresh = await kind.fresh();
    store = new SqlStore(fresh.connection);
  });
  after(async () => {
    await store.close();
    await fresh.drop();
  });

  const TABLES = [
    'accounts',
    'people',
    'sessions',
    'api_keys',
    'domains',
    'domain_labels',
    'ledger_entries',
    'notices',
    'events',
    'idempotency_keys',
    'sandbox_registry',
    'sandbox_registry_transactions',
  ];

  it('latest creates every table; running it again is a no-op', async () => {
    await store.migrate();
    for (const t of TABLES) expect(await store.knex.schema.hasTable(t), t).to.equal(true);
    await store.migrate();
    const [, pending] = await store.knex.migrate.list({ migrationSource: migrationSourceFor(store.engine) });
    expect(pending).to.deep.equal([]);
  });

  it('rollback drops them all, and latest brings them back', async () => {
    await store.knex.migrate.rollback({ migrationSource: migrationSourceFor(store.engine) }, true);
    for (const t of TABLES) expect(await store.knex.schema.hasTable(t), t).to.equal(false);
    await store.migrate();
    for (const t of TABLES) expect(await store.knex.schema.hasTable(t), t).to.equal(true);
  });

  it('one name per environment: the same domain cannot be held twice in one environment', async () => {
    await store.accounts.insertAccount({ id: 'a1', name: 'A', createdAt: new Date() });
    const d = {
      id: 'd1',
      accountId: 'a1',
      environment: 'test' as const,
      name: 'x.com',
      labels: [],
      status: ['ok'],
      expiresOn: '2027-01-01',
      autoRenew: false,
      transferLock: false,
      nameservers: [],
      createdAt: new Date(),
    };
    await store.domains.insert(d);
    let failed = false;
    try {
      await store.domains.insert({ ...d, id: 'd2' });
    } catch {
      failed = true;
    }
    expect(failed).to.equal(true);
    await store.domains.insert({ ...d, id: 'd3', environment: 'live' });
    expect((await store.domains.find('a1', 'live', 'x.com'))!.id).to.equal('d3');
    expect((await store.domains.find('a1', 'test', 'x.com'))!.id).to.equal('d1');
  });
});

const LAST = MIGRATION_NAMES.at(-1)!;
const pendingOf = async (store: SqlStore): Promise<unknown[]> =>
  ((await store.knex.migrate.list({ migrationSource: migrationSourceFor(store.engine) })) as [unknown[], unknown[]])[1];

/**
 * Processes that start on one store at once (`npm start` and `npm run worker`, the API and its DNS workers)
 * all migrate it. A CI run saw the API exit at its start with "duplicate column name" on a new SQLite file:
 * knex ran a batch holding a migration with `config.transaction: false` outside any transaction, and then
 * never looks at the done list again once it holds its lock, so the loser of the race re-ran every migration.
 */
eachStore('Migrations: processes starting at once, and a batch cut by a kill', (kind) => {
  it('no migration takes its whole batch out of the transaction on SQLite', async () => {
    const source = migrationSourceFor('sqlite');
    for (const m of await source.getMigrations([])) {
      const migration = (await source.getMigration(m)) as { config?: { transaction?: boolean } };
      expect(migration.config?.transaction, source.getMigrationName(m)).to.not.equal(false);
    }
    // Postgres still builds the retention indexes CONCURRENTLY, outside a transaction.
    const pg = migrationSourceFor('postgres');
    const retention = (await pg.getMigrations([])).find((m) => pg.getMigrationName(m).endsWith('_retention_indexes'))!;
    expect(((await pg.getMigration(retention)) as { config?: { transaction?: boolean } }).config?.transaction).to.equal(false);
  });

  it('four processes migrating a new store at once all succeed, and every migration is recorded once', async function () {
    this.timeout(120_000);
    const fresh = await kind.fresh();
    const script =
      `const { SqlStore } = await import(${JSON.stringify(join(ROOT, 'adapters/sql/index.ts'))});` +
      `const s = new SqlStore({ url: process.env.DATABASE_URL, ...(process.env.DATABASE_SCHEMA ? { schema: process.env.DATABASE_SCHEMA } : {}) });` +
      `await s.migrate(60000); await s.close();`;
    const env = { ...process.env, DATABASE_URL: fresh.url, ...(fresh.schema ? { DATABASE_SCHEMA: fresh.schema } : {}) };
    try {
      const runs = await Promise.all(
        [1, 2, 3, 4].map(
          () =>
            new Promise<{ code: number | null; err: string }>((resolve) => {
              const c = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
                cwd: ROOT,
                env,
                stdio: ['ignore', 'ignore', 'pipe'],
              });
              let err = '';
              c.stderr!.on('data', (d) => (err += d));
              c.on('exit', (code) => resolve({ code, err }));
            }),
        ),
      );
      for (const r of runs) expect(r.code, r.err).to.equal(0);
      const store = new SqlStore(fresh.connection);
      try {
        const rows = (await store.knex('knex_migrations').select('name')) as Array<{ name: string }>;
        expect(rows.map((r) => r.name).sort()).to.deep.equal([...MIGRATION_NAMES].sort());
        expect(await pendingOf(store)).to.deep.equal([]);
      } finally {
        await store.close();
      }
    } finally {
      await fresh.drop();
    }
  });

  it("knex's lock row left set by a process killed in a batch is cleared, and the next start migrates", async () => {
    const fresh = await kind.fresh();
    const store = new SqlStore(fresh.connection);
    try {
      await store.migrate();
      await store.knex.migrate.down({ migrationSource: migrationSourceFor(store.engine), name: LAST });
      await store.knex('knex_migrations_lock').update({ is_locked: 1 });
      await store.migrate(3_000);
      expect(await pendingOf(store)).to.deep.equal([]);
      expect(
        (await store.knex('knex_migrations_lock').select('is_locked')).map((r: { is_locked: number }) => Number(r.is_locked)),
      ).to.deep.equal([0]);
      // Nothing pending: a restart writes nothing, and leaves a lock row it sees alone.
      await store.knex('knex_migrations_lock').update({ is_locked: 1 });
      await store.migrate(3_000);
      expect((await store.knex('knex_migrations_lock').first('is_locked'))!.is_locked).to.satisfy((v: unknown) => Number(v) === 1);
    } finally {
      await store.close();
      await fresh.drop();
    }
  });

  it("knex's lock table given two rows by processes that made it at once is brought back to one, and the next start migrates", async () => {
    const fresh = await kind.fresh();
    const store = new SqlStore(fresh.connection);
    try {
      await store.migrate();
      await store.knex.migrate.down({ migrationSource: migrationSourceFor(store.engine), name: LAST });
      // What two processes listing a new store at once can leave: each added the table's row.
      await store.knex('knex_migrations_lock').insert({ is_locked: 0 });
      expect(await store.knex('knex_migrations_lock').select('is_locked')).to.have.length(2);
      await store.migrate(3_000);
      expect(await pendingOf(store)).to.deep.equal([]);
      expect(
        (await store.knex('knex_migrations_lock').select('is_locked')).map((r: { is_locked: number }) => Number(r.is_locked)),
      ).to.deep.equal([0]);
    } finally {
      await store.close();
      await fresh.drop();
    }
  });

  if (kind.engine === 'postgres')
    it('Postgres: an index build the kill cut short (INVALID) is built again by the next start, not kept', async () => {
      const fresh = await kind.fresh();
      const store = new SqlStore(fresh.connection);
      try {
        await store.migrate();
        const valid = async () =>
          (
            (await store.knex.raw(
              "select c.relname, i.indisvalid from pg_index i join pg_class c on c.oid = i.indexrelid where c.relname in ('events_occurred_at', 'webhook_deliveries_created_at') and c.relnamespace = current_schema()::regnamespace order by 1",
            )) as { rows: Array<{ relname: string; indisvalid: boolean }> }
          ).rows.map((r) => [r.relname, r.indisvalid]);
        const bothValid = [
          ['events_occurred_at', true],
          ['webhook_deliveries_created_at', true],
        ];
        expect(await valid()).to.deep.equal(bothValid);
        // What a kill during CREATE INDEX CONCURRENTLY leaves: the index INVALID, the migration not recorded.
        await store.knex.raw("update pg_index set indisvalid = false where indexrelid = 'events_occurred_at'::regclass");
        await store.knex('knex_migrations').where('name', 'like', '%_retention_indexes').del();
        await store.migrate();
        expect(await valid()).to.deep.equal(bothValid);
      } finally {
        await store.close();
        await fresh.drop();
      }
    });

  if (kind.engine === 'postgres')
    it("Postgres: a process waits for another's turn on the schema's migration lock, then finds its work done or does it", async () => {
      const fresh = await kind.fresh();
      const store = new SqlStore(fresh.connection);
      // The other process names the same schema another way: in its URL's search_path, not DATABASE_SCHEMA.
      const other = new SqlStore({
        url: `${fresh.url}${fresh.url.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${fresh.schema}`)}`,
      });
      try {
        await store.migrate();
        await store.knex.migrate.down({ migrationSource: migrationSourceFor(store.engine), name: LAST });
        const conn = await other.knex.client.acquireConnection();
        // The schema's turn, as SqlStore.migrate takes it (keyed by the schema the connection resolves).
        const key = "hashtext('domivka.migrate'), hashtext(coalesce(current_schema(), ''))";
        await other.knex.raw(`select pg_advisory_lock(${key})`).connection(conn);
        let done = false;
        const migrating = store.migrate(30_000).then(() => (done = true));
        await new Promise((r) => setTimeout(r, 700));
        expect(done, 'migrated while another process held the turn').to.equal(false);
        expect(await pendingOf(store)).to.have.length(1);
        await other.knex.raw(`select pg_advisory_unlock(${key})`).connection(conn);
        await other.knex.client.releaseConnection(conn);
        await migrating;
        expect(await pendingOf(store)).to.deep.equal([]);
        // A turn that never comes ends in MigrationLocked, with how long it waited.
        await store.knex.migrate.down({ migrationSource: migrationSourceFor(store.engine), name: LAST });
        const conn2 = await other.knex.client.acquireConnection();
        await other.knex.raw(`select pg_advisory_lock(${key})`).connection(conn2);
        const err = await store.migrate(500).then(
          () => null,
          (e: Error) => e,
        );
        await other.knex.raw(`select pg_advisory_unlock(${key})`).connection(conn2);
        await other.knex.client.releaseConnection(conn2);
        expect(err?.name).to.equal('MigrationLocked');
        expect(err?.message).to.match(/waited 1 s for another process's migrations/);
      } finally {
        await other.close();
        await store.close();
        await fresh.drop();
      }
    });
});
