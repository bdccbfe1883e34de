import { SqlTsigReplays } from './repositories/tsig-replays.repository.js';
import type { Knex } from 'knex';
import { createKnex, engineOf, type Engine, type StoreConfig } from './connection.js';
import { migrationSourceFor } from './migration-source.js';
import { SqlAccountRepository, SqlSessionRepository } from './repositories/accounts.repository.js';
import { SqlDomainRepository, type DomainFindRows } from './repositories/domains.repository.js';
import { SqlIdempotencyStore } from './repositories/idempotency.repository.js';
import { SqlKeyRepository } from './repositories/access.repository.js';
import { SqlLedger, SqlSavedCards, SqlSpendCounters, SqlWallets } from './repositories/billing.repository.js';
import { SqlEventLog } from './repositories/events.repository.js';
import { SqlNoticeRepository } from './repositories/notices.repository.js';
import { SqlNoticeOutbox } from './repositories/notices.repository.js';
import { SqlDomainLocks } from './repositories/domains.repository.js';
import { SqlSandboxClocks } from './repositories/sandbox.repository.js';
import { SqlTopUps } from './repositories/billing.repository.js';
import { SqlAcmeChallenges, SqlPlanRepository, SqlZoneRepository } from './repositories/dns.repository.js';
import { SqlZoneImports } from './repositories/dns-imports.repository.js';
import { SqlDnssecRepository } from './repositories/dnssec.repository.js';
import { SqlZoneSignatureRepository } from './repositories/dnssec-signatures.repository.js';
import { SqlCaMaterial, SqlCertificateRepository } from './repositories/certificates.repository.js';
import { SqlSandboxRegistryStore, SqlSimulatedParents } from './repositories/sandbox.repository.js';
import { SqlOperationRepository } from './repositories/operations.repository.js';
import { SqlTransferRepository } from './repositories/transfers.repository.js';
import { SqlMonitorRepository } from './repositories/monitoring.repository.js';
import { SqliteReader } from './sqlite-reader.js';
import { SqlCredentialAttempts } from './repositories/credential-attempts.repository.js';
import { KnexUnitOfWork } from './unit-of-work.js';
import { SqlMailbox, SqlPasswordResets } from './repositories/password-resets.repository.js';
import { SqlInvitationRepository, SqlPeopleRepository } from './repositories/accounts.repository.js';
import { SqlEventFeed } from './repositories/events.repository.js';
import { SqlWebhookRepository } from './repositories/webhooks.repository.js';
import { FeedCache, SqlChangeFeed } from './change-feed.js';
import type { ApiKey } from '../../core/kernel/caller.js';

export { engineOf, knexConfig, type Engine, type StoreConfig } from './connection.js';
export { migrationSourceFor } from './migration-source.js';
export { SqlChangeFeed, channelFor } from './change-feed.js';

const migrationLocked = (): Error => Object.assign(new Error('Migration table is already locked'), { name: 'MigrationLocked' });

/** The SQL store: one knex instance, its unit of work, and every repository over it. */
export class SqlStore {
  readonly knex: Knex;
  readonly engine: Engine;
  readonly uow: KnexUnitOfWork;
  readonly accounts: SqlAccountRepository;
  readonly sessions: SqlSessionRepository;
  readonly keys: SqlKeyRepository;
  readonly tsigReplays: SqlTsigReplays;
  readonly domains: SqlDomainRepository;
  readonly events: SqlEventLog;
  readonly notices: SqlNoticeRepository;
  readonly ledger: SqlLedger;
  readonly wallets: SqlWallets;
  readonly spend: SqlSpendCounters;
  readonly savedCards: SqlSavedCards;
  readonly outbox: SqlNoticeOutbox;
  readonly domainLocks: SqlDomainLocks;
  readonly sandboxClocks: SqlSandboxClocks;
  readonly topUps: SqlTopUps;
  readonly zones: SqlZoneRepository;
  readonly dnssec: SqlDnssecRepository;
  /** The RRSIGs of signed zones, made once by the signer and served by every DNS server. */
  readonly signatures: SqlZoneSignatureRepository;
  readonly plans: SqlPlanRepository;
  readonly zoneImports: SqlZoneImports;
  readonly acmeChallenges: SqlAcmeChallenges;
  readonly idempotency: SqlIdempotencyStore;
  readonly sandboxRegistry: SqlSandboxRegistryStore;
  readonly simulatedParents: SqlSimulatedParents;
  readonly certificates: SqlCertificateRepository;
  readonly caMaterial: SqlCaMaterial;
  readonly people: SqlPeopleRepository;
  readonly invitations: SqlInvitationRepository;
  readonly operations: SqlOperationRepository;
  readonly transfers: SqlTransferRepository;
  readonly eventFeed: SqlEventFeed;
  readonly webhooks: SqlWebhookRepository;
  readonly monitors: SqlMonitorRepository;
  readonly credentialAttempts: SqlCredentialAttempts;
  readonly passwordResets: SqlPasswordResets;
  readonly mailbox: SqlMailbox;
  private readonly reader: SqliteReader | null;
  /** Cross-process invalidation: LISTEN/NOTIFY on Postgres, a polled change log on SQLite. */
  readonly changes: SqlChangeFeed;

