import type { Plan } from '../../../core/dns/plan.js';
import type { AcmeChallenge, AcmeChallengeRepository, PlanRepository, ZoneRepository } from '../../../core/dns/ports/zone-repository.port.js';
import type { RecordSet, RecordType } from '../../../core/dns/record-set.js';
import type { StoredZone } from '../../../core/dns/zone.js';
import type { Environment } from '../../../core/shared/environment.js';
import { bool, date, dateOrNull, iso, json, parse } from '../rows.js';
import type { KnexUnitOfWork } from '../unit-of-work.js';

type ZoneRow = { id: string; account_id: string; environment: string; domain: string; serial: string | number };
type SetRow = { zone_id: string; name: string; type: string; ttl: number; record_values: string };
const toSet = (r: SetRow): RecordSet => ({ name: r.name, type: r.type as RecordType, ttl: Number(r.ttl), values: parse<string[]>(r.record_values) });

export class SqlZoneRepository implements ZoneRepository {
  constructor(private readonly uow: KnexUnitOfWork) {}

  private async withSets(zones: ZoneRow[]): Promise<StoredZone[]> {
    if (zones.length === 0) return [];
    const db = this.uow.db();
    const byZone = new Map<string, RecordSet[]>();
    // Chunked: SQLite limits bound parameters.
    for (let i = 0; i < zones.length; i += 500) {
      const rows: SetRow[] = await db('dns_record_sets').whereIn('zone_id', zones.slice(i, i + 500).map((z) => z.id)).orderBy(['zone_id', 'name', 'type']);
      for (const r of rows) {
        let list = byZone.get(r.zone_id);
        if (!list) byZone.set(r.zone_id, (list = []));
        list.push(toSet(r));
      }
    }
    return zones.map((z) => ({
      id: z.id, accountId: z.account_id, environment: z.environment as Environment, domain: z.domain, serial: Number(z.serial),
      recordSets: byZone.get(z.id) ?? [],
    }));
  }

  async find(accountId: string, environment: Environment, domain: string): Promise<StoredZone | null> {
    const z: ZoneRow | undefined = await this.uow.db()('dns_zones').where({ account_id: accountId, environment, domain }).first();
    return z ? (await this.withSets([z]))[0]! : null;
  }

  async findById(id: string): Promise<StoredZone | null> {
    const z: ZoneRow | undefined = await this.uow.db()('dns_zones').where({ id }).first();
    return z ? (await this.withSets([z]))[0]! : null;
  }

  async versions(): Promise<Array<{ id: string; domain: string; environment: Environment; serial: number }>> {
    const rows: ZoneRow[] = await this.uow.db()('dns_zones').select('id', 'domain', 'environment', 'serial');
    return rows.map((r) => ({ id: r.id, domain: r.domain, environment: r.environment as Environment, serial: Number(r.serial) }));
  }

  async all(): Promise<StoredZone[]> {
    return this.withSets(await this.uow.db()('dns_zones').orderBy('domain'));
  }

  async create(zone: StoredZone): Promise<void> {
    const db = this.uow.db();
    await db('dns_zones').insert({ id: zone.id, account_id: zone.accountId, environment: zone.environment, domain: zone.domain, serial: zone.serial, updated_at: iso(new Date()) });
    await this.insertSets(zone.id, zone.recordSets);
  }

  private async insertSets(zoneId: string, sets: readonly RecordSet[]): Promise<void> {
    const rows = sets.map((s) => ({ zone_id: zoneId, name: s.name, type: s.type, ttl: s.ttl, record_values: json(s.values) }));
    for (let i = 0; i < rows.length; i += 150) await this.uow.db()('dns_record_sets').insert(rows.slice(i, i + 150));
  }

