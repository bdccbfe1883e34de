import type { DnssecAlgorithm } from '../../../core/dnssec/dnskey.js';
import type { DnssecKey, DnssecState, DnssecStatus } from '../../../core/dnssec/dnssec-state.js';
import type { DnssecRepository } from '../../../core/dnssec/ports/dnssec-repository.port.js';
import { bool, date, iso, json, parse } from '../rows.js';
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
};

type KeyJson = Omit<DnssecKey, 'createdAt'> & { createdAt: string };

export const stateOf = (r: DnssecRow): DnssecState => ({
  zoneId: r.zone_id,
  domain: r.domain,
  algorithm: Number(r.algorithm) as DnssecAlgorithm,
  status: r.status as DnssecStatus,
  dsAtParent: bool(r.ds_at_parent),
  windowStart: date(r.window_start),
  enabledAt: date(r.enabled_at),
  keys: parse<KeyJson[]>(r.keys).map((k) => ({ ...k, createdAt: date(k.createdAt) })),
});

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
      keys: json(s.keys.map((k) => ({ ...k, createdAt: iso(k.createdAt) }))),
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

  async setWindow(zoneId: string, start: Date): Promise<void> {
    await this.uow
      .db()('dnssec_zones')
      .where({ zone_id: zoneId })
      .update({ window_start: iso(start) });
  }
}
