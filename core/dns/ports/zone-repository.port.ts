import type { Environment } from '../../kernel/environment.js';
import type { NewPlanRecord, PlanRecord } from '../plans/plan.js';
import type { RecordSet, RecordType } from '../zone/record-set.js';
import type { StoredZone } from '../zone/zone.js';

/** A zone without its record sets: its row (serial, served) and its signing. */
export type ZoneHead = Omit<StoredZone, 'recordSets'>;

/** A zone's version as a DNS server follows it: which zone, its serial, and whether it is served. */
export interface ZoneVersion {
  readonly id: string;
  readonly domain: string;
  readonly environment: Environment;
  readonly serial: number;
  readonly served: boolean;
}

/** Where a reader of zone versions got to (opaque: give back what `versionsSince` returned). */
export interface ZoneVersionMark {
  readonly seq: number;
  readonly membership: number;
}

/**
 * The versions written since a mark. `complete`: every zone, so a zone not listed is gone (the first
 * read, and any read after zones were added, removed or started or stopped being served); otherwise only
 * the zones written since the mark (possibly a few again).
 */
export interface ZoneVersionsSince {
  readonly mark: ZoneVersionMark;
  readonly complete: boolean;
  readonly versions: readonly ZoneVersion[];
  /** When asked for: each version's stamp, by zone id (as `versionStamps` gives them). */
  readonly stamps?: ReadonlyMap<string, string>;
}

/** One commit of a zone, as the change log keeps it: the serial it made, the sets it wrote and the names and types it removed. */
export interface ZoneChange {
  readonly serial: number;
  readonly upserts: readonly RecordSet[];
  readonly deletes: ReadonlyArray<{ readonly name: string; readonly type: RecordType }>;
}

export interface ZoneRepository {
  /** The zone with all its record sets; its serial is read in the same statement as the sets (they are that serial's). */
  find(accountId: string, environment: Environment, domain: string): Promise<StoredZone | null>;
  /** The zone's row and signing, without its record sets (one row: cheap for a zone of any size). */
  head(accountId: string, environment: Environment, domain: string): Promise<ZoneHead | null>;
  findById(id: string): Promise<StoredZone | null>;
  /** The zones of these ids with their record sets, in a few statements whatever their number (absent ids are left out). */
  findByIds(ids: readonly string[]): Promise<StoredZone[]>;
  /** Every zone's id, domain, environment and serial — cheap, for change polling. */
  versions(): Promise<ZoneVersion[]>;
  /** The versions written since `mark` (null: every zone), for a DNS server that follows the store: one indexed read. */
  versionsSince(mark: ZoneVersionMark | null, options?: { readonly stamps?: boolean }): Promise<ZoneVersionsSince>;
  /** The rows and signing of these zones, without their record sets (absent ids are left out). */
  headsByIds(ids: readonly string[]): Promise<ZoneHead[]>;
  /** Of these zones, the ids of those signed (DNSSEC on): what `signing` of their heads would say, without reading the heads. */
  signedAmong(ids: readonly string[]): Promise<Set<string>>;
  /**
   * Every zone's version stamp, by zone id: its serial and when the commit that made that serial was written.
   * A serial names one version of a zone's records only while the store runs forward: a store restored from a
   * backup makes the same serials again, for other records, at other moments — the stamp tells them apart.
   */
  versionStamps(): Promise<Map<string, string>>;
  /**
   * The zone's head now and, in order, the commits that led to its serial from `fromSerial` (none when it
   * is still there): what a DNS server that serves the zone at `fromSerial` needs to build the new version
   * from its own. Null when the zone is gone, or the store does not hold every commit between (a change
   * too large to log, or older than the log keeps): the caller reads the whole zone.
   */
  changesSince(zoneId: string, fromSerial: number): Promise<{ head: ZoneHead; changes: ZoneChange[] } | null>;
  /** Every zone (the nameserver loads them at start). */
  all(): Promise<StoredZone[]>;
  create(zone: StoredZone): Promise<void>;
  /** Writes the changed record sets and the new serial; false (nothing written) when the serial is
   * no longer `expectedSerial` — another apply won the race. */
  commit(
    zoneId: string,
    expectedSerial: number,
    serial: number,
    upserts: readonly RecordSet[],
    deletes: ReadonlyArray<{ name: string; type: RecordType }>,
    at: Date,
  ): Promise<boolean>;
  remove(zoneId: string): Promise<void>;
  /** Starts or stops serving a stored zone (a hosted zone verified, or displaced); the catalog follows. */
  setServed(zoneId: string, served: boolean): Promise<void>;
  /** Inside a transaction: holds the zone's row until commit, so writers of one zone queue instead of
   * racing (Postgres row lock; SQLite transactions are serialised already). */
  lock(accountId: string, environment: Environment, domain: string): Promise<void>;
}

export interface PlanRepository {
  /** Changes given as JSON text are stored as they are (the same text JSON.stringify of the list gives). */
  insert(plan: NewPlanRecord): Promise<void>;
  find(accountId: string, environment: Environment, id: string): Promise<PlanRecord | null>;
  markApplied(id: string, at: Date): Promise<boolean>;
}

export interface AcmeChallenge {
  readonly id: string;
  readonly zoneId: string;
  readonly name: string;
  readonly value: string;
  readonly keyId: string | null;
  readonly createdAt: Date;
  readonly expiresAt: Date;
}

export interface AcmeChallengeRepository {
  insert(c: AcmeChallenge): Promise<void>;
  find(id: string): Promise<AcmeChallenge | null>;
  remove(id: string): Promise<void>;
  forName(zoneId: string, name: string): Promise<AcmeChallenge[]>;
  /** Every live value of the zone, by name then id. */
  forZone(zoneId: string): Promise<AcmeChallenge[]>;
  expired(before: Date, limit: number): Promise<AcmeChallenge[]>;
}
