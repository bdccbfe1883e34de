import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { Change, ChangeAnnouncer, ChangeFeed, ChangeTopic } from '../../core/kernel/change-feed.port.js';
import type { Engine } from './connection.js';
import type { SqliteReader } from './sqlite-reader.js';
import type { KnexUnitOfWork } from './unit-of-work.js';

const TOPICS: ReadonlySet<string> = new Set<ChangeTopic>(['key', 'domain', 'zone']);

/** The NOTIFY channel: one per schema, so stores sharing one Postgres database (tests) never hear each other. */
export const channelFor = (schema: string | undefined): string =>
  schema ? `domivka_changes_${createHash('sha256').update(schema).digest('hex').slice(0, 16)}` : 'domivka_changes';

/** How often a SQLite process polls the change log; a poll older than STALE_MS makes the feed not live. */
export const POLL_MS = 200;
const STALE_MS = 1_500;
/** Change-log rows kept (SQLite); a poller that finds a gap has missed some and drops everything. */
const KEEP_ROWS = 10_000;

export interface ChangeFeedOptions {
  readonly engine: Engine;
  readonly url: string;
  readonly schema?: string;
  /** SQLite: the read-only connection the poller reads through (null for ':memory:': no other process). */
  readonly reader: SqliteReader | null;
}

/**
 * Cross-process invalidation. Announcements go out in the caller's transaction:
 * on Postgres `pg_notify` (delivered on commit, never on rollback), on SQLite a row in `change_log`.
 * Listening: on Postgres a dedicated pg client (not from knex's pool) that LISTENs and reconnects with
 * back-off; on SQLite a poll of `change_log` every 200 ms through the read-only connection.
 * Every (re)connect, poll failure or gap delivers `null` ("drop everything"), and `live()` is false until
 * the feed hears again, so caches never trust what they could have missed.
 */
export class SqlChangeFeed implements ChangeFeed, ChangeAnnouncer {
  readonly channel: string;
  private readonly listeners = new Set<(c: Change | null) => void>();
  private startPromise: Promise<void> | null = null;
  private closed = false;
  // Postgres
  private client: pg.Client | null = null;
  private connected = false;
  private retryTimer: NodeJS.Timeout | null = null;
  private backoffMs = 100;
  // SQLite
  private pollTimer: NodeJS.Timeout | null = null;
  private lastSeq = -1;
  private lastPollAt = 0;
  private announced = 0;

  constructor(
    private readonly uow: KnexUnitOfWork,
    private readonly options: ChangeFeedOptions,
  ) {
    this.channel = channelFor(options.schema);
  }

  async announce(topic: ChangeTopic, ref: string): Promise<void> {
    const db = this.uow.db();
    if (this.options.engine === 'postgres') {
      await db.raw('select pg_notify(?, ?)', [this.channel, `${topic}:${ref}`]);
      return;
    }
    await db('change_log').insert({ topic, ref, at: new Date().toISOString() });
    if (++this.announced % 100 === 0) {
      await db.raw('delete from change_log where seq <= (select max(seq) from change_log) - ?', [KEEP_ROWS]);
    }
  }

