import type { ChangesJson, NewPlanRecord, PlanRecord } from '../../../core/dns/plans/plan.js';
import type {
  AcmeChallenge,
  AcmeChallengeRepository,
  PlanRepository,
  ZoneChange,
  ZoneHead,
  ZoneRepository,
  ZoneVersion,
  ZoneVersionMark,
  ZoneVersionsSince,
} from '../../../core/dns/ports/zone-repository.port.js';
import type { RecordSet, RecordType } from '../../../core/dns/zone/record-set.js';
import type { StoredZone } from '../../../core/dns/zone/zone.js';
import type { Environment } from '../../../core/kernel/environment.js';
import { bool, date, dateOrNull, iso, json, parse, rawRows } from '../rows.js';
import type { ChangeAnnouncer } from '../../../core/kernel/change-feed.port.js';
import type { KnexUnitOfWork } from '../unit-of-work.js';
import { zoneSigningOf } from '../../../core/dnssec/dnssec-state.js';
import { stateOf, type DnssecRow } from './dnssec.repository.js';

type ZoneRow = { id: string; account_id: string; environment: string; domain: string; serial: string | number; served?: unknown };
type Db = ReturnType<KnexUnitOfWork['db']>;

const isPostgres = (db: Db): boolean => (db.client as { dialect?: string }).dialect === 'postgresql';

/**
 * Zones hold up to ~100k record sets, and a plan reads its zone twice (plan, apply) and writes the changed
 * sets: so the sets travel as one JSON document per zone, built and taken apart by the database, not as
 * one row object (and one bound parameter list) per set.
 *
 * Read: one flat JSON array per zone, four items per set — name, type, ttl, values — ordered by name and
 * type; values is the stored `record_values` text, already JSON (written by JSON.stringify below). A flat
 * array of strings and numbers parses much faster than one of objects. SQLite reads the rows in primary
 * key order through an ordered sub-query (group_concat(… ORDER BY …) would sort them again in a temporary
 * B-tree, a third of the query at 100k sets); setsOf checks the order. The zone's serial comes in the same
 * statement (one snapshot): the sets are exactly those of that serial, which the API's zone cache relies on.
 */
const SETS_SQL = {
  sqlite:
    `select zone_id, (select serial from dns_zones z where z.id = s.zone_id) as serial, '[' || group_concat(json_quote(name) || ',' || json_quote(type) || ',' || ttl || ',' || record_values, ',') || ']' as sets ` +
    'from (select zone_id, name, type, ttl, record_values from dns_record_sets where zone_id in (#) order by zone_id, name, type) s group by zone_id',
  postgres:
    `select zone_id, (select serial from dns_zones z where z.id = s.zone_id) as serial, '[' || string_agg(to_json(name)::text || ',' || to_json(type)::text || ',' || ttl::text || ',' || record_values, ',' order by name, type) || ']' as sets ` +
    'from dns_record_sets s where zone_id in (#) group by zone_id',
};

const before = (a: RecordSet, b: RecordSet): boolean => a.name < b.name || (a.name === b.name && a.type < b.type);

/** The record sets of a flat [name, type, ttl, values, …] array, by name then type. */
const setsOf = (flat: unknown[], engine: 'sqlite' | 'postgres'): RecordSet[] => {
  const out: RecordSet[] = new Array(flat.length / 4);
  let ordered = true;
  for (let i = 0, k = 0; i < flat.length; i += 4, k++) {
    out[k] = { name: flat[i] as string, type: flat[i + 1] as RecordType, ttl: Number(flat[i + 2]), values: flat[i + 3] as string[] };
    if (k > 0 && !before(out[k - 1]!, out[k]!)) ordered = false;
  }
  // SQLite's binary order is this order for any name we store; should it ever not be, order here.
  // (Postgres orders by its collation, as it always has.)
  if (!ordered && engine === 'sqlite') out.sort((a, b) => (before(a, b) ? -1 : before(b, a) ? 1 : 0));
  return out;
};

/**
 * Write: rows from one JSON array of [name, type, ttl, record_values text], in key order (the primary key
 * index then grows at its end instead of all over).
 */
