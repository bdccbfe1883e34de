import type { CheckResult, Incident, Monitor, MonitorSpec, MonitorState } from '../../../core/monitoring/monitor.js';
import type { DueClaim, MonitorRepository } from '../../../core/monitoring/ports/monitor-repository.port.js';
import type { Environment } from '../../../core/kernel/environment.js';
import type { Engine } from '../connection.js';
import { bool, date, dateOrNull, iso, json, newestFirstPage, parse } from '../rows.js';
import type { KnexUnitOfWork } from '../unit-of-work.js';

type Row = {
  id: string;
  account_id: string;
  environment: string;
  domain: string;
  kind: string;
  spec: string;
  interval_seconds: number;
  enabled: unknown;
  state: string;
  state_changed_at: string | null;
  last_reason: string | null;
  last_checked_at: string | null;
  next_check_at: string;
  open_incident_id: string | null;
  created_at: string;
  updated_at: string;
};
type ResultRow = {
  id: string;
  monitor_id: string;
  checked_at: string;
  ok: unknown;
  latency_ms: number | null;
  reason: string | null;
  detail: string;
};
type IncidentRow = { id: string; monitor_id: string; started_at: string; ended_at: string | null; reason: string | null };

const isoOrNull = (d: Date | null): string | null => (d ? iso(d) : null);

const toMonitor = (r: Row): Monitor => ({
  id: r.id,
  accountId: r.account_id,
  environment: r.environment as Environment,
  domain: r.domain,
  spec: parse<MonitorSpec>(r.spec),
  intervalSeconds: Number(r.interval_seconds),
  enabled: bool(r.enabled),
  state: r.state as MonitorState,
  stateChangedAt: dateOrNull(r.state_changed_at),
  lastReason: r.last_reason,
  lastCheckedAt: dateOrNull(r.last_checked_at),
  nextCheckAt: date(r.next_check_at),
  openIncidentId: r.open_incident_id,
  createdAt: date(r.created_at),
  updatedAt: date(r.updated_at),
});
const toResult = (r: ResultRow): CheckResult => ({
  id: r.id,
  monitorId: r.monitor_id,
  checkedAt: date(r.checked_at),
  ok: bool(r.ok),
  latencyMs: r.latency_ms === null ? null : Number(r.latency_ms),
  reason: r.reason,
  detail: parse<Record<string, unknown>>(r.detail),
});
const toIncident = (r: IncidentRow): Incident => ({
  id: r.id,
  monitorId: r.monitor_id,
  startedAt: date(r.started_at),
  endedAt: dateOrNull(r.ended_at),
  reason: r.reason,
});

export class SqlMonitorRepository implements MonitorRepository {
  constructor(
    private readonly uow: KnexUnitOfWork,
    private readonly engine: Engine,
  ) {}

  async insert(m: Monitor): Promise<void> {
    await this.uow
      .db()('monitors')
      .insert({
        id: m.id,
        account_id: m.accountId,
        environment: m.environment,
        domain: m.domain,
        kind: m.spec.kind,
        created_at: iso(m.createdAt),
        spec: json(m.spec),
        interval_seconds: m.intervalSeconds,
        enabled: m.enabled,
        updated_at: iso(m.updatedAt),
        next_check_at: iso(m.nextCheckAt),
        state: m.state,
        state_changed_at: isoOrNull(m.stateChangedAt),
        last_reason: m.lastReason,
        last_checked_at: isoOrNull(m.lastCheckedAt),
        open_incident_id: m.openIncidentId,
      });
  }

  async update(m: Monitor): Promise<boolean> {
    const n = await this.uow
      .db()('monitors')
      .where({ id: m.id })
      .update({
        spec: json(m.spec),
        interval_seconds: m.intervalSeconds,
        enabled: m.enabled,
        updated_at: iso(m.updatedAt),
        next_check_at: iso(m.nextCheckAt),
      });
    return n > 0;
  }

  async delete(id: string): Promise<boolean> {
    return this.uow.transaction(async () => {
      const db = this.uow.db();
      // Children first: SQLite enforces foreign keys only when told to, so do not rely on CASCADE.
      await db('monitor_results').where({ monitor_id: id }).delete();
      await db('monitor_incidents').where({ monitor_id: id }).delete();
      return (await db('monitors').where({ id }).delete()) > 0;
    });
  }

  async count(accountId: string, environment: Environment, lock = false): Promise<number> {
    // Postgres: the account row's lock serializes creates of one account (READ COMMITTED would let two
    // counts see the same number). SQLite has one writer, and one connection per process.
    if (lock && this.engine === 'postgres') await this.uow.db()('accounts').select('id').where({ id: accountId }).forUpdate();
    const r = await this.uow.db()('monitors').where({ account_id: accountId, environment }).count<{ n: number | string }[]>({ n: '*' });
    return Number(r[0]?.n ?? 0);
  }

  async find(id: string): Promise<Monitor | null> {
    const r: Row | undefined = await this.uow.db()('monitors').where({ id }).first();
    return r ? toMonitor(r) : null;
  }