  constructor(config: StoreConfig) {
    this.engine = engineOf(config.url);
    this.knex = createKnex(config);
    this.uow = new KnexUnitOfWork(this.knex);
    this.accounts = new SqlAccountRepository(this.uow);
    this.sessions = new SqlSessionRepository(this.uow);
    // Hot reads on a SQLite file go through a read-only connection (see SqliteReader).
    this.reader = this.engine === 'sqlite' && config.url !== ':memory:' ? new SqliteReader(config.url) : null;
    this.changes = new SqlChangeFeed(this.uow, {
      engine: this.engine,
      url: config.url,
      ...(config.schema ? { schema: config.schema } : {}),
      reader: this.engine === 'sqlite' && config.url !== ':memory:' ? new SqliteReader(config.url) : null,
    });
    const keyCache = new FeedCache<ApiKey>(this.changes);
    const domainCache = new FeedCache<DomainFindRows>(this.changes, 50_000, (v) => v.domain?.id ?? null);
    this.changes.subscribe((c) => {
      if (c === null) {
        keyCache.clear();
        domainCache.clear();
      } else if (c.topic === 'key') keyCache.delete(c.ref);
      else if (c.topic === 'domain') domainCache.invalidate(c.ref);
    });
    this.keys = new SqlKeyRepository(this.uow, Date.now, keyCache, this.changes);
    this.domains = new SqlDomainRepository(this.uow, this.reader, this.engine, domainCache, this.changes);
    this.domainLocks = new SqlDomainLocks(this.domains);
    this.sandboxClocks = new SqlSandboxClocks(this.uow);
    this.topUps = new SqlTopUps(this.uow);
    this.zones = new SqlZoneRepository(this.uow, this.changes);
    this.dnssec = new SqlDnssecRepository(this.uow);
    this.signatures = new SqlZoneSignatureRepository(this.uow, this.changes);
    this.plans = new SqlPlanRepository(this.uow);
    this.zoneImports = new SqlZoneImports(this.uow);
    this.acmeChallenges = new SqlAcmeChallenges(this.uow);
    this.events = new SqlEventLog(this.uow);
    this.notices = new SqlNoticeRepository(this.uow);
    this.ledger = new SqlLedger(this.uow);
    this.wallets = new SqlWallets(this.uow);
    this.spend = new SqlSpendCounters(this.uow);
    this.savedCards = new SqlSavedCards(this.uow);
    this.outbox = new SqlNoticeOutbox(this.uow, this.engine);
    this.idempotency = new SqlIdempotencyStore(this.uow);
    this.sandboxRegistry = new SqlSandboxRegistryStore(this.uow);
    this.simulatedParents = new SqlSimulatedParents(this.uow);
    this.certificates = new SqlCertificateRepository(this.uow, this.engine);
    this.caMaterial = new SqlCaMaterial(this.uow);
    this.people = new SqlPeopleRepository(this.uow, (id, at, by) => this.keys.revoke(id, at, by));
    this.invitations = new SqlInvitationRepository(this.uow);
    this.operations = new SqlOperationRepository(this.uow, this.engine, this.changes);
    this.transfers = new SqlTransferRepository(this.uow, this.engine);
    this.eventFeed = new SqlEventFeed(this.uow, this.engine);
    this.webhooks = new SqlWebhookRepository(this.uow, this.engine);
    this.monitors = new SqlMonitorRepository(this.uow, this.engine);
    this.credentialAttempts = new SqlCredentialAttempts(this.uow, this.engine);
    this.tsigReplays = new SqlTsigReplays(this.uow);
    this.passwordResets = new SqlPasswordResets(this.uow);
    this.mailbox = new SqlMailbox(this.uow);
  }