const ROWS_SQL = {
  sqlite: 'select ?, value ->> 0, value ->> 1, value ->> 2, value ->> 3 from json_each(?) where true order by value ->> 0, value ->> 1',
  postgres:
    'select ?::text, r ->> 0, r ->> 1, (r ->> 2)::integer, r ->> 3 from json_array_elements(?::json) as r order by r ->> 0, r ->> 1',
};
const UPSERT = ' on conflict (zone_id, name, type) do update set ttl = excluded.ttl, record_values = excluded.record_values';
const INSERT = 'insert into dns_record_sets (zone_id, name, type, ttl, record_values) ';
const DELETE_SQL = {
  sqlite: 'delete from dns_record_sets where zone_id = ? and (name, type) in (select value ->> 0, value ->> 1 from json_each(?))',
  postgres:
    'delete from dns_record_sets where zone_id = ? and (name, type) in (select r ->> 0, r ->> 1 from json_array_elements(?::json) as r)',
};

/**
 * The value `dns_zones.change_seq` takes when a zone's row is written (migration 20261127090000): Postgres,
 * the writing transaction's id; SQLite, one more than the highest so far (writers are serialised).
 */
const changeSeq = (db: Db) =>
  db.raw(isPostgres(db) ? 'pg_current_xact_id()::text::bigint' : '(select coalesce(max(change_seq), 0) + 1 from dns_zones)');

/**
 * The change log (migration 20261127160000): a commit of at most this many sets is logged. A larger one (an
 * import) is not worth it: a DNS worker compiles a zone changed that much whole anyway (incremental.ts
 * MAX_CHANGES), from a whole read.
 */
const CHANGE_LOG_MAX_SETS = 1000;
/**
 * How long a commit's change is kept, and how many of a zone's last commits: a DNS worker syncs within
 * milliseconds of each commit (the API waits for it); one further behind reads the whole zone. So a zone
 * keeps at most this many rows whatever its history.
 */
const CHANGE_LOG_KEEP_MS = 5 * 60_000;
const CHANGE_LOG_KEEP_COMMITS = 16;
/** The most commits a reader follows from the serial it serves (the log keeps no more). */
const CHANGE_LOG_MAX_HOPS = CHANGE_LOG_KEEP_COMMITS;

/** A change as the log stores it: the written sets as [name, type, ttl, values], the removed ones as [name, type]. */
interface ChangeJson {
  readonly u: Array<[string, RecordType, number, string[]]>;
  readonly d: Array<[string, RecordType]>;
}

type VersionRow = {
  id: string;
  domain: string;
  environment: string;
  serial: string | number;
  served: unknown;
  change_seq: string | number;
};
const versionOf = (r: VersionRow): ZoneVersion => ({
  id: r.id,
  domain: r.domain,
  // The literal, not the row's copy of it: a DNS server keeps a version of every zone.
  environment: r.environment === 'live' ? 'live' : r.environment === 'test' ? 'test' : (r.environment as Environment),
  serial: Number(r.serial),
  served: bool(r.served),
});

const rowsJson = (sets: readonly RecordSet[]): string => json(sets.map((s) => [s.name, s.type, s.ttl, json(s.values)]));

export class SqlZoneRepository implements ZoneRepository {
  /** announcer: every zone write is announced in its transaction, so the DNS process re-reads it on commit. */
  constructor(
    private readonly uow: KnexUnitOfWork,
    private readonly announcer: ChangeAnnouncer | null = null,
  ) {}

  async lock(accountId: string, environment: Environment, domain: string): Promise<void> {
    const db = this.uow.db();
    if (isPostgres(db)) await db('dns_zones').select('id').where({ account_id: accountId, environment, domain }).forUpdate();
  }

  private async withSets(zones: ZoneRow[]): Promise<StoredZone[]> {
    if (zones.length === 0) return [];
    const db = this.uow.db();
    const engine = isPostgres(db) ? 'postgres' : 'sqlite';
    const byZone = new Map<string, RecordSet[]>();
    const serials = new Map<string, number>();
    // Chunked: SQLite limits bound parameters.
    for (let i = 0; i < zones.length; i += 500) {
      const ids = zones.slice(i, i + 500).map((z) => z.id);
      const rows = await rawRows<{ zone_id: string; serial: string | number; sets: string }>(
        db,
        SETS_SQL[engine].replace('#', ids.map(() => '?').join(', ')),
        ids,
      );
      for (const r of rows) {
        byZone.set(r.zone_id, setsOf(parse<unknown[]>(r.sets), engine));
        serials.set(r.zone_id, Number(r.serial));
      }
    }
    return (await this.heads(zones)).map((h) => ({ ...h, serial: serials.get(h.id) ?? h.serial, recordSets: byZone.get(h.id) ?? [] }));
  }

