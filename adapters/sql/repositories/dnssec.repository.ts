import type { DnssecAlgorithm } from '../../../core/dnssec/dnskey.js';
import {
  nextStepAt,
  type DnssecKey,
  type ForeignDnskey,
  type DnssecState,
  type DnssecStatus,
  type Rollover,
} from '../../../core/dnssec/dnssec-state.js';
import type { Environment } from '../../../core/kernel/environment.js';
import type { DnssecRepository } from '../../../core/dnssec/ports/dnssec-repository.port.js';
import { bool, date, dateOrNull, iso, json, parse } from '../rows.js';
import type { KnexUnitOfWork } from '../unit-of-work.js';

export type DnssecRow = {
  zone_id: string;
  domain: string;
  algorithm: number | string;
  status: string;
  ds_at_parent: unknown;
  window_start: string;
  enabled_at: string;
  keys: string;
  stop_signing_at?: string | null;
  rollover?: string | null;
  foreign_keys?: string | null;
};

type Stamp = 'createdAt' | 'publishedAt' | 'activeAt' | 'retiredAt';
type KeyJson = Omit<DnssecKey, Stamp> & {
  createdAt: string;
  publishedAt?: string | null;
  activeAt?: string | null;
  retiredAt?: string | null;
};
type RolloverJson = Omit<Rollover, 'nextAt' | 'startedAt' | 'history'> & {
  nextAt: string;
  startedAt: string;
  history: Array<{ step: string; at: string; note?: string }>;
};
type SchedulesJson = { current: RolloverJson | null; last: RolloverJson | null; nextRolloverAt: string | null };

const rolloverOf = (r: RolloverJson | null | undefined): Rollover | null =>
  r
    ? {
        ...r,
        nextAt: date(r.nextAt),
        startedAt: date(r.startedAt),
        history: r.history.map((h) => ({ ...h, at: date(h.at) }) as Rollover['history'][number]),
      }
    : null;
const rolloverJson = (r: Rollover | null | undefined): RolloverJson | null =>
  r ? { ...r, nextAt: iso(r.nextAt), startedAt: iso(r.startedAt), history: r.history.map((h) => ({ ...h, at: iso(h.at) })) } : null;
const isoOrNull = (d: Date | null | undefined): string | null => (d ? iso(d) : null);

export const stateOf = (r: DnssecRow): DnssecState => ({
  zoneId: r.zone_id,
  domain: r.domain,
  algorithm: Number(r.algorithm) as DnssecAlgorithm,
  status: r.status as DnssecStatus,
  dsAtParent: bool(r.ds_at_parent),
  windowStart: date(r.window_start),
  enabledAt: date(r.enabled_at),
  keys: parse<KeyJson[]>(r.keys).map((k) => ({
    ...k,
    createdAt: date(k.createdAt),
    publishedAt: dateOrNull(k.publishedAt),
    activeAt: dateOrNull(k.activeAt),
    retiredAt: dateOrNull(k.retiredAt),
  })),
  stopSigningAt: dateOrNull(r.stop_signing_at),
  ...schedulesOf(r.rollover),
  ...(r.foreign_keys ? { foreignKeys: parse<ForeignJson[]>(r.foreign_keys).map((k) => ({ ...k, addedAt: date(k.addedAt) })) } : {}),
});

type ForeignJson = Omit<ForeignDnskey, 'addedAt'> & { addedAt: string };

const schedulesOf = (raw: string | null | undefined): Pick<DnssecState, 'rollover' | 'lastRollover' | 'nextRolloverAt'> => {
  const s = raw ? parse<SchedulesJson>(raw) : null;
  return { rollover: rolloverOf(s?.current), lastRollover: rolloverOf(s?.last), nextRolloverAt: dateOrNull(s?.nextRolloverAt) };
};

export class SqlDnssecRepository implements DnssecRepository {
  constructor(private readonly uow: KnexUnitOfWork) {}

  async find(zoneId: string): Promise<DnssecState | null> {
    const r: DnssecRow | undefined = await this.uow.db()('dnssec_zones').where({ zone_id: zoneId }).first();
    return r ? stateOf(r) : null;
  }

  async save(s: DnssecState): Promise<void> {
    const row = {
      zone_id: s.zoneId,
      domain: s.domain,
      algorithm: s.algorithm,
      status: s.status,
      ds_at_parent: s.dsAtParent,
      window_start: iso(s.windowStart),
      enabled_at: iso(s.enabledAt),
      keys: json(
        s.keys.map((k) => ({
          ...k,
          createdAt: iso(k.createdAt),
          publishedAt: isoOrNull(k.publishedAt),
          activeAt: isoOrNull(k.activeAt),
          retiredAt: isoOrNull(k.retiredAt),
        })),
      ),
      stop_signing_at: isoOrNull(s.stopSigningAt),
      rollover: json({
        current: rolloverJson(s.rollover),
        last: rolloverJson(s.lastRollover),
        nextRolloverAt: isoOrNull(s.nextRolloverAt),
      } satisfies SchedulesJson),
      next_step_at: isoOrNull(nextStepAt(s)),
      foreign_keys: s.foreignKeys?.length
        ? json(s.foreignKeys.map((k) => ({ ...k, addedAt: iso(k.addedAt) }) satisfies ForeignJson))
        : null,
    };
    await this.uow.db()('dnssec_zones').insert(row).onConflict('zone_id').merge();
  }

  async remove(zoneId: string): Promise<void> {
    await this.uow.db()('dnssec_zones').where({ zone_id: zoneId }).delete();
  }

  async windowsBefore(before: Date, limit: number): Promise<Array<{ zoneId: string; domain: string }>> {
    const rows: Array<{ zone_id: string; domain: string }> = await this.uow
      .db()('dnssec_zones')
      .select('zone_id', 'domain')
      .where('window_start', '<', iso(before))
      .orderBy('window_start')
      .limit(limit);
    return rows.map((r) => ({ zoneId: r.zone_id, domain: r.domain }));
  }

  async scheduled(
    before: Date,
    limit: number,
  ): Promise<Array<{ zoneId: string; domain: string; accountId: string; environment: Environment; at: Date }>> {
    const rows: Array<{ zone_id: string; domain: string; account_id: string; environment: string; next_step_at: string }> = await this.uow
      .db()('dnssec_zones as d')
      .join('dns_zones as z', 'z.id', 'd.zone_id')
      .select('d.zone_id', 'd.domain', 'z.account_id', 'z.environment', 'd.next_step_at')
      .whereNotNull('d.next_step_at')
      .where('d.next_step_at', '<=', iso(before))
      .orderBy('d.next_step_at')
      .limit(limit);
    return rows.map((r) => ({
      zoneId: r.zone_id,
      domain: r.domain,
      accountId: r.account_id,
      environment: r.environment as Environment,
      at: date(r.next_step_at),
    }));
  }

  async setWindow(zoneId: string, start: Date): Promise<void> {
    await this.uow
      .db()('dnssec_zones')
      .where({ zone_id: zoneId })
      .update({ window_start: iso(start) });
  }
}