  /**
   * Applies migrations. Several processes starting at once (API, worker, `npm run sandbox:key`) race for them.
   * On SQLite, each batch is one transaction begun IMMEDIATE (migrationSourceFor): the first takes the write
   * lock, and knex reads the list of done migrations again under it, so the others find nothing left to do.
   * On Postgres, a batch may hold a migration that runs outside a transaction (CREATE INDEX CONCURRENTLY), so
   * the processes take turns on an advisory lock of the schema they migrate. Whoever holds it is the only one
   * migrating. So, as long as every process that migrates does so through here (not the knex CLI, not a
   * rollback by hand, not an older version of this code), a knex lock row that another process can see set is
   * a leftover of a process killed in a batch run outside a transaction, and is cleared: it would otherwise
   * refuse every start for good. knex's MigrationLocked or a busy SQLite file is retried until `waitMs` has
   * passed. Nothing pending: nothing locked and nothing written (the steady state of every restart).
   */
  async migrate(waitMs = 120_000): Promise<void> {
    const deadline = Date.now() + waitMs;
    const source = migrationSourceFor(this.engine);
    for (let attempt = 1; ; attempt++) {
      try {
        const [, pending] = (await this.knex.migrate.list({ migrationSource: source })) as [unknown[], unknown[]];
        if (pending.length === 0) return;
        if (this.engine === 'sqlite') await this.migrateHoldingTurn(source);
        else if (!(await this.withMigrationTurn(deadline, () => this.migrateHoldingTurn(source)))) throw migrationLocked();
        return;
      } catch (err) {
        const race =
          (err as Error).name === 'MigrationLocked' ||
          /already (exists|locked)|duplicate key|SQLITE_BUSY|database is locked/i.test(String((err as Error).message));
        if (!race || Date.now() > deadline) {
          if (race) (err as Error).message += ` (waited ${Math.round(waitMs / 1000)} s for another process's migrations)`;
          throw err;
        }
        await new Promise((r) => setTimeout(r, Math.min(100 * attempt, 1000) + Math.random() * 100));
      }
    }
  }

  /** Clears a leftover knex lock (see `migrate`) and runs what is still pending. */
  private async migrateHoldingTurn(source: ReturnType<typeof migrationSourceFor>): Promise<void> {
    const [, pending] = (await this.knex.migrate.list({ migrationSource: source })) as [unknown[], unknown[]];
    if (pending.length === 0) return;
    // `list` made the table and its row — and every process that made it at once may have added one (knex looks
    // for a row, then inserts): with two rows knex reads the table as locked for good. One row is kept.
    await this.knex('knex_migrations_lock').whereNot('index', this.knex('knex_migrations_lock').min('index')).del();
    // One statement (knex's forceFreeMigrationsLock deletes the row, then inserts one: another process could
    // add its own row between the two).
    await this.knex('knex_migrations_lock').update({ is_locked: 0 });
    await this.knex.migrate.latest({ migrationSource: source });
  }

  /**
   * Runs `work` holding the migration advisory lock of the schema this store uses (Postgres): the schema as
   * the connection resolves it, whatever named it (DATABASE_SCHEMA, the role's search_path, the URL). It is
   * taken on a connection of the pool, held for the session, so the server releases it should this process
   * die. Waits for it until `deadline`; false when it never came.
   */
  private async withMigrationTurn(deadline: number, work: () => Promise<void>): Promise<boolean> {
    // Two keys: this application's, then the schema's (the one-key space is shared with everything else).
    const key = "hashtext('domivka.migrate'), hashtext(coalesce(current_schema(), ''))";
    const conn = await this.knex.client.acquireConnection();
    try {
      for (;;) {
        const got = await this.knex.raw(`select pg_try_advisory_lock(${key}) as got`).connection(conn);
        if ((got as { rows: Array<{ got: boolean }> }).rows[0]?.got) break;
        if (Date.now() > deadline) return false;
        await new Promise((r) => setTimeout(r, 100 + Math.random() * 100));
      }
      try {
        await work();
      } finally {
        // A connection lost meanwhile took its session's lock with it: nothing to release, and the batch's own
        // outcome (done, or its error) is what counts.
        await this.knex
          .raw(`select pg_advisory_unlock(${key})`)
          .connection(conn)
          .catch(() => undefined);
      }
      return true;
    } finally {
      await this.knex.client.releaseConnection(conn);
    }
  }

  async ping(): Promise<boolean> {
    try {
      await this.knex.raw('select 1');
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    await this.changes.close();
    this.reader?.close();
    await this.knex.destroy();
  }
}