  /** The zones' rows, with what the nameserver signs a signed zone with; no record sets. */
  private async heads(zones: ZoneRow[]): Promise<ZoneHead[]> {
    const db = this.uow.db();
    // Signed zones carry what the nameserver signs them with (DNSSEC: keys sealed, the signature window).
    const signing = new Map<string, DnssecRow>();
    for (let i = 0; i < zones.length; i += 500) {
      const ids = zones.slice(i, i + 500).map((z) => z.id);
      const rows: DnssecRow[] = await db('dnssec_zones').whereIn('zone_id', ids);
      for (const r of rows) signing.set(r.zone_id, r);
    }
    return zones.map((z) => {
      const d = signing.get(z.id);
      return {
        id: z.id,
        accountId: z.account_id,
        environment: z.environment as Environment,
        domain: z.domain,
        serial: Number(z.serial),
        // Read back, or an unverified hosted zone would be published by the next change applied to it.
        ...(z.served !== undefined ? { served: bool(z.served) } : {}),
        ...(d ? { signing: zoneSigningOf(stateOf(d)) } : {}),
      };
    });
  }

  async head(accountId: string, environment: Environment, domain: string): Promise<ZoneHead | null> {
    const z: ZoneRow | undefined = await this.uow.db()('dns_zones').where({ account_id: accountId, environment, domain }).first();
    return z ? (await this.heads([z]))[0]! : null;
  }

  async find(accountId: string, environment: Environment, domain: string): Promise<StoredZone | null> {
    const z: ZoneRow | undefined = await this.uow.db()('dns_zones').where({ account_id: accountId, environment, domain }).first();
    return z ? (await this.withSets([z]))[0]! : null;
  }

  async findById(id: string): Promise<StoredZone | null> {
    const z: ZoneRow | undefined = await this.uow.db()('dns_zones').where({ id }).first();
    return z ? (await this.withSets([z]))[0]! : null;
  }

  /** The zones' rows, 500 ids a statement (SQLite limits bound parameters). */
  private async rowsByIds(ids: readonly string[]): Promise<ZoneRow[]> {
    const db = this.uow.db();
    const rows: ZoneRow[] = [];
    for (let i = 0; i < ids.length; i += 500) rows.push(...((await db('dns_zones').whereIn('id', ids.slice(i, i + 500))) as ZoneRow[]));
    return rows;
  }

  async findByIds(ids: readonly string[]): Promise<StoredZone[]> {
    if (ids.length === 0) return [];
    return this.withSets(await this.rowsByIds(ids));
  }

  async versions(): Promise<ZoneVersion[]> {
    const rows: VersionRow[] = await this.uow.db()('dns_zones').select('id', 'domain', 'environment', 'serial', 'served', 'change_seq');
    return rows.map(versionOf);
  }

