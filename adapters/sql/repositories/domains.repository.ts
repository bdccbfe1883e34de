import { AsyncLocalStorage } from 'node:async_hooks';
import { registrarOf, type Domain, type RegisteredDomain } from '../../../core/domains/domain.js';
import type { DomainListQuery, DomainRepository, DomainLocks } from '../../../core/domains/ports/domain-repository.port.js';
import type { Environment } from '../../../core/kernel/environment.js';
import { bool, date, iso, json, parse, rawRows } from '../rows.js';
import type { SqliteReader } from '../sqlite-reader.js';
import type { KnexUnitOfWork } from '../unit-of-work.js';
import type { ChangeAnnouncer } from '../../../core/kernel/change-feed.port.js';
import type { FeedCache } from '../change-feed.js';
import type { DomainHolders } from '../../../core/domains/ports/registry-messages.port.js';
import { randomUUID } from 'node:crypto';
import { DomainError } from '../../../core/kernel/errors.js';
import type { HostingProblem } from '../../../core/domains/hosting.js';

/** The unique index `domains_account_name_unique` (one row per name in an account), on either engine. */
const isAccountNameViolation = (err: unknown): boolean => {
  const e = err as { code?: string; constraint?: string; message?: string };
  if (e.code === '23505') return e.constraint === 'domains_account_name_unique';
  return /UNIQUE constraint failed: domains\.account_id, domains\.environment, domains\.name/i.test(e.message ?? '');
};

type FoundRow = DomainRow & { label: string | null };
/** What the domain read caches: the domain built from FIND_SQL's rows, or null (none); every read gets a copy. */
export type DomainFindRows = { readonly domain: Domain | null };

const copyOf = (d: Domain): Domain => ({
  ...d,
  labels: [...d.labels],
  status: [...d.status],
  nameservers: [...d.nameservers],
  createdAt: new Date(d.createdAt.getTime()),
});

type DomainRow = {
  id: string;
  account_id: string;
  environment: string;
  name: string;
  status: string;
  expires_on: string | null;
  auto_renew: unknown;
  transfer_lock: unknown;
  nameservers: string;
  created_at: string;
  auto_renew_failed_for?: string | null;
  auto_renew_key_id?: string | null;
  registrar?: string | null;
  hosting_status?: string | null;
  hosting_token?: string | null;
  hosting_checked_at?: string | null;
  hosting_problem?: string | null;
  hosting_proof?: string | null;
};

const HOSTING_COLUMNS = 'd.registrar, d.hosting_status, d.hosting_token, d.hosting_checked_at, d.hosting_problem, d.hosting_proof, ';

/** The hosting columns of a domain (all null for a registered one). */
const hostingRow = (d: Domain) => ({
  registrar: d.registrar ?? 'domivka',
  hosting_status: d.hosting?.status ?? null,
  hosting_token: d.hosting?.token ?? null,
  hosting_checked_at: d.hosting?.checkedAt ? iso(d.hosting.checkedAt) : null,
  hosting_problem: d.hosting?.problem ? json(d.hosting.problem) : null,
  hosting_proof: d.hosting?.proof ? json(d.hosting.proof) : null,
});

/** A domain row's columns as FIND_SQL and the list read them (alias d). */
const DOMAIN_COLUMNS =
  'd.id, d.account_id, d.environment, d.name, d.status, d.expires_on, d.auto_renew, d.transfer_lock, ' +
  'd.nameservers, d.created_at, d.auto_renew_failed_for, d.auto_renew_key_id, ' +
  HOSTING_COLUMNS;

/** One statement for a domain and its labels (a row per label; none → one row with a null label). */
const FIND_SQL =
  `select ${DOMAIN_COLUMNS}l.label as label from domains d left join domain_labels l on l.domain_id = d.id ` +
  'where d.account_id = ? and d.environment = ? and d.name = ?';
/**
 * Inside a transaction on Postgres the domain row is locked until commit: every read-modify-write of a
 * domain (update() writes the whole row) runs in a transaction, so two of them cannot interleave and
 * lose one's change (READ COMMITTED would let both read the same row). SQLite has one writer.
 */
const FIND_FOR_UPDATE_SQL = `${FIND_SQL} for update of d`;

