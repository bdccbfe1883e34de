import { existsSync } from 'node:fs';
import type { Knex } from 'knex';
import { SqlChangeFeed } from './change-feed.js';
import { createKnex, engineOf, type Engine, type StoreConfig } from './connection.js';
import { SqlZoneRepository } from './repositories/dns.repository.js';
import { SqlZoneSignatureRepository } from './repositories/dnssec-signatures.repository.js';
import { SqliteReader } from './sqlite-reader.js';
import { KnexUnitOfWork } from './unit-of-work.js';

/**
 * The SQLite page cache of a DNS server's connection, KB: it reads every zone once at start, then only what
 * changed, so SQLite's default 2 000 KB would hold pages of that first read in every DNS worker for good
 * (measured: 6 MB more of a worker's memory after loading 10 000 zones, 1 MB with this).
 */
const DNS_SQLITE_CACHE_KB = 256;

/**
 * The part of the store a DNS server reads: the zones, their signatures and the change feed that says
 * when either changed — built as SqlStore builds them, without the other repositories (a DNS cluster
 * worker loads nothing else). It never migrates: the process that forked it did.
 */
export class SqlDnsStore {
  readonly knex: Knex;
  readonly engine: Engine;
  readonly changes: SqlChangeFeed;
  readonly zones: SqlZoneRepository;
  readonly signatures: SqlZoneSignatureRepository;

  private readonly url: string;

  constructor(config: StoreConfig) {
    this.url = config.url;
    this.engine = engineOf(config.url);
    this.knex = createKnex({ sqliteCacheKb: DNS_SQLITE_CACHE_KB, ...config });
    const uow = new KnexUnitOfWork(this.knex);
    this.changes = new SqlChangeFeed(uow, {
      engine: this.engine,
      url: config.url,
      ...(config.schema ? { schema: config.schema } : {}),
      reader: this.engine === 'sqlite' && config.url !== ':memory:' ? new SqliteReader(config.url) : null,
    });
    this.zones = new SqlZoneRepository(uow, this.changes);
    this.signatures = new SqlZoneSignatureRepository(uow, this.changes);
  }

  /**
   * Which migrations the store holds, as a mark that any migration applied (or undone) changes; null when
   * there is no store yet (no SQLite file: it is not created here, or no migration table). A DNS worker
   * compares two to learn whether what it read in between was read from the schema it knows.
   */
  async schemaMark(): Promise<string | null> {
    if (this.engine === 'sqlite' && !existsSync(this.url)) return null;
    try {
      const rows = (await this.knex('knex_migrations').count({ n: '*' }).max({ last: 'id' })) as Array<{
        n: number | string;
        last: number | string | null;
      }>;
      return `${Number(rows[0]?.n ?? 0)}/${rows[0]?.last ?? ''}`;
    } catch {
      return null;
    }
  }

  async close(): Promise<void> {
    await this.changes.close();
    await this.knex.destroy();
  }
}