  /**
   * The membership (the catalog serial, which every create, remove and change of `served` bumps) is read
   * first: when it moved since the mark, every row is read (a removed zone has no row to show it); else
   * the rows whose change_seq is past the mark, through its index. Postgres: the mark is the oldest
   * transaction still running before the rows were read, and the next read takes the rows of that one and
   * later (`>=`): one that committed after this read is taken then. SQLite: the highest change_seq seen.
   */
  async versionsSince(mark: ZoneVersionMark | null, options: { readonly stamps?: boolean } = {}): Promise<ZoneVersionsSince> {
    const db = this.uow.db();
    const postgres = isPostgres(db);
    const membership = await this.catalogSerial();
    let horizon = 0;
    if (postgres) {
      const [r] = await rawRows<{ x: string | number }>(db, 'select pg_snapshot_xmin(pg_current_snapshot())::text::bigint as x', []);
      horizon = Number(r!.x);
    }
    const complete = mark === null || mark.membership !== membership;
    const q = db('dns_zones').select(
      'id',
      'domain',
      'environment',
      'serial',
      'served',
      'change_seq',
      ...(options.stamps ? ['updated_at'] : []),
    );
    if (!complete) q.where('change_seq', postgres ? '>=' : '>', mark.seq);
    const rows: Array<VersionRow & { updated_at?: string }> = await q;
    // SQLite's counter is one more than the highest row: a zone removed (and another written) between the
    // two reads could take a value at or below the mark. A removal moves the membership: read all again.
    if (!complete && (await this.catalogSerial()) !== membership) return this.versionsSince(null, options);
    let seq = complete ? 0 : mark.seq;
    if (postgres) seq = horizon;
    else for (const r of rows) seq = Math.max(seq, Number(r.change_seq));
    const read = { mark: { seq, membership }, complete, versions: rows.map(versionOf) };
    return options.stamps ? { ...read, stamps: new Map(rows.map((r) => [r.id, `${Number(r.serial)}/${r.updated_at}`])) } : read;
  }

  async setServed(zoneId: string, served: boolean): Promise<void> {
    const db = this.uow.db();
    const n = await db('dns_zones')
      .where({ id: zoneId })
      .whereNot({ served })
      .update({ served, change_seq: changeSeq(db) });
    if (n > 0) await this.bumpCatalog();
    await this.announcer?.announce('zone', zoneId);
  }

  async headsByIds(ids: readonly string[]): Promise<ZoneHead[]> {
    return this.heads(await this.rowsByIds(ids));
  }

  async versionStamps(): Promise<Map<string, string>> {
    const rows = await rawRows<{ id: string; serial: string | number; updated_at: string }>(
      this.uow.db(),
      'select id, serial, updated_at from dns_zones',
      [],
    );
    const stamps = new Map<string, string>();
    for (const r of rows) stamps.set(r.id, `${Number(r.serial)}/${r.updated_at}`);
    return stamps;
  }

  async signedAmong(ids: readonly string[]): Promise<Set<string>> {
    const db = this.uow.db();
    const signed = new Set<string>();
    if (ids.length > 500) {
      // Many ids (a signer's first load: every zone): one read of every signed zone's id (few: signing is a
      // zone's choice), kept where asked — not a query of 500 bound ids after another.
      const asked = new Set(ids);
      const rows = await rawRows<{ zone_id: string }>(db, 'select zone_id from dnssec_zones', []);
      for (const r of rows) if (asked.has(r.zone_id)) signed.add(r.zone_id);
      return signed;
    }
    for (let i = 0; i < ids.length; i += 500) {
      const rows: Array<{ zone_id: string }> = await db('dnssec_zones')
        .select('zone_id')
        .whereIn('zone_id', ids.slice(i, i + 500));
      for (const r of rows) signed.add(r.zone_id);
    }
    return signed;
  }

  /**
   * One read of the zone's row, then one indexed read per commit followed from `fromSerial` (one, as a rule:
   * a DNS worker syncs after every commit). The head is read first: every commit up to its serial is in the
   * log by then (each is written in its commit's transaction), so a chain that breaks before it is one the
   * log does not hold.
   */
  async changesSince(zoneId: string, fromSerial: number): Promise<{ head: ZoneHead; changes: ZoneChange[] } | null> {
    const db = this.uow.db();
    const z: ZoneRow | undefined = await db('dns_zones').where({ id: zoneId }).first();
    if (!z) return null;
    const [head] = await this.heads([z]);
    const changes: ZoneChange[] = [];
    for (let at = fromSerial; at !== head!.serial;) {
      if (changes.length >= CHANGE_LOG_MAX_HOPS) return null;
      const row: { serial: string | number; changes: string } | undefined = await db('dns_zone_changes')
        .where({ zone_id: zoneId, base_serial: at })
        .first('serial', 'changes');
      if (!row) return null;
      const c = parse<ChangeJson>(row.changes);
      at = Number(row.serial);
      changes.push({
        serial: at,
        upserts: c.u.map(([name, type, ttl, values]) => ({ name, type, ttl, values })),
        deletes: c.d.map(([name, type]) => ({ name, type })),
      });
    }
    return { head: head!, changes };
  }