/**
 * The one statement of SqlDomainRepository.list (null: the key sees no domain). Each stream is a SELECT of
 * (id, name) in name order with the page's LIMIT, on an index whose order is the name's: the domains'
 * (account, environment, name), the labels' (account, environment, label, name), or the named domains'
 * unique (account, environment, name) lookups. Their UNION (a domain in two streams is one row) is cut to the
 * page, then joined by primary key to the domain rows and their labels (one row a label, as FIND_SQL).
 * Scalar subqueries, not EXISTS, check a label (by the primary key (domain, label)): no planner turns them
 * into a scan.
 */
export const listStatement = (q: DomainListQuery): { sql: string; params: unknown[] } | null => {
  const scope = q.scope;
  const names = scope.all ? [] : [...new Set(scope.names)];
  const scopeLabels = scope.all ? [] : [...new Set(scope.labels)];
  if (!scope.all && names.length === 0 && scopeLabels.length === 0) return null;
  // A label filter the key's labels include lists that label's domains: every one of them is the key's.
  const keyChecked = !scope.all && !(q.label !== undefined && scopeLabels.includes(q.label));
  /** The conditions every stream adds on its rows (alias d: the domain row; `id`: the domain id column). */
  const extra = (id: string, withLabel: boolean): { sql: string; params: unknown[] } => {
    const conds: string[] = [];
    const params: unknown[] = [];
    if (q.after !== undefined) {
      conds.push(`${id === 'l.domain_id' ? 'l' : 'd'}.name > ?`);
      params.push(q.after);
    }
    if (q.registrar !== undefined) {
      conds.push('d.registrar = ?');
      params.push(q.registrar);
    }
    if (q.hostingStatus !== undefined) {
      conds.push('d.hosting_status = ?');
      params.push(q.hostingStatus);
    }
    if (withLabel && q.label !== undefined) {
      conds.push(`(select 1 from domain_labels x where x.domain_id = ${id} and x.label = ?) is not null`);
      params.push(q.label);
    }
    return { sql: conds.map((c) => ` and ${c}`).join(''), params };
  };
  const joinsDomain = q.registrar !== undefined || q.hostingStatus !== undefined;
  const streams: Array<{ sql: string; params: unknown[] }> = [];
  const labelStream = (label: string, checkLabel: boolean) => {
    const e = extra('l.domain_id', checkLabel);
    streams.push({
      sql:
        `select l.domain_id as id, l.name as name from domain_labels l${joinsDomain ? ' join domains d on d.id = l.domain_id' : ''} ` +
        `where l.account_id = ? and l.environment = ? and l.label = ?${e.sql} order by l.name limit ?`,
      params: [q.accountId, q.environment, label, ...e.params, q.limit],
    });
  };
  const domainStream = (among: readonly string[] | null, checkLabel: boolean) => {
    const e = extra('d.id', checkLabel);
    streams.push({
      sql:
        'select d.id as id, d.name as name from domains d where d.account_id = ? and d.environment = ?' +
        `${among ? ` and d.name in (${among.map(() => '?').join(', ')})` : ''}${e.sql} order by d.name limit ?`,
      params: [q.accountId, q.environment, ...(among ?? []), ...e.params, q.limit],
    });
  };
  if (!keyChecked) {
    if (q.label !== undefined) labelStream(q.label, false);
    else domainStream(null, false);
  } else {
    for (const label of scopeLabels) labelStream(label, true);
    if (names.length > 0) domainStream(names, true);
  }
  const union = streams.map((s, i) => `select id, name from (${s.sql}) as s${i}`).join(' union ');
  return {
    sql:
      `select ${DOMAIN_COLUMNS}l.label as label from (select id, name from (${union}) as u order by name limit ?) as p ` +
      'join domains d on d.id = p.id left join domain_labels l on l.domain_id = d.id order by p.name, l.label',
    params: [...streams.flatMap((s) => s.params), q.limit],
  };
};

export class SqlDomainRepository implements DomainRepository {
  /** Set while find() must read the store, not the cache (see `fresh`). */
  private readonly freshReads = new AsyncLocalStorage<true>();

  constructor(
    private readonly uow: KnexUnitOfWork,
    private readonly reader: SqliteReader | null = null,
    private readonly engine: 'sqlite' | 'postgres' = 'sqlite',
    /** The domain read's per-process cache; a domain's entries drop when any process announces its change. */
    private readonly cache: FeedCache<DomainFindRows> | null = null,
    private readonly announcer: ChangeAnnouncer | null = null,
  ) {}

  /** Announced in the writing transaction: every process drops its cached reads of this domain on commit. */
  private async changed(id: string): Promise<void> {
    this.cache?.invalidate(id);
    if (this.cache) this.uow.afterCommit(() => this.cache?.invalidate(id));
    await this.announcer?.announce('domain', id);
  }

