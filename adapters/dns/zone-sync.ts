import type { Logger } from 'pino';
import type { ZoneRepository, ZoneVersion, ZoneVersionMark, ZoneVersionsSince } from '../../core/dns/ports/zone-repository.port.js';
import type { RecordSet, RecordType } from '../../core/dns/zone/record-set.js';
import { afterChanges } from '../../core/dns/zone/zone-sets.js';
import type { StoredZone } from '../../core/dns/zone/zone.js';
import type { ZonePublisher } from '../../core/dns/zone/zone-service.js';
import type { ChangeFeed } from '../../core/kernel/change-feed.port.js';
import { catalogZone, inCatalog, type CatalogVersion } from './catalog.js';
import type { HeldText, ZoneSnapshot } from './zone-snapshot.js';

/** The catalog zone (RFC 9432) this server offers its secondaries, and where its version is kept. */
export interface CatalogOptions {
  readonly name: string;
  readonly version: CatalogVersion;
  /**
   * A nameserver that builds the catalog only when asked for it (embedded.adapter.ts, publishCatalog): it is
   * given each version's members instead of the version built. Without it, each version is built and published.
   */
  readonly holder?: { publishCatalog(serial: number, members: readonly string[]): void };
}
import type { Environment } from '../../core/kernel/environment.js';

/**
 * A nameserver that keeps, for some zones, the record sets of the version it serves (the base it builds the
 * next version from: adapters/dns/embedded/incremental.ts).
 */
export interface ZoneBases {
  /** The record sets of the version of `domain` served, its serial, and the sets by name and type; null: not kept. */
  baseOf(domain: string): ZoneBase | null;
}

/** A zone's version as a nameserver holds it (ZoneBases). */
export interface ZoneBase {
  /** The stored zone it is a version of (null: unknown, never taken for a stored zone's). */
  readonly zoneId: string | null;
  readonly serial: number;
  readonly recordSets: readonly RecordSet[];
  /** The set of a name and type among them. */
  find(name: string, type: RecordType): RecordSet | undefined;
}

/** A nameserver that holds small unsigned zones as short texts (embedded.adapter.ts, DormantZone). */
export interface HeldTexts {
  /** How `domain` is held, if as a text: its serial, text and record count; null otherwise. */
  heldText(domain: string): { serial: number; text: string; records: number } | null;
  /** Holds `domain` at `serial` as `text`: one a server of this kind held (a snapshot's), checked when it was published. */
  holdText(domain: string, serial: number, text: string, records: number): void;
}

/** What a ZoneSync serves: one environment's zones alone (`only`), and the catalog zone, if any. */
export interface ZoneSyncOptions {
  readonly only?: Environment;
  readonly catalog?: CatalogOptions | null;
  /**
   * The target's bases: a zone it holds the served version of is brought up to date from the store's change
   * log (ZoneRepository.changesSince: the commits since, a few sets each) instead of read whole.
   */
  readonly bases?: ZoneBases;
  /**
   * The target wants only signed zones (the DNSSEC signer): an unsigned zone's record sets are never read, the
   * zone is withdrawn from the target instead (which then keeps nothing of it).
   */
  readonly signedOnly?: boolean;
  /** The longest time between two complete reads (default COMPLETE_READ_MS). */
  readonly completeReadMs?: number;
  /**
   * The zones held as texts at the last run (ZoneSnapshot): the first load takes from it each zone whose
   * version — zone id, serial and stamp, as the first read of the store gives them — it holds, instead of
   * reading that zone's record sets. With `write`, this sync writes it after the loads that changed what is
   * held, never before it serves (`start`): flushSnapshot right after start, else a second after it; then at
   * most once per SNAPSHOT_EVERY_MS, for the next start.
   */
  readonly snapshot?: { readonly file: ZoneSnapshot; readonly texts: HeldTexts; readonly write: boolean };
  /**
   * While true, a zone that cannot be published is logged as a warning, not an error: a cluster worker's read
   * before the start (src/dns-server.ts, `hold`), made before it knows the store is migrated, may fail on a
   * store a migration holds busy. That read is kept only if no migration came, and the zone is tried again.
   */
  readonly early?: () => boolean;
}