  async all(): Promise<StoredZone[]> {
    return this.withSets(await this.uow.db()('dns_zones').where({ served: true }).orderBy('domain'));
  }

  async create(zone: StoredZone): Promise<void> {
    const db = this.uow.db();
    await db('dns_zones').insert({
      id: zone.id,
      account_id: zone.accountId,
      environment: zone.environment,
      domain: zone.domain,
      serial: zone.serial,
      updated_at: iso(new Date()),
      served: zone.served ?? true,
      change_seq: changeSeq(db),
    });
    if (zone.recordSets.length > 0)
      await db.raw(INSERT + ROWS_SQL[isPostgres(db) ? 'postgres' : 'sqlite'], [zone.id, rowsJson(zone.recordSets)]);
    await this.bumpCatalog();
    await this.announcer?.announce('zone', zone.id);
  }

  async commit(
    zoneId: string,
    expectedSerial: number,
    serial: number,
    upserts: readonly RecordSet[],
    deletes: ReadonlyArray<{ name: string; type: RecordType }>,
    at: Date,
  ): Promise<boolean> {
    return this.uow.transaction(async () => {
      const db = this.uow.db();
      const engine = isPostgres(db) ? 'postgres' : 'sqlite';
      // The serial is the zone's version: a conditional update makes concurrent applies take turns.
      const n = await db('dns_zones')
        .where({ id: zoneId, serial: expectedSerial })
        .update({ serial, updated_at: iso(at), change_seq: changeSeq(db) });
      if (n === 0) return false;
      if (deletes.length > 0) await db.raw(DELETE_SQL[engine], [zoneId, json(deletes.map((d) => [d.name, d.type]))]);
      if (upserts.length > 0) await db.raw(INSERT + ROWS_SQL[engine] + UPSERT, [zoneId, rowsJson(upserts)]);
      await this.logChange(zoneId, expectedSerial, serial, upserts, deletes, at);
      await this.announcer?.announce('zone', zoneId);
      return true;
    });
  }

  /**
   * In the commit's transaction: the change, for the DNS workers that serve the zone at `baseSerial`
   * (changesSince), unless it is too large to be worth it; and the zone's changes older than the log keeps
   * (five minutes, or past its last 16 commits) go. A serial that comes round again (after 2^32 commits) replaces its old row.
   */
  private async logChange(
    zoneId: string,
    baseSerial: number,
    serial: number,
    upserts: readonly RecordSet[],
    deletes: ReadonlyArray<{ name: string; type: RecordType }>,
    at: Date,
  ): Promise<void> {
    const db = this.uow.db();
    // Serials step by one a commit (nextSerial): a base more than CHANGE_LOG_KEEP_COMMITS below is an older
    // commit (around the wrap of the serial space the time alone decides).
    const oldest = serial - CHANGE_LOG_KEEP_COMMITS;
    await db('dns_zone_changes')
      .where('zone_id', zoneId)
      .where((q) => {
        q.where('created_at', '<', iso(new Date(at.getTime() - CHANGE_LOG_KEEP_MS)));
        if (oldest > 0) q.orWhere('base_serial', '<', oldest);
      })
      .delete();
    if (upserts.length + deletes.length > CHANGE_LOG_MAX_SETS) return;
    const change: ChangeJson = {
      u: upserts.map((s) => [s.name, s.type, s.ttl, [...s.values]]),
      d: deletes.map((d) => [d.name, d.type]),
    };
    await db('dns_zone_changes')
      .insert({ zone_id: zoneId, base_serial: baseSerial, serial, changes: json(change), created_at: iso(at) })
      .onConflict(['zone_id', 'base_serial'])
      .merge(['serial', 'changes', 'created_at']);
  }

  async remove(zoneId: string): Promise<void> {
    if ((await this.uow.db()('dns_zones').where({ id: zoneId }).delete()) > 0) await this.bumpCatalog();
    await this.announcer?.announce('zone', zoneId);
  }

  /** The catalog zone's version (adapters/dns/catalog.ts): every DNS worker reads the same one. */
  async catalogSerial(): Promise<number> {
    const row = await this.uow.db()('dns_catalog').where({ id: 1 }).first('serial');
    return row ? Number(row.serial) : 1;
  }