  async list(accountId: string, environment: Environment, q: { before?: string; limit: number; domain?: string }): Promise<Monitor[]> {
    const sel = this.uow.db()('monitors').where({ account_id: accountId, environment });
    if (q.domain) sel.andWhere({ domain: q.domain });
    const rows: Row[] = await newestFirstPage(sel, 'created_at', 'id', q);
    return rows.map(toMonitor);
  }

  async claimDue(q: DueClaim): Promise<Monitor[]> {
    const now = iso(q.now);
    const ids: string[] = await this.uow.transaction(async () => {
      const db = this.uow.db();
      const sel = db('monitors')
        .select('id')
        .where({ enabled: true })
        .andWhere('next_check_at', '<=', now)
        .andWhere((w) => w.whereNull('lock_expires_at').orWhere('lock_expires_at', '<', now))
        .orderBy('next_check_at')
        .limit(q.limit);
      if (this.engine === 'postgres') {
        // Rows another worker is claiming are skipped, not waited for.
        sel.forUpdate().skipLocked();
        const found = (await sel).map((r: { id: string }) => r.id);
        if (found.length > 0)
          await db('monitors')
            .whereIn('id', found)
            .update({ lock_token: q.token, lock_expires_at: iso(q.leaseUntil) });
        return found;
      }
      // SQLite: one writer at a time; the conditional update still refuses a row someone leased meanwhile.
      const got: string[] = [];
      for (const { id } of (await sel) as Array<{ id: string }>) {
        const n = await db('monitors')
          .where({ id })
          .andWhere((w) => w.whereNull('lock_expires_at').orWhere('lock_expires_at', '<', now))
          .update({ lock_token: q.token, lock_expires_at: iso(q.leaseUntil) });
        if (n > 0) got.push(id);
      }
      return got;
    });
    if (ids.length === 0) return [];
    return ((await this.uow.db()('monitors').whereIn('id', ids).orderBy('next_check_at')) as Row[]).map(toMonitor);
  }

  async completeCheck(m: Monitor, token: string): Promise<boolean> {
    const n = await this.uow
      .db()('monitors')
      .where({ id: m.id, lock_token: token })
      .update({
        state: m.state,
        state_changed_at: isoOrNull(m.stateChangedAt),
        last_reason: m.lastReason,
        last_checked_at: isoOrNull(m.lastCheckedAt),
        next_check_at: iso(m.nextCheckAt),
        open_incident_id: m.openIncidentId,
        lock_token: null,
        lock_expires_at: null,
      });
    return n > 0;
  }

  async insertResult(r: CheckResult): Promise<void> {
    await this.uow
      .db()('monitor_results')
      .insert({
        id: r.id,
        monitor_id: r.monitorId,
        checked_at: iso(r.checkedAt),
        ok: r.ok,
        latency_ms: r.latencyMs,
        reason: r.reason,
        detail: json(r.detail),
      });
  }

  async results(monitorId: string, q: { from?: Date; to?: Date; before?: string; limit: number }): Promise<CheckResult[]> {
    const sel = this.uow.db()('monitor_results').where({ monitor_id: monitorId });
    if (q.from) sel.andWhere('checked_at', '>=', iso(q.from));
    if (q.to) sel.andWhere('checked_at', '<', iso(q.to));
    const rows: ResultRow[] = await newestFirstPage(sel, 'checked_at', 'id', q);
    return rows.map(toResult);
  }

  async resultsBetween(monitorId: string, from: Date, to: Date): Promise<CheckResult[]> {
    const rows: ResultRow[] = await this.uow
      .db()('monitor_results')
      .where({ monitor_id: monitorId })
      .andWhere('checked_at', '>=', iso(from))
      .andWhere('checked_at', '<=', iso(to))
      .orderBy([
        { column: 'checked_at', order: 'asc' },
        { column: 'id', order: 'asc' },
      ]);
    return rows.map(toResult);
  }

  async insertIncident(i: Incident): Promise<void> {
    await this.uow
      .db()('monitor_incidents')
      .insert({ id: i.id, monitor_id: i.monitorId, started_at: iso(i.startedAt), ended_at: isoOrNull(i.endedAt), reason: i.reason });
  }

  async closeIncident(id: string, endedAt: Date): Promise<void> {
    await this.uow
      .db()('monitor_incidents')
      .where({ id })
      .whereNull('ended_at')
      .update({ ended_at: iso(endedAt) });
  }

  async incidentsBetween(monitorId: string, from: Date, to: Date): Promise<Incident[]> {
    const rows: IncidentRow[] = await this.uow
      .db()('monitor_incidents')
      .where({ monitor_id: monitorId })
      .andWhere('started_at', '<=', iso(to))
      .andWhere((w) => w.whereNull('ended_at').orWhere('ended_at', '>=', iso(from)))
      .orderBy([
        { column: 'started_at', order: 'asc' },
        { column: 'id', order: 'asc' },
      ]);
    return rows.map(toIncident);
  }

  async prune(before: Date): Promise<number> {
    const db = this.uow.db();
    const n = await db('monitor_results').where('checked_at', '<', iso(before)).delete();
    await db('monitor_incidents').whereNotNull('ended_at').andWhere('ended_at', '<', iso(before)).delete();
    return n;
  }
}