/** The shortest time between two writes of the snapshot. */
const SNAPSHOT_EVERY_MS = 60_000;

/** How many zones are read (with their record sets) and published at a time: at start, or after a complete read. */
const LOAD_BATCH = 200;

/**
 * Keeps a nameserver in step with the store: loads every zone at start (a few hundred per read), then
 * asks for the zones written since it last looked (`ZoneRepository.versionsSince`: one indexed read, not
 * one row per zone) and publishes what changed — zones changed by other processes (the worker, other API
 * processes) included. Changes made in this process are published at once by ZoneService; this is the
 * backstop. Where a name exists in both environments, the live zone is served. With `only`, the zones of
 * that environment alone (production serves sandbox zones on a port of their own).
 */
/** The longest time between two complete reads of every zone's version. */
export const COMPLETE_READ_MS = 60_000;

export class ZoneSync {
  /** What is served, by domain: the version read when it was (held once for both maps), or its id and the serial published. */
  private readonly served = new Map<string, { readonly id: string; readonly serial: number }>();
  /** Every zone's version as last read, by domain: one, or the list when a name is in both environments. */
  private readonly known = new Map<string, ZoneVersion | ZoneVersion[]>();
  /** Where the last read got to. */
  private mark: ZoneVersionMark | null = null;
  /** Domains whose last publish failed (signatures pending, say): tried again on every load. */
  private readonly failing = new Set<string>();
  /** When the last complete read was (ms since the epoch): one at least every COMPLETE_READ_MS. */
  private lastComplete = 0;
  private timer: NodeJS.Timeout | null = null;
  /** The catalog serial served, and the members it listed. */
  private catalogServed: { serial: number } | null = null;
  /** Whether the first load read the snapshot; what was served changed since it was last written; when that was; the write due. */
  private snapshotRead = false;
  private snapshotDirty = false;
  private snapshotWritten = 0;
  private snapshotTimer: NodeJS.Timeout | null = null;
  private stopped = false;
  /** The stamps the first read brought: for fromSnapshot, and the first write of the snapshot (then let go). */
  private firstStamps: ReadonlyMap<string, string> | null = null;

  constructor(
    private readonly zones: ZoneRepository,
    private readonly target: ZonePublisher,
    private readonly log: Logger,
    private readonly options: ZoneSyncOptions = {},
  ) {
    this.catalogName = options.catalog ? options.catalog.name.toLowerCase().replace(/\.$/, '') : null;
  }

  /** The catalog's name, as served (lower case, no trailing dot); null: no catalog. */
  private readonly catalogName: string | null;

  /** The version of `domain` to serve among those read: the live one where both environments hold it; null: none. */
  private chosen(domain: string): ZoneVersion | null {
    const read = this.known.get(domain);
    if (read === undefined) return null;
    if (!Array.isArray(read)) return this.serves(read) ? read : null;
    let pick: ZoneVersion | null = null;
    for (const v of read) {
      if (!this.serves(v)) continue;
      if (!pick || (pick.environment === 'test' && v.environment === 'live')) pick = v;
    }
    return pick;
  }

  /**
   * Whether a version may be served here: of the environment served, and (a hosted zone not yet verified is
   * stored, never answered, transferred or NOTIFYed) served; and not the catalog zone's name nor under it,
   * which is the service's alone (an account's zone there would stand in for the catalog the secondaries follow).
   */
  private serves(v: ZoneVersion): boolean {
    return (!this.options.only || v.environment === this.options.only) && v.served && !this.catalogOwns(v.domain);
  }

  private catalogOwns(domain: string): boolean {
    return this.catalogName !== null && inCatalog(domain.toLowerCase(), this.catalogName);
  }

  /** Takes in what a read returned; the domains it may have changed. */
  private take(read: ZoneVersionsSince, touched: Set<string>): void {
    if (read.complete) {
      for (const d of this.known.keys()) touched.add(d);
      for (const d of this.served.keys()) touched.add(d);
      this.known.clear();
    }
    for (const v of read.versions) {
      touched.add(v.domain);
      const had = this.known.get(v.domain);
      if (!had || (!Array.isArray(had) && had.id === v.id)) this.known.set(v.domain, v);
      else if (!Array.isArray(had)) this.known.set(v.domain, [had, v]);
      else {
        const i = had.findIndex((x) => x.id === v.id);
        if (i >= 0) had[i] = v;
        else had.push(v);
      }
    }
    this.mark = read.mark;
  }