  async insert(d: Domain): Promise<void> {
    const db = this.uow.db();
    try {
      await this.insertRow(d);
    } catch (err) {
      // Two requests for one name in one account (two hosted creates at once): the unique index decides,
      // and the loser hears the same 409 the check before it gives (named by the row it tried to add).
      if (isAccountNameViolation(err)) throw new DomainError('domain_already_yours', { domain: d.name, registrar: registrarOf(d) });
      throw err;
    }
    if (d.labels.length > 0)
      await db('domain_labels').insert(
        d.labels.map((label) => ({ domain_id: d.id, label, account_id: d.accountId, environment: d.environment, name: d.name })),
      );
    await this.changed(d.id);
  }

  private async insertRow(d: Domain): Promise<void> {
    await this.uow
      .db()('domains')
      .insert({
        id: d.id,
        account_id: d.accountId,
        environment: d.environment,
        name: d.name,
        status: json(d.status),
        expires_on: d.expiresOn,
        auto_renew: d.autoRenew,
        transfer_lock: d.transferLock,
        nameservers: json(d.nameservers),
        created_at: iso(d.createdAt),
        ...hostingRow(d),
      });
  }

  /**
   * Runs `fn` with every find() going to the store: for reads that a decision under a domain's lease rests
   * on (a renewal's current expiry). The cache may hold a copy from before another process's commit for
   * up to the change feed's delay.
   */
  fresh<T>(fn: () => Promise<T>): Promise<T> {
    return this.freshReads.run(true, fn);
  }

  cached(accountId: string, environment: Environment, name: string): Domain | null | undefined {
    if (!this.cache || this.uow.inTransaction() || this.freshReads.getStore()) return undefined;
    const hit = this.cache.get(`${accountId}\u0000${environment}\u0000${name}`);
    return hit === undefined ? undefined : hit.domain ? copyOf(hit.domain) : null;
  }

  async find(accountId: string, environment: Environment, name: string): Promise<Domain | null> {
    const params = [accountId, environment, name];
    const inTx = this.uow.inTransaction();
    const cacheKey = `${accountId}\u0000${environment}\u0000${name}`;
    const hit = inTx || this.freshReads.getStore() ? undefined : this.cache?.get(cacheKey);
    if (hit) return hit.domain ? copyOf(hit.domain) : null;
    const begun = this.cache?.begin() ?? 0;
    const rows =
      this.reader && !inTx
        ? this.reader.all<FoundRow>(FIND_SQL, params)
        : await rawRows<FoundRow>(this.uow.db(), inTx && this.engine === 'postgres' ? FIND_FOR_UPDATE_SQL : FIND_SQL, params);
    const domain = rows.length === 0 ? null : this.toDomain(rows[0]!, rows.flatMap((r) => (r.label === null ? [] : [r.label])).sort());
    if (!inTx && this.cache) this.cache.set(cacheKey, { domain: domain ? copyOf(domain) : null }, begun);
    return domain;
  }

  /**
   * A page of the domains the query asks for, in name order, in one statement whose cost is the page's,
   * not the account's or a label's: it merges sorted streams, each read from an index in name order from
   * the cursor and cut at the page's size — the account's domains (a key that sees all of them), one
   * label's domains (a `label` filter, or each label of a key's labelled policies: the label index
   * (account, environment, label, name)), the key's named domains — and reads the page's rows and their
   * labels by primary key. A label filter outside a key's labels is checked on the key's streams (a
   * primary-key lookup a row), so that the walk costs what the key sees. `registrar` and `hosting_status`
   * are checked on each stream's rows as it walks them.
   */
  async list(q: DomainListQuery): Promise<Domain[]> {
    const statement = listStatement(q);
    if (!statement) return [];
    const inTx = this.uow.inTransaction();
    const rows =
      this.reader && !inTx
        ? this.reader.all<FoundRow>(statement.sql, statement.params)
        : await rawRows<FoundRow>(this.uow.db(), statement.sql, statement.params);
    const out: Domain[] = [];
    for (let i = 0; i < rows.length;) {
      const first = rows[i]!;
      const labels: string[] = [];
      for (; i < rows.length && rows[i]!.id === first.id; i++) if (rows[i]!.label !== null) labels.push(rows[i]!.label!);
      out.push(this.toDomain(first, labels));
    }
    return out;
  }