  /**
   * In the caller's transaction: the zone set changed, so the catalog gets a new serial (wrapping below
   * 2^32). One atomic UPDATE: concurrent writers queue on the row and each gets its own serial.
   */
  private async bumpCatalog(): Promise<void> {
    await this.uow.db().raw('update dns_catalog set serial = (serial % 4294967295) + 1 where id = 1');
  }
}

export class SqlPlanRepository implements PlanRepository {
  constructor(private readonly uow: KnexUnitOfWork) {}

  async insert(p: NewPlanRecord): Promise<void> {
    await this.uow
      .db()('dns_plans')
      .insert({
        id: p.id,
        account_id: p.accountId,
        environment: p.environment,
        domain: p.domain,
        key_id: p.keyId,
        source: p.source,
        base_serial: p.baseSerial,
        // An import's changes come as JSON text already (exactly what json() would make of the list).
        changes: Array.isArray(p.changes) ? json(p.changes) : (p.changes as ChangesJson).json,
        before_sets: json(p.before),
        checks: json(p.checks),
        valid: p.valid,
        created_at: iso(p.createdAt),
        expires_at: iso(p.expiresAt),
        // A DNS UPDATE's plan is stored already applied, in its commit (DnsPlans.createApplied).
        applied_at: p.appliedAt ? iso(p.appliedAt) : null,
      });
  }

  async find(accountId: string, environment: Environment, id: string): Promise<PlanRecord | null> {
    const r = await this.uow.db()('dns_plans').where({ id, account_id: accountId, environment }).first();
    if (!r) return null;
    return {
      id: r.id,
      accountId: r.account_id,
      environment: r.environment,
      domain: r.domain,
      keyId: r.key_id,
      source: r.source,
      baseSerial: Number(r.base_serial),
      changes: parse(r.changes),
      before: parse(r.before_sets),
      checks: parse(r.checks),
      valid: bool(r.valid),
      createdAt: date(r.created_at),
      expiresAt: date(r.expires_at),
      appliedAt: dateOrNull(r.applied_at),
    };
  }

  async markApplied(id: string, at: Date): Promise<boolean> {
    return (
      (await this.uow
        .db()('dns_plans')
        .where({ id })
        .whereNull('applied_at')
        .update({ applied_at: iso(at) })) > 0
    );
  }
}

export class SqlAcmeChallenges implements AcmeChallengeRepository {
  constructor(private readonly uow: KnexUnitOfWork) {}

  private toChallenge(r: Record<string, string>): AcmeChallenge {
    return {
      id: r.id!,
      zoneId: r.zone_id!,
      name: r.name!,
      value: r.value!,
      keyId: r.key_id ?? null,
      createdAt: date(r.created_at!),
      expiresAt: date(r.expires_at!),
    };
  }

  async insert(c: AcmeChallenge): Promise<void> {
    await this.uow
      .db()('acme_challenges')
      .insert({
        id: c.id,
        zone_id: c.zoneId,
        name: c.name,
        value: c.value,
        key_id: c.keyId,
        created_at: iso(c.createdAt),
        expires_at: iso(c.expiresAt),
      });
  }

  async find(id: string): Promise<AcmeChallenge | null> {
    const r = await this.uow.db()('acme_challenges').where({ id }).first();
    return r ? this.toChallenge(r) : null;
  }

  async remove(id: string): Promise<void> {
    await this.uow.db()('acme_challenges').where({ id }).delete();
  }

  async forName(zoneId: string, name: string): Promise<AcmeChallenge[]> {
    return (await this.uow.db()('acme_challenges').where({ zone_id: zoneId, name }).orderBy('id')).map((r: Record<string, string>) =>
      this.toChallenge(r),
    );
  }

  async forZone(zoneId: string): Promise<AcmeChallenge[]> {
    return (await this.uow.db()('acme_challenges').where({ zone_id: zoneId }).orderBy(['name', 'id'])).map((r: Record<string, string>) =>
      this.toChallenge(r),
    );
  }

  async expired(before: Date, limit: number): Promise<AcmeChallenge[]> {
    return (await this.uow.db()('acme_challenges').where('expires_at', '<', iso(before)).limit(limit)).map((r: Record<string, string>) =>
      this.toChallenge(r),
    );
  }
}