  /**
   * Publishes every zone whose version changed since the last call, withdraws the ones gone; the number
   * of zones served.
   */
  async load(): Promise<number> {
    const touched = new Set<string>(this.failing);
    const catalogSerial = await this.read(touched);
    const toLoad: string[] = [];
    /** The domain of each id in toLoad. */
    const domainOf = new Map<string, string>();
    const fromBase: Array<{ readonly domain: string; readonly id: string; readonly base: ZoneBase }> = [];
    for (const domain of touched) {
      const v = this.chosen(domain);
      const was = this.served.get(domain);
      if (!v) {
        this.failing.delete(domain);
        if (was) {
          if (this.heldAsText(domain)) this.snapshotDirty = true;
          await this.target.withdraw(domain);
          this.served.delete(domain);
        }
        continue;
      }
      if (was && was.id === v.id && was.serial === v.serial && !this.failing.has(domain)) continue;
      // The served version, held by the target: the commits since are enough to build the new one.
      const base: ZoneBase | null = was?.id === v.id && !this.failing.has(domain) ? (this.options.bases?.baseOf(domain) ?? null) : null;
      // The same zone's (a name may have one in each environment) and the version served.
      domainOf.set(v.id, domain);
      if (base && base.zoneId === v.id && base.serial === was!.serial) fromBase.push({ domain, id: v.id, base });
      else toLoad.push(v.id);
    }
    for (const { domain, id, base } of fromBase) if (!(await this.publishFromBase(domain, id, base))) toLoad.push(id);
    if (this.options.signedOnly) await this.withdrawUnsigned(toLoad, domainOf);
    if (this.options.snapshot && !this.snapshotRead) await this.fromSnapshot(toLoad, domainOf);
    for (let i = 0; i < toLoad.length; i += LOAD_BATCH) {
      for (const zone of await this.zones.findByIds(toLoad.slice(i, i + LOAD_BATCH))) await this.publishOne(zone);
    }
    if (catalogSerial !== null && this.catalogServed?.serial !== catalogSerial)
      await this.publishCatalog(
        catalogSerial,
        [...this.known.keys()].filter((d) => this.chosen(d) !== null),
      );
    if (this.snapshotDirty && this.options.snapshot?.write) this.snapshotDue();
    // The first read's stamps are kept for a write now due, else let go.
    else this.firstStamps = null;
    return this.served.size;
  }

  /**
   * The first load: the zones of `ids` whose version the snapshot holds are held from it (not read, not
   * checked again) and taken out of `ids`.
   */
  private async fromSnapshot(ids: string[], domainOf: ReadonlyMap<string, string>): Promise<void> {
    const { file, texts } = this.options.snapshot!;
    this.snapshotRead = true;
    const { zones, problem } = file.read();
    if (problem) this.log.warn({ file: file.path, problem }, 'zone snapshot not used');
    if (zones === 0) return;
    const stamps = this.firstStamps ?? (await this.zones.versionStamps());
    const rest: string[] = [];
    for (const id of ids) {
      const domain = domainOf.get(id)!;
      const chosen = this.chosen(domain);
      const kept = chosen?.id === id ? file.take(id, domain, chosen.serial, stamps.get(id)) : null;
      if (!kept) {
        rest.push(id);
        continue;
      }
      texts.holdText(domain, chosen!.serial, kept.text, kept.records);
      this.failing.delete(domain);
      this.served.set(domain, chosen!);
    }
    file.clear();
    this.log.info({ file: file.path, zones: ids.length - rest.length, read: rest.length }, 'zones taken from the snapshot');
    ids.length = 0;
    ids.push(...rest);
  }

  /** The snapshot written soon (the first time a second after the first load, then once per SNAPSHOT_EVERY_MS at most). */
  private snapshotDue(): void {
    // Never before it serves (start): a DNS worker loads before the store is known to be migrated, and what
    // it read then may be thrown away (src/dns-server.ts, `hold`).
    if (this.snapshotTimer || this.stopped || !this.timer) return;
    const wait = this.snapshotWritten === 0 ? 1000 : Math.max(0, this.snapshotWritten + SNAPSHOT_EVERY_MS - Date.now());
    this.snapshotTimer = setTimeout(() => void this.writeSnapshot(), wait);
    this.snapshotTimer.unref();
  }