  subscribe(listener: (change: Change | null) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  live(): boolean {
    if (this.closed || !this.startPromise) return false;
    if (this.options.engine === 'postgres') return this.connected;
    return this.options.reader !== null && Date.now() - this.lastPollAt < STALE_MS;
  }

  start(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.startPromise ??= this.options.engine === 'postgres' ? this.connect() : this.startPolling();
    return this.startPromise;
  }

  private emit(change: Change | null): void {
    for (const l of this.listeners) {
      try {
        l(change);
      } catch {
        // a listener's failure is its own; the others still hear
      }
    }
  }

  private parse(payload: string | undefined): Change | null {
    const i = payload?.indexOf(':') ?? -1;
    if (!payload || i < 0) return null;
    const topic = payload.slice(0, i);
    return TOPICS.has(topic) ? { topic: topic as ChangeTopic, ref: payload.slice(i + 1) } : null;
  }

  // ---- Postgres: LISTEN on a dedicated connection ----

  private async connect(): Promise<void> {
    if (this.closed) return;
    // Loaded here, not at the top: a SQLite process never loads pg.
    const { default: Pg } = await import('pg');
    if (this.closed) return;
    const client = new Pg.Client({ connectionString: this.options.url });
    this.client = client;
    const lost = () => {
      if (this.client !== client) return;
      this.client = null;
      if (this.connected) this.emit(null);
      this.connected = false;
      client.removeAllListeners('notification');
      void client.end().catch(() => undefined);
      this.scheduleReconnect();
    };
    client.on('error', lost);
    client.on('end', lost);
    client.on('notification', (m) => {
      if (m.channel !== this.channel) return;
      const change = this.parse(m.payload);
      this.emit(change); // an unreadable payload drops everything: safe
    });
    try {
      await client.connect();
      await client.query(`LISTEN "${this.channel}"`);
      if (this.client !== client || this.closed) return;
      this.connected = true;
      this.backoffMs = 100;
      this.emit(null); // whatever was cached before we listened may be stale
    } catch {
      lost();
    }
  }

  private scheduleReconnect(): void {
    if (this.closed || this.retryTimer) return;
    const delay = this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, 2_000);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      void this.connect();
    }, delay);
    this.retryTimer.unref();
  }

  // ---- SQLite: poll the change log ----

  private async startPolling(): Promise<void> {
    if (!this.options.reader) return; // ':memory:' — one process, nothing to hear
    this.poll();
    this.pollTimer = setInterval(() => this.poll(), POLL_MS);
    this.pollTimer.unref();
  }

  private poll(): void {
    const reader = this.options.reader!;
    try {
      if (this.lastSeq < 0) {
        const [row] = reader.all<{ seq: number | null }>('select max(seq) as seq from change_log', []);
        this.lastSeq = Number(row?.seq ?? 0);
        this.lastPollAt = Date.now();
        this.emit(null);
        return;
      }
      const rows = reader.all<{ seq: number; topic: string; ref: string }>(
        'select seq, topic, ref from change_log where seq > ? order by seq limit 1000',
        [this.lastSeq],
      );
      let gap = rows.length > 0 && Number(rows[0]!.seq) !== this.lastSeq + 1;
      for (const r of rows) {
        const change = this.parse(`${r.topic}:${r.ref}`);
        if (!change) gap = true;
        else if (!gap) this.emit(change);
        this.lastSeq = Number(r.seq);
      }
      if (gap) this.emit(null);
      this.lastPollAt = Date.now();
    } catch {
      // the file is busy or gone: not live until a poll succeeds, then everything is dropped
      if (this.lastPollAt !== 0) this.emit(null);
      this.lastPollAt = 0;
      this.lastSeq = -1;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.pollTimer) clearInterval(this.pollTimer);
    if (this.retryTimer) clearTimeout(this.retryTimer);
    const c = this.client;
    this.client = null;
    this.connected = false;
    if (c) await c.end().catch(() => undefined);
    this.options.reader?.close();
  }
}

/**
 * A read-through cache that a ChangeFeed keeps honest: entries are used only while the feed is live;
 * any invalidation (or "drop everything") during a lookup keeps that lookup's result out, so a row read
 * before a change can never be stored after the change's announcement was heard.
 */
export class FeedCache<V> {
  private readonly entries = new Map<string, V>();
  /** With `refOf`: the keys cached under each ref (a domain id → its cached reads). */
  private readonly byRef = new Map<string, Set<string>>();
  /** With `refOf`: the keys of cached absences. */
  private readonly absent = new Set<string>();
  private epoch = 0;

  constructor(
    private readonly feed: ChangeFeed | null,
    private readonly max = 50_000,
    /** What a cached value is about (the ref a change announces), or null for a cached absence. */
    private readonly refOf: ((value: V) => string | null) | null = null,
  ) {}

  /** The cached value, or undefined when absent or when the feed cannot vouch for it. */
  get(key: string): V | undefined {
    if (!this.feed) return undefined;
    if (!this.feed.live()) {
      void this.feed.start();
      return undefined;
    }
    return this.entries.get(key);
  }

  /** Call before reading the store; pass the result to `set`. */
  begin(): number {
    return this.epoch;
  }

  set(key: string, value: V, begunAt: number): void {
    if (!this.feed || begunAt !== this.epoch || !this.feed.live()) return;
    if (this.entries.size >= this.max) this.clear();
    this.entries.set(key, value);
    if (!this.refOf) return;
    const ref = this.refOf(value);
    if (ref === null) this.absent.add(key);
    else this.byRef.set(ref, (this.byRef.get(ref) ?? new Set()).add(key));
  }

  delete(key: string): void {
    this.epoch++;
    this.entries.delete(key);
  }

  /**
   * A change to `ref` (needs `refOf`): drops the entries about it, and every cached absence, since the
   * change may be the thing's creation. Other entries stay.
   */
  invalidate(ref: string): void {
    if (!this.refOf) return this.clear();
    this.epoch++;
    for (const key of this.byRef.get(ref) ?? []) this.entries.delete(key);
    this.byRef.delete(ref);
    for (const key of this.absent) this.entries.delete(key);
    this.absent.clear();
  }

  clear(): void {
    this.epoch++;
    this.entries.clear();
    this.byRef.clear();
    this.absent.clear();
  }
}