  async held(accountId: string, environment: Environment, names: readonly string[]): Promise<string[]> {
    const out: string[] = [];
    for (let i = 0; i < names.length; i += 500) {
      const rows: Array<{ name: string }> = await this.uow
        .db()('domains')
        .select('name')
        .where({ account_id: accountId, environment })
        .whereIn('name', names.slice(i, i + 500));
      out.push(...rows.map((r) => r.name));
    }
    return out;
  }

  async update(d: Domain): Promise<void> {
    await this.uow
      .db()('domains')
      .where({ id: d.id })
      .update({
        status: json(d.status),
        expires_on: d.expiresOn,
        auto_renew: d.autoRenew,
        transfer_lock: d.transferLock,
        nameservers: json(d.nameservers),
        auto_renew_failed_for: d.autoRenewFailedFor ?? null,
        ...hostingRow(d),
        // Absent: a Domain built without it keeps the stored key (only SetAutoRenew decides it).
        ...(d.autoRenewKeyId !== undefined ? { auto_renew_key_id: d.autoRenewKeyId } : {}),
      });
    await this.changed(d.id);
  }

  private async withLabels(rows: DomainRow[]): Promise<Domain[]> {
    if (rows.length === 0) return [];
    const labels: Array<{ domain_id: string; label: string }> = await this.uow
      .db()('domain_labels')
      .whereIn(
        'domain_id',
        rows.map((r) => r.id),
      )
      .orderBy('label');
    return rows.map((r) =>
      this.toDomain(
        r,
        labels.filter((l) => l.domain_id === r.id).map((l) => l.label),
      ),
    );
  }

  async holdersOf(environment: Environment, name: string): Promise<Domain[]> {
    return this.withLabels(await this.uow.db()('domains').where({ environment, name }).orderBy('id'));
  }

  async countHosted(accountId: string, environment: Environment): Promise<number> {
    const row = await this.uow
      .db()('domains')
      .where({ account_id: accountId, environment, registrar: 'external' })
      .count({ n: '*' })
      .first();
    return Number((row as { n: number | string } | undefined)?.n ?? 0);
  }

  async activeHosted(after: { name: string; id: string } | null, limit: number): Promise<Domain[]> {
    const q = this.uow
      .db()('domains')
      .where({ registrar: 'external', hosting_status: 'active' })
      .orderBy([{ column: 'name' }, { column: 'id' }])
      .limit(limit);
    if (after)
      q.andWhere((w) => w.where('name', '>', after.name).orWhere((x) => x.where('name', '=', after.name).andWhere('id', '>', after.id)));
    return this.withLabels(await q);
  }

  async remove(id: string): Promise<void> {
    const db = this.uow.db();
    await db('domain_labels').where({ domain_id: id }).delete();
    await db('domains').where({ id }).delete();
    await this.changed(id);
  }

  async claimExpiring(q: {
    environment: Environment;
    accountId?: string;
    excludeAccounts?: readonly string[];
    until: string;
    after?: { expiresOn: string; id: string };
    ids?: readonly string[];
    now: Date;
    leaseUntil: Date;
    token: string;
    limit: number;
  }): Promise<RegisteredDomain[]> {
    if (q.ids && q.ids.length === 0) return [];
    const ids: string[] = await this.uow.transaction(async () => {
      const db = this.uow.db();
      const sel = db('domains')
        .select('id')
        // Hosted domains have no registration here: the lifecycle is another registrar's.
        .where({ environment: q.environment, registrar: 'domivka' })
        .andWhere((w) => w.whereNull('lock_expires_at').orWhere('lock_expires_at', '<', iso(q.now)))
        .orderBy([{ column: 'expires_on' }, { column: 'id' }])
        .limit(q.limit);
      if (q.ids) sel.whereIn('id', [...q.ids]);
      else sel.andWhere('expires_on', '<=', q.until);
      const after = q.after;
      if (after)
        sel.andWhere((w) =>
          w
            .where('expires_on', '>', after.expiresOn)
            .orWhere((x) => x.where('expires_on', '=', after.expiresOn).andWhere('id', '>', after.id)),
        );
      if (q.accountId) sel.andWhere({ account_id: q.accountId });
      if (q.excludeAccounts && q.excludeAccounts.length > 0) sel.whereNotIn('account_id', [...q.excludeAccounts]);
      if (this.engine === 'postgres') sel.forUpdate().skipLocked();
      const found = (await sel).map((r: { id: string }) => r.id);
      if (found.length > 0) {
        await db('domains')
          .whereIn('id', found)
          .update({ lock_token: q.token, lock_expires_at: iso(q.leaseUntil) });
      }
      return found;
    });
    if (ids.length === 0) return [];
    const db = this.uow.db();
    const rows: DomainRow[] = await db('domains')
      .whereIn('id', ids)
      .orderBy([{ column: 'expires_on' }, { column: 'id' }]);
    const labels: Array<{ domain_id: string; label: string }> = await db('domain_labels').whereIn('domain_id', ids).orderBy('label');
    return rows.map(
      (r) =>
        this.toDomain(
          r,
          labels.filter((l) => l.domain_id === r.id).map((l) => l.label),
        ) as RegisteredDomain,
    );
  }