  /** Writes the snapshot now if this sync writes it and what is held changed since its last write (instead of the timer's write). */
  async flushSnapshot(): Promise<boolean> {
    if (!this.options.snapshot?.write || !this.snapshotDirty || this.stopped) return false;
    await this.writeSnapshot();
    return true;
  }

  /** Writes every zone held as a text, at the version served, to the snapshot (its failure is logged: only a later start is slower). */
  async writeSnapshot(): Promise<void> {
    if (this.snapshotTimer) clearTimeout(this.snapshotTimer);
    this.snapshotTimer = null;
    const { file, texts } = this.options.snapshot!;
    this.snapshotDirty = false;
    this.snapshotWritten = Date.now();
    try {
      // Each version as the store stamped it: those of the first read (the first write, right after the first
      // load), else read now. A version that moved on since it was served is left out.
      const stamps = this.firstStamps ?? (await this.zones.versionStamps());
      this.firstStamps = null;
      const held: HeldText[] = [];
      for (const [domain, v] of this.served) {
        const t = texts.heldText(domain);
        const stamp = stamps.get(v.id);
        if (t && t.serial === v.serial && stamp?.startsWith(`${v.serial}/`))
          held.push({ id: v.id, domain, serial: v.serial, stamp, text: t.text, records: t.records });
      }
      file.write(held);
    } catch (err) {
      this.log.warn({ err, file: file.path }, 'zone snapshot not written');
    }
  }

  /**
   * The zone `id` built from the version the target serves (`base`) and the commits since, as the store's
   * change log holds them; false when it holds no such chain (the caller reads the whole zone).
   */
  private async publishFromBase(domain: string, id: string, base: ZoneBase): Promise<boolean> {
    const read = await this.zones.changesSince(id, base.serial);
    if (!read) return false;
    if (read.changes.length === 0) return true; // still the version served
    // The target may have built another version meanwhile (a publish by this process's ZoneService): its base
    // has moved on, and `find` no longer answers for the list held here.
    const now = this.options.bases?.baseOf(domain);
    if (now?.recordSets !== base.recordSets || now.serial !== base.serial || now.zoneId !== id) return false;
    const recordSets = afterChanges(base.recordSets, read.changes, (name, type) => base.find(name, type));
    if (!recordSets) return false;
    await this.publishOne({ ...read.head, recordSets });
    return true;
  }

  /**
   * signedOnly: of the zones `ids` (of the domains `domainOf` names), the unsigned ones are withdrawn from the
   * target and taken out of `ids`. Which are signed is one read of the few signed zones' ids: a zone of
   * 100,000 sets is not read to learn that it is not signed, nor 10,000 zones' rows at start. The version
   * marked withdrawn is the one just read; should the zone have moved on since, the next load sees it.
   */
  private async withdrawUnsigned(ids: string[], domainOf: ReadonlyMap<string, string>): Promise<void> {
    if (ids.length === 0) return;
    const signed = await this.zones.signedAmong(ids);
    const kept: string[] = [];
    for (const id of ids) {
      if (signed.has(id)) {
        kept.push(id);
        continue;
      }
      const domain = domainOf.get(id)!;
      const chosen = this.chosen(domain);
      if (chosen?.id !== id) continue;
      // The target holds only what was published to it, which `served` records (at start: nothing).
      if (this.served.has(domain)) await this.target.withdraw(domain);
      this.failing.delete(domain);
      this.served.set(domain, chosen);
    }
    ids.length = 0;
    ids.push(...kept);
  }