  async commit(zoneId: string, expectedSerial: number, serial: number, upserts: readonly RecordSet[], deletes: ReadonlyArray<{ name: string; type: RecordType }>, at: Date): Promise<boolean> {
    return this.uow.transaction(async () => {
      const db = this.uow.db();
      // The serial is the zone's version: a conditional update makes concurrent applies take turns.
      const n = await db('dns_zones').where({ id: zoneId, serial: expectedSerial }).update({ serial, updated_at: iso(at) });
      if (n === 0) return false;
      for (let i = 0; i < deletes.length; i += 200) {
        const chunk = deletes.slice(i, i + 200);
        await db('dns_record_sets').where({ zone_id: zoneId }).andWhere((w) => {
          for (const d of chunk) w.orWhere((x) => x.where({ name: d.name, type: d.type }));
        }).delete();
      }
      // Upserts as INSERT … ON CONFLICT DO UPDATE, in chunks (both engines).
      const rows = upserts.map((s) => ({ zone_id: zoneId, name: s.name, type: s.type, ttl: s.ttl, record_values: json(s.values) }));
      for (let i = 0; i < rows.length; i += 150) {
        await db('dns_record_sets').insert(rows.slice(i, i + 150)).onConflict(['zone_id', 'name', 'type']).merge(['ttl', 'record_values']);
      }
      return true;
    });
  }

  async remove(zoneId: string): Promise<void> {
    await this.uow.db()('dns_zones').where({ id: zoneId }).delete();
  }
}

export class SqlPlanRepository implements PlanRepository {
  constructor(private readonly uow: KnexUnitOfWork) {}

  async insert(p: Plan): Promise<void> {
    await this.uow.db()('dns_plans').insert({
      id: p.id, account_id: p.accountId, environment: p.environment, domain: p.domain, key_id: p.keyId, source: p.source,
      base_serial: p.baseSerial, changes: json(p.changes), before_sets: json(p.before), checks: json(p.checks), valid: p.valid,
      created_at: iso(p.createdAt), expires_at: iso(p.expiresAt), applied_at: null,
    });
  }

  async find(accountId: string, environment: Environment, id: string): Promise<Plan | null> {
    const r = await this.uow.db()('dns_plans').where({ id, account_id: accountId, environment }).first();
    if (!r) return null;
    return {
      id: r.id, accountId: r.account_id, environment: r.environment, domain: r.domain, keyId: r.key_id, source: r.source,
      baseSerial: Number(r.base_serial), changes: parse(r.changes), before: parse(r.before_sets), checks: parse(r.checks),
      valid: bool(r.valid), createdAt: date(r.created_at), expiresAt: date(r.expires_at), appliedAt: dateOrNull(r.applied_at),
    };
  }

  async markApplied(id: string, at: Date): Promise<boolean> {
    return (await this.uow.db()('dns_plans').where({ id }).whereNull('applied_at').update({ applied_at: iso(at) })) > 0;
  }
}

export class SqlAcmeChallenges implements AcmeChallengeRepository {
  constructor(private readonly uow: KnexUnitOfWork) {}

  private toChallenge(r: Record<string, string>): AcmeChallenge {
    return { id: r.id!, zoneId: r.zone_id!, name: r.name!, value: r.value!, keyId: r.key_id ?? null, createdAt: date(r.created_at!), expiresAt: date(r.expires_at!) };
  }

  async insert(c: AcmeChallenge): Promise<void> {
    await this.uow.db()('acme_challenges').insert({ id: c.id, zone_id: c.zoneId, name: c.name, value: c.value, key_id: c.keyId, created_at: iso(c.createdAt), expires_at: iso(c.expiresAt) });
  }

  async find(id: string): Promise<AcmeChallenge | null> {
    const r = await this.uow.db()('acme_challenges').where({ id }).first();
    return r ? this.toChallenge(r) : null;
  }

  async remove(id: string): Promise<void> {
    await this.uow.db()('acme_challenges').where({ id }).delete();
  }

  async forName(zoneId: string, name: string): Promise<AcmeChallenge[]> {
    return (await this.uow.db()('acme_challenges').where({ zone_id: zoneId, name }).orderBy('id')).map((r: Record<string, string>) => this.toChallenge(r));
  }

  async expired(before: Date, limit: number): Promise<AcmeChallenge[]> {
    return (await this.uow.db()('acme_challenges').where('expires_at', '<', iso(before)).limit(limit)).map((r: Record<string, string>) => this.toChallenge(r));
  }
}
