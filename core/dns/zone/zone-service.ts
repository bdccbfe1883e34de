import type { Diagnostics } from '../../kernel/diagnostics.port.js';
import type { Clock } from '../../kernel/clock.port.js';
import { kyivDate } from '../../kernel/dates.js';
import type { Environment } from '../../kernel/environment.js';
import type { Random } from '../../kernel/random.port.js';
import type { UnitOfWork } from '../../kernel/unit-of-work.port.js';
import type { ZoneRepository } from '../ports/zone-repository.port.js';
import type { RecordSet, RecordType } from './record-set.js';
import { nextSerial } from './serial.js';
import { apexRecords, initialSerial, withSerial } from './zone-factory.js';
import type { StoredZone, Zone } from './zone.js';

/** The zone's serial moved since it was read: another change committed first. */
/** The Retry-After of zone_busy: every attempt of a write lost the race to other writes of the zone. */
export const ZONE_BUSY_RETRY_AFTER_S = 1;

export class ZoneChanged extends Error {
  constructor(readonly domain: string) {
    super(`zone ${domain} changed meanwhile`);
    this.name = 'ZoneChanged';
  }
}

/** What the service tells the nameserver (the port lives in ports/nameserver.port.ts). */
export interface ZonePublisher {
  publish(zone: Zone): Promise<void>;
  withdraw(domain: string): Promise<void>;
}

/** What ZoneService is built from (one object, named, instead of positions). */
export interface ZoneServiceDeps {
  readonly zones: ZoneRepository;
  readonly publisher: ZonePublisher;
  readonly uow: UnitOfWork;
  readonly random: Random;
  readonly clock: Clock;
  readonly diagnostics: Diagnostics;
}

/**
 * The one place zones change: creation (a domain joins the account), commits (plans, ACME values) and
 * removal (release). Each change is written in the caller's transaction and published to the
 * nameserver once committed — a commit resolves only when our server answers with the new data.
 */
export class ZoneService {
  constructor(private readonly deps: ZoneServiceDeps) {}

  /** Publishes after commit; a nameserver that fails is reported and catches up by ZoneSync's poll. */
  publishOrReport(zone: Zone): Promise<void> {
    if (zone.served === false) return Promise.resolve();
    return this.deps.publisher
      .publish(zone)
      .catch((err: unknown) => this.deps.diagnostics.report(err, { what: 'zone publish failed', domain: zone.domain }));
  }

  async create(accountId: string, environment: Environment, domain: string, extra: readonly RecordSet[] = []): Promise<StoredZone> {
    const serial = initialSerial(kyivDate(this.deps.clock.now()));
    const zone: StoredZone = {
      id: this.deps.random.id(),
      accountId,
      environment,
      domain,
      serial,
      recordSets: [...apexRecords(domain, serial), ...extra],
    };
    await this.deps.zones.create(zone);
    this.deps.uow.afterCommit(() => void this.publishOrReport(zone));
    return zone;
  }

  /**
   * Writes the changed record sets with the next serial (RFC 1982), if the zone is still at
   * `zone.serial`; throws ZoneChanged when another change won the race (the caller's transaction
   * rolls back, and it may judge its change again on the new zone). Publishing is the caller's, after commit.
   */
  async commit(
    zone: StoredZone,
    upserts: readonly RecordSet[],
    deletes: ReadonlyArray<{ name: string; type: RecordType }>,
  ): Promise<StoredZone> {
    const serial = nextSerial(zone.serial);
    const soa = withSerial(
      zone.recordSets.filter((s) => s.type === 'SOA' && s.name === zone.domain),
      zone.domain,
      serial,
    );
    const ok = await this.deps.zones.commit(
      zone.id,
      zone.serial,
      serial,
      [...upserts.filter((s) => !(s.type === 'SOA' && s.name === zone.domain)), ...soa],
      deletes,
      this.deps.clock.now(),
    );
    if (!ok) throw new ZoneChanged(zone.domain);
    // name → types replaced or removed (no key strings built per set of a large zone).
    const gone = new Map<string, Set<RecordType>>();
    for (const d of [...deletes, ...upserts]) {
      const types = gone.get(d.name);
      if (types) types.add(d.type);
      else gone.set(d.name, new Set([d.type]));
    }
    const recordSets = zone.recordSets.filter((s) => !gone.get(s.name)?.has(s.type) && !(s.type === 'SOA' && s.name === zone.domain));
    for (const s of upserts) if (!(s.type === 'SOA' && s.name === zone.domain)) recordSets.push(s);
    for (const s of soa) recordSets.push(s);
    const next: StoredZone = { ...zone, serial, recordSets };
    return next;
  }

  /** Serves a committed zone now (the caller awaits it after its transaction). */
  async publish(zone: Zone): Promise<void> {
    if (zone.served === false) return;
    await this.deps.publisher.publish(zone);
  }

  /** A domain transferred in: its hosted zone carries over untouched (no gap in answers), or the default one is made. */
  async adopt(accountId: string, environment: Environment, domain: string): Promise<'kept' | 'created'> {
    if (await this.deps.zones.find(accountId, environment, domain)) return 'kept';
    await this.create(accountId, environment, domain);
    return 'created';
  }

  /** A hosted domain's zone: stored (every DNS route works on it) but not served until verified. */
  async createHosted(accountId: string, environment: Environment, domain: string): Promise<StoredZone> {
    const serial = initialSerial(kyivDate(this.deps.clock.now()));
    const zone: StoredZone = {
      id: this.deps.random.id(),
      accountId,
      environment,
      domain,
      serial,
      recordSets: apexRecords(domain, serial),
      served: false,
    };
    await this.deps.zones.create(zone);
    return zone;
  }

  /** Starts (verified) or stops (displaced) serving a hosted zone, once the caller's transaction commits. */
  async serve(accountId: string, environment: Environment, domain: string, served: boolean): Promise<void> {
    const zone = await this.deps.zones.find(accountId, environment, domain);
    if (!zone || zone.served === served) return;
    await this.deps.zones.setServed(zone.id, served);
    this.deps.uow.afterCommit(() => {
      if (served) void this.publishOrReport({ ...zone, served: true });
      else
        void this.deps.publisher
          .withdraw(domain)
          .catch((err: unknown) => this.deps.diagnostics.report(err, { what: 'zone withdraw failed', domain }));
    });
  }

  async remove(accountId: string, environment: Environment, domain: string): Promise<void> {
    const zone = await this.deps.zones.find(accountId, environment, domain);
    if (!zone) return;
    await this.deps.zones.remove(zone.id);
    // An unserved zone was never published: withdrawing its name would take down another account's served zone.
    if (zone.served === false) return;
    this.deps.uow.afterCommit(
      () =>
        void this.deps.publisher
          .withdraw(domain)
          .catch((err: unknown) => this.deps.diagnostics.report(err, { what: 'zone withdraw failed', domain })),
    );
  }
}