  /** Publishes one zone read from the store; a failure is logged and the zone tried again next load. */
  private async publishOne(zone: StoredZone): Promise<void> {
    const domain = zone.domain;
    // Read after its version: it may have stopped being served, or moved on (then it is published at the serial read).
    const chosen = this.chosen(domain);
    if (zone.served === false || chosen?.id !== zone.id) return;
    // The snapshot changes only when a zone held as a text comes, goes or changes (the others are not in it).
    const wasText = this.heldAsText(domain);
    try {
      await this.target.publish(zone);
    } catch (err) {
      // One zone that cannot be served (a signed zone whose key cannot be opened, say) keeps its last
      // version and is tried again next load; it must not hold back every zone after it. A version whose
      // signatures the signer has not stored yet is loaded when the signer's write is announced.
      this.failing.add(domain);
      if ((err as Error)?.name === 'SignaturesPending') this.log.debug({ zone: domain, serial: zone.serial }, 'zone signatures pending');
      else if (this.options.early?.())
        this.log.warn({ err, zone: domain, serial: zone.serial }, 'zone not published in the read before the start');
      else this.log.error({ err, zone: domain, serial: zone.serial }, 'zone not published');
      return;
    }
    this.failing.delete(domain);
    this.served.set(domain, chosen.serial === zone.serial ? chosen : { id: chosen.id, serial: zone.serial });
    if (wasText || this.heldAsText(domain)) this.snapshotDirty = true;
  }

  /** Whether the target holds `domain` as a text (what the snapshot keeps); false without a snapshot. */
  private heldAsText(domain: string): boolean {
    return this.options.snapshot !== undefined && this.options.snapshot.texts.heldText(domain) !== null;
  }

  /**
   * Reads the versions written since the last read into `known` and, with a catalog, the catalog serial
   * they belong to: the serial is read again after the versions, and they are read again if a zone was
   * added or removed in between, so a catalog serial is never served with two different member lists (by
   * two workers, or one worker twice).
   */
  private async read(touched: Set<string>): Promise<number | null> {
    for (let attempt = 0; ; attempt++) {
      // A complete read now and then, as a backstop: a write that did not advance change_seq (an older
      // version of this service during a rolling deploy, a hand-made fix in SQL) is served within a minute.
      const due = Date.now() - this.lastComplete >= (this.options.completeReadMs ?? COMPLETE_READ_MS);
      // The first read, with a snapshot to take zones from: with each version's stamp (fromSnapshot).
      const stamps = !!this.options.snapshot && !this.snapshotRead;
      const read = await this.zones.versionsSince(due ? null : this.mark, stamps ? { stamps } : {});
      if (stamps) this.firstStamps = read.stamps ?? null;
      if (read.complete) this.lastComplete = Date.now();
      this.take(read, touched);
      if (!this.options.catalog) return null;
      const after = await this.options.catalog.version.catalogSerial();
      if (read.mark.membership === after) return after;
      if (attempt >= 4) return null;
    }
  }

  /** Serves the catalog of the zones just read under its serial, once per serial. */
  private async publishCatalog(serial: number, members: string[]): Promise<void> {
    if (!this.options.catalog || this.catalogServed?.serial === serial) return;
    const name = this.catalogName!;
    const listed = members.filter((m) => !this.catalogOwns(m));
    if (this.options.catalog.holder) this.options.catalog.holder.publishCatalog(serial, listed);
    else await this.target.publish(catalogZone(name, serial, listed));
    this.catalogServed = { serial };
  }

  private running: Promise<void> | null = null;
  private again = false;

  /**
   * Loads at once when any process announces a zone change (or the feed reconnected), instead
   * of waiting for the next poll; loads never overlap (one more runs after the current one if asked).
   */
  follow(feed: ChangeFeed): () => void {
    void feed.start();
    return feed.subscribe((c) => {
      if (c === null || c.topic === 'zone') this.kick();
    });
  }

  /** A load now, or right after the one running. Resolves once a load that began after the call is done. */
  kick(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      try {
        do {
          this.again = false;
          await this.load().catch((err) => this.log.error({ err }, 'zone sync failed'));
        } while (this.again);
      } finally {
        this.running = null;
      }
    })();
    return this.running;
  }

  start(intervalMs = 2000): void {
    // Through kick(): never two loads at once (an older complete read finishing last would undo a newer one).
    this.timer = setInterval(() => void this.kick(), intervalMs);
    this.timer.unref();
    if (this.snapshotDirty && this.options.snapshot?.write) this.snapshotDue();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    if (this.snapshotTimer) clearTimeout(this.snapshotTimer);
    this.snapshotTimer = null;
  }
}
