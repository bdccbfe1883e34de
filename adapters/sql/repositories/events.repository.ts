import type { DomainEvent, EventType } from '../../../core/kernel/events.js';
import type { EventLog } from '../../../core/kernel/event-log.port.js';
import type { Environment } from '../../../core/kernel/environment.js';
import { date, iso, json, parse } from '../rows.js';
import type { KnexUnitOfWork } from '../unit-of-work.js';
import type { AssignedEvent, EventFeed, EventVisibility } from '../../../core/events/ports/event-feed.port.js';
import type { PublishedEvent } from '../../../core/events/public-event.js';
import type { Engine } from '../connection.js';
import type { Knex } from 'knex';

export class SqlEventLog implements EventLog {
  private readonly appended = new Set<() => void>();

  constructor(private readonly uow: KnexUnitOfWork) {}

  /**
   * Calls `listener` once a transaction that appended events commits (at once for an append outside one):
   * this process's webhook dispatcher wakes for them instead of polling for them. Returns the unsubscribe.
   */
  onAppended(listener: () => void): () => void {
    this.appended.add(listener);
    return () => void this.appended.delete(listener);
  }

  async append(e: DomainEvent): Promise<void> {
    await this.uow
      .db()('events')
      .insert({
        id: e.id,
        account_id: e.accountId,
        environment: e.environment,
        type: e.type,
        subject: e.subject,
        actor: e.actor,
        data: json(e.data),
        occurred_at: iso(e.occurredAt),
      });
    if (this.appended.size > 0) this.uow.afterCommit(() => this.appended.forEach((l) => l()));
  }
}

type Row = Record<string, unknown>;

const toEvent = (r: Row): DomainEvent & { environment: Environment | null } => ({
  id: r.id as string,
  accountId: r.account_id as string,
  environment: (r.environment as Environment | null) ?? null,
  type: r.type as EventType,
  subject: r.subject as string,
  actor: r.actor as string,
  data: parse<Record<string, unknown>>(r.data as string),
  occurredAt: date(r.occurred_at as string),
});

const toPublished = (r: Row): PublishedEvent => ({
  ...toEvent(r),
  environment: r.environment as Environment,
  pubSeq: String(r.pub_seq),
  domains: r.domains ? parse<string[]>(r.domains as string) : [],
});

/**
 * A condition on an `events` row: none of its event_domains rows (read by the primary key, event then
 * domain) matches `condition` (on alias o). Written as `(select 1 where not exists …) is not null`: Postgres
 * guesses that true for most rows, as it is, so a LIMIT above it stays cheap in its estimate — an
 * `(…) is null` is guessed true for 0.5 % of rows, which priced a page of 200 above the JIT thresholds
 * (2 s of compiling for a 2 ms read, measured on 40 000 events).
 */
const noDomainOfTheEvent = (condition: string): string =>
  `(select 1 where not exists (select 1 from event_domains o where o.event_id = events.id and ${condition})) is not null`;

/** The event log's published side (see the migration 20261124120000 for why pub_seq, not seq). */
export class SqlEventFeed implements EventFeed {
  constructor(
    private readonly uow: KnexUnitOfWork,
    private readonly engine: Engine,
  ) {}

  async takeUnpublished(limit: number): Promise<{ lastSeq: bigint; events: Array<DomainEvent & { environment: Environment | null }> }> {
    const db = this.uow.db();
    // The publisher lock: a row lock to commit on Postgres; on SQLite this write takes the database's write lock.
    await db('event_publisher')
      .where({ id: 1 })
      .update({ locked_at: iso(new Date()) });
    const state = await db('event_publisher').where({ id: 1 }).first('last_seq');
    const rows = await db('events').whereNull('published_at').orderBy('seq', 'asc').limit(limit);
    return { lastSeq: BigInt(state.last_seq), events: rows.map(toEvent) };
  }

