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
import { indexedZone, isIndexed, type IndexedZone, type StoredZone, type Zone } from './zone.js';
import { ZoneCache } from './zone-cache.js';
import { ZoneSets } from './zone-sets.js';

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
  /** The indexed zones kept between plans (one per service by default: see ZoneCache). */
  readonly cache?: ZoneCache;
}

/**
 * The one place zones change: creation (a domain joins the account), commits (plans, ACME values) and
 * removal (release). Each change is written in the caller's transaction and published to the
 * nameserver once committed — a commit resolves only when our server answers with the new data.
 */
export class ZoneService {
  private readonly cache: ZoneCache;

  constructor(private readonly deps: ZoneServiceDeps) {
    this.cache = deps.cache ?? new ZoneCache();
  }

  /**
   * The zone with its sets indexed, for a plan: its row is read, and its sets only when the cache does not
   * hold them at that serial (a plan on a zone of 100k sets then reads one row, not the zone). Exact: see
   * ZoneCache. The caller still compares serials at commit (ZoneRepository.commit), as with any read.
   */
  async indexed(accountId: string, environment: Environment, domain: string): Promise<IndexedZone | null> {
    const head = await this.deps.zones.head(accountId, environment, domain);
    if (!head) return null;
    const kept = this.cache.get(head.id, head.serial);
    if (kept) return indexedZone(head, kept);
    const zone = await this.deps.zones.find(accountId, environment, domain);
    if (!zone) return null;
    const sets = ZoneSets.of(zone.recordSets);
    this.keep(zone.id, zone.serial, sets);
    return indexedZone(zone, sets);
  }

  /**
   * Kept once the surrounding transaction commits (at once outside one): what a transaction read or wrote
   * is that serial's for good only then — rolled back, the serial may be given to other sets.
   */
  private keep(zoneId: string, serial: number, sets: ZoneSets): void {
    this.deps.uow.afterCommit(() => this.cache.put(zoneId, serial, sets));
  }

  /** Publishes after commit; a nameserver that fails is reported and catches up by ZoneSync's poll. */
  publishOrReport(zone: Zone): Promise<void> {
    if (zone.served === false) return Promise.resolve();
    return this.deps.publisher
      .publish(zone)
      .catch((err: unknown) => this.deps.diagnostics.report(err, { what: 'zone publish failed', domain: zone.domain }));
  }

  async create(accountId: string, environment: Environment, domain: string, extra: readonly RecordSet[] = []): Promise<StoredZone> {
    const zone = await this.store(accountId, environment, domain, extra, {});
    this.deps.uow.afterCommit(() => void this.publishOrReport(zone));
    return zone;
  }

  /** A new zone with today's first serial and the service's apex records (SOA, NS), then `extra`. */
  private async store(
    accountId: string,
    environment: Environment,
    domain: string,
    extra: readonly RecordSet[],
    opts: { served?: false },
  ): Promise<StoredZone> {
    const serial = initialSerial(kyivDate(this.deps.clock.now()));
    const zone: StoredZone = {
      id: this.deps.random.id(),
      accountId,
      environment,
      domain,
      serial,
      recordSets: [...apexRecords(domain, serial), ...extra],
      ...opts,
    };
    await this.deps.zones.create(zone);
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
    const isApexSoa = (s: { name: string; type: RecordType }) => s.type === 'SOA' && s.name === zone.domain;
    const indexed = isIndexed(zone) ? zone.sets : null;
    const apexSoa = indexed ? indexed.get(zone.domain, 'SOA') : undefined;
    const soa = withSerial(indexed ? (apexSoa ? [apexSoa] : []) : zone.recordSets.filter(isApexSoa), zone.domain, serial);
    const written = [...upserts.filter((s) => !isApexSoa(s)), ...soa];
    const ok = await this.deps.zones.commit(zone.id, zone.serial, serial, written, deletes, this.deps.clock.now());
    if (!ok) throw new ZoneChanged(zone.domain);
    if (indexed) {
      // The next version from this one and the change (no walk of the zone), kept once this commits.
      const sets = indexed.with(written, deletes);
      this.keep(zone.id, serial, sets);
      return indexedZone({ ...headOf(zone), serial }, sets);
    }
    // name → types replaced or removed (no key strings built per set of a large zone).
    const gone = new Map<string, Set<RecordType>>();
    for (const d of [...deletes, ...upserts]) {
      const types = gone.get(d.name);
      if (types) types.add(d.type);
      else gone.set(d.name, new Set([d.type]));
    }
    const recordSets = zone.recordSets.filter((s) => !gone.get(s.name)?.has(s.type) && !isApexSoa(s));
    for (const s of upserts) if (!isApexSoa(s)) recordSets.push(s);
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
  createHosted(accountId: string, environment: Environment, domain: string): Promise<StoredZone> {
    return this.store(accountId, environment, domain, [], { served: false });
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
    this.cache.drop(zone.id);
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

const headOf = (zone: StoredZone): Omit<StoredZone, 'recordSets'> => ({
  id: zone.id,
  accountId: zone.accountId,
  environment: zone.environment,
  domain: zone.domain,
  serial: zone.serial,
  ...(zone.served !== undefined ? { served: zone.served } : {}),
  ...(zone.signing ? { signing: zone.signing } : {}),
});