  async releaseLease(id: string, token: string): Promise<void> {
    await this.uow.db()('domains').where({ id, lock_token: token }).update({ lock_token: null, lock_expires_at: null });
  }

  /** Takes the lease if it is free or ran out; false when someone else holds it. */
  async tryLease(id: string, token: string, now: Date, until: Date): Promise<boolean> {
    const n = await this.uow
      .db()('domains')
      .where({ id })
      .andWhere((w) => w.whereNull('lock_expires_at').orWhere('lock_expires_at', '<', iso(now)))
      .update({ lock_token: token, lock_expires_at: iso(until) });
    return n > 0;
  }

  private toDomain(r: DomainRow, labels: string[]): Domain {
    return {
      id: r.id,
      accountId: r.account_id,
      environment: r.environment as Environment,
      name: r.name,
      labels,
      status: parse<string[]>(r.status),
      expiresOn: r.expires_on,
      autoRenew: bool(r.auto_renew),
      transferLock: bool(r.transfer_lock),
      nameservers: parse<string[]>(r.nameservers),
      createdAt: date(r.created_at),
      autoRenewFailedFor: r.auto_renew_failed_for ?? null,
      autoRenewKeyId: r.auto_renew_key_id ?? null,
      registrar: r.registrar === 'external' ? 'external' : 'domivka',
      hosting:
        r.registrar === 'external' && r.hosting_status
          ? {
              status: r.hosting_status === 'active' ? 'active' : 'pending_delegation',
              token: r.hosting_token ?? '',
              checkedAt: r.hosting_checked_at ? date(r.hosting_checked_at) : null,
              problem: r.hosting_problem ? parse<HostingProblem>(r.hosting_problem) : null,
              proof: r.hosting_proof ? parse<{ nameservers: string[]; at: string }>(r.hosting_proof) : null,
            }
          : null,
    };
  }
}

/** Who holds a name in an environment (registry messages name domains, not accounts). */
export class SqlDomainHolders implements DomainHolders {
  constructor(private readonly uow: KnexUnitOfWork) {}

  async holderOf(environment: Environment, name: string): Promise<{ accountId: string; domainId: string } | null> {
    const row: { id: string; account_id: string } | undefined = await this.uow
      .db()('domains')
      .where({ environment, name: name.toLowerCase(), registrar: 'domivka' })
      .first('id', 'account_id');
    return row ? { accountId: row.account_id, domainId: row.id } : null;
  }
}

/**
 * Per-domain leases in the domains row. A caller waits (polling, with jitter) until the lease is free;
 * a lease left by a crashed process runs out after LEASE_MS. Works the same across processes on one
 * Postgres and on SQLite.
 */
export const LEASE_MS = 60_000;
const WAIT_MS = 30_000;

export class SqlDomainLocks implements DomainLocks {
  constructor(
    private readonly domains: SqlDomainRepository,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async withLock<T>(domainId: string, fn: () => Promise<T>): Promise<T> {
    const token = randomUUID();
    const started = Date.now();
    let delay = 5;
    for (;;) {
      const now = this.now();
      if (await this.domains.tryLease(domainId, token, now, new Date(now.getTime() + LEASE_MS))) break;
      if (Date.now() - started > WAIT_MS) throw new DomainError('operation_in_progress', { domain_id: domainId });
      await new Promise((r) => setTimeout(r, delay + Math.random() * delay));
      delay = Math.min(delay * 2, 100);
    }
    try {
      // Another process may have changed the domain just before we got the lease, and this process's
      // cached read may not have heard yet: decisions under the lease read the store.
      return await this.domains.fresh(fn);
    } finally {
      await this.domains.releaseLease(domainId, token);
    }
  }

  whileHeld<T>(fn: () => Promise<T>): Promise<T> {
    return this.domains.fresh(fn);
  }
}