  async assign(now: Date, rows: ReadonlyArray<AssignedEvent>, lastSeq: bigint): Promise<void> {
    const db = this.uow.db();
    const at = iso(now);
    const internal = rows.filter((r) => r.pubSeq === null).map((r) => r.id);
    for (let i = 0; i < internal.length; i += 500)
      await db('events')
        .whereIn('id', internal.slice(i, i + 500))
        .update({ published_at: at });
    const pub = rows.filter((r) => r.pubSeq !== null);
    if (this.engine === 'postgres') {
      for (let i = 0; i < pub.length; i += 500) {
        const chunk = pub.slice(i, i + 500);
        const values = chunk.map(() => '(?, ?::bigint, ?, ?, ?)').join(', ');
        const params = chunk.flatMap((r) => [
          r.id,
          r.pubSeq,
          r.publicType,
          r.domains[0] ?? null,
          r.domains.length ? JSON.stringify(r.domains) : null,
        ]);
        await db.raw(
          `update events as e set pub_seq = v.p, public_type = v.t, domain = v.d, domains = v.ds, published_at = ? from (values ${values}) as v(id, p, t, d, ds) where e.id = v.id`,
          [at, ...params],
        );
      }
    } else {
      // SQLite (≥ 3.33): one UPDATE … FROM a VALUES table per chunk instead of a statement per row.
      for (let i = 0; i < pub.length; i += 500) {
        const chunk = pub.slice(i, i + 500);
        const values = chunk.map(() => '(?, ?, ?, ?, ?)').join(', ');
        const params = chunk.flatMap((r) => [
          r.id,
          Number(r.pubSeq),
          r.publicType,
          r.domains[0] ?? null,
          r.domains.length ? JSON.stringify(r.domains) : null,
        ]);
        await db.raw(
          `with v(id, p, t, d, ds) as (values ${values}) update events set pub_seq = v.p, public_type = v.t, domain = v.d, domains = v.ds, published_at = ? from v where events.id = v.id`,
          [...params, at],
        );
      }
    }
    // Every domain of each numbered event, for the readers' every-domain check and ?domain=.
    const domains = pub.flatMap((r) =>
      [...new Set(r.domains)].map((domain) => ({
        event_id: r.id,
        account_id: r.accountId,
        environment: r.environment,
        domain,
        pub_seq: r.pubSeq,
      })),
    );
    for (let i = 0; i < domains.length; i += 500) await db('event_domains').insert(domains.slice(i, i + 500));
    await db('event_publisher').where({ id: 1 }).update({ last_seq: lastSeq.toString() });
  }

  /**
   * Two indexed reads merged in cursor order: domain events by (account, environment, domain, pub_seq) —
   * for a key that sees few domains, each one's events; else the key's named or labelled domains as a
   * filter — and account events (domain null) of the admitted types. Neither reads what the key cannot see.
   * An event about several domains passes only when every one is visible: its domains past the first are
   * looked up in event_domains by primary key, per row read.
   */
  async page(q: {
    accountId: string;
    environment: Environment;
    after: string | null;
    before?: string | null;
    order?: 'asc' | 'desc';
    types: readonly EventType[] | null;
    domain: string | null;
    visible: EventVisibility;
    limit: number;
  }): Promise<PublishedEvent[]> {
    const db = this.uow.db();
    const order = q.order ?? 'asc';
    /** SQLite without statistics walks the cursor index for ORDER BY … LIMIT; a few domains' events are read by domain. */
    const byDomain = (): Knex.QueryBuilder =>
      this.engine === 'sqlite' ? db.from(db.raw('events indexed by events_account_domain_pub_seq')) : db('events');
    const base = (from: () => Knex.QueryBuilder = () => db('events')) => {
      const query = from()
        .where({ account_id: q.accountId, environment: q.environment })
        .whereNotNull('pub_seq')
        .orderBy('pub_seq', order)
        .limit(q.limit);
      if (q.after !== null) query.andWhere('pub_seq', '>', q.after);
      if (q.before !== undefined && q.before !== null) query.andWhere('pub_seq', '<', q.before);
      if (q.types) query.whereIn('type', [...q.types]);
      if (q.domain)
        query.andWhere((b) => b.where('domain', q.domain!).orWhere('domains', 'like', `%"${q.domain!.replace(/[%_"]/g, '')}"%`));
      return query;
    };
    const reads: Array<Promise<Row[]>> = [];
    const v = q.visible.domains;
    if ('names' in v) {
      // The first domain among the names (the index read), and no other domain of the event outside them.
      if (v.names.length > 0)
        reads.push(
          base(byDomain)
            .whereIn('domain', [...v.names])
            .whereRaw(noDomainOfTheEvent(`o.domain not in (${v.names.map(() => '?').join(', ')})`), [...v.names]),
        );
    } else if (v.scope.all) {
      reads.push(base().whereNotNull('domain'));
    } else if (v.scope.names.length > 0 || v.scope.labels.length > 0) {
      // A key that sees many domains: each event in cursor order is checked by index (its domain named, or
      // carrying a label), so a page costs about its own length, whatever the account holds. Written as
      // scalar subqueries with LIMIT 1, which no planner turns into a join: an EXISTS became, on a Postgres
      // without statistics, a scan of the account's domains per event and a hash of every labelled domain.
      const named = v.scope.names.length > 0 ? `d.name in (${v.scope.names.map(() => '?').join(', ')})` : null;
      const labelled =
        v.scope.labels.length > 0
          ? `(select 1 from domain_labels l where l.domain_id = d.id and l.label in (${v.scope.labels.map(() => '?').join(', ')}) limit 1) is not null`
          : null;
      const readable = [named, labelled].filter((x) => x !== null).join(' or ');
      const binds = [...v.scope.names, ...v.scope.labels];
      // The first domain readable, and no other domain of the event (event_domains, by its primary key) that
      // is not: the same scalar lookup per domain.
      reads.push(
        base().whereRaw(
          '(select 1 from domains d where d.account_id = events.account_id and d.environment = events.environment ' +
            `and d.name = events.domain and (${readable}) limit 1) is not null and ` +
            noDomainOfTheEvent(
              'o.domain <> events.domain and (select 1 from domains d where d.account_id = events.account_id and ' +
                `d.environment = events.environment and d.name = o.domain and (${readable}) limit 1) is null`,
            ),
          [...binds, ...binds],
        ),
      );
    }
    if (q.visible.accountTypes.length > 0)
      reads.push(
        base()
          .whereNull('domain')
          .whereIn('type', [...q.visible.accountTypes]),
      );
    const rows: Row[] = [];
    for (const r of reads) rows.push(...(await r));
    const bySeq = (a: PublishedEvent, b: PublishedEvent) => (BigInt(a.pubSeq) < BigInt(b.pubSeq) ? -1 : 1);
    return rows
      .map(toPublished)
      .sort((a, b) => (order === 'asc' ? bySeq(a, b) : bySeq(b, a)))
      .slice(0, q.limit);
  }

  async get(accountId: string, id: string): Promise<PublishedEvent | null> {
    const r = await this.uow.db()('events').where({ account_id: accountId, id }).whereNotNull('pub_seq').first();
    return r ? toPublished(r) : null;
  }

  async getMany(ids: readonly string[]): Promise<PublishedEvent[]> {
    if (ids.length === 0) return [];
    return (
      await this.uow
        .db()('events')
        .whereIn('id', [...new Set(ids)])
        .whereNotNull('pub_seq')
    ).map(toPublished);
  }

  async purge(before: Date): Promise<number> {
    // Only published rows: an unpublished one still has to pass through the publisher.
    return this.uow.db()('events').where('occurred_at', '<', iso(before)).whereNotNull('published_at').delete();
  }
}
