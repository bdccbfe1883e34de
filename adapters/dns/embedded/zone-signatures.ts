import type { ZoneSignatureRepository } from '../../../core/dns/ports/zone-signature-repository.port.js';
import type { RecordSet, RecordType } from '../../../core/dns/zone/record-set.js';
import type { StoredZone } from '../../../core/dns/zone/zone.js';
import type { Zone } from '../../../core/dns/zone/zone.js';
import { compileZone, compileZoneAsync, type BulkSigner, type CompiledZone } from './compiled-zone.js';
import { rdataOf, SignatureCache, SignaturesPending } from './dnssec.js';
import { setOf, sourceOf, updateZone, type ZoneSource } from './incremental.js';
import { normaliseName } from './rdata.js';

/**
 * How a server gets the RRSIGs of the zones it compiles (README "DNSSEC: one signer").
 *
 * - The signer (`openKey` set: it alone opens the sealed keys) reads what the store holds of the zone,
 *   signs only the RRsets no stored signature covers (new records, a new window or key), and stores what it
 *   made — one transaction, conditional on the generation it read — before the zone is served anywhere.
 * - Every other server (the DNS workers: no `openKey`) reads the stored signatures (only those written
 *   since its last read) and serves them. An RRset that none covers yet (the signer is still at work) throws
 *   SignaturesPending: the server keeps the version it serves and loads again when the signer's write is
 *   announced.
 * - With no store (tests, benches that publish bare zones), the server signs for itself in memory.
 *
 * Publishes of one zone take turns: each reads, compiles and writes with the zone's one SignatureCache.
 */
/** The version of a zone compiled last, as the base of the next (ZoneSync's ZoneBases). */
export interface HeldVersion {
  /** The stored zone's id the version was compiled from (null: not a stored zone). */
  readonly zoneId: string | null;
  readonly serial: number;
  readonly recordSets: readonly RecordSet[];
  /** The set of a name and type among `recordSets`. */
  find(name: string, type: RecordType): RecordSet | undefined;
}

export class ZoneSignatures {
  private readonly caches = new Map<string, SignatureCache>();
  private readonly turns = new Map<string, Promise<unknown>>();
  /** Per zone, the version compiled last, for building the next one from it (incremental.ts). */
  private readonly sources = new Map<string, ZoneSource>();
  /** Per zone, the id of the stored zone its source was built from (a name can have a zone in each environment). */
  private readonly zoneIds = new Map<string, string>();
  /** How versions were built: changed from the last (incremental) or compiled whole (full); for tests and benches. */
  readonly built = { incremental: 0, full: 0 };

  constructor(
    private readonly store: ZoneSignatureRepository | null,
    private readonly openKey: ((sealed: string) => string) | null,
    private readonly bulk: BulkSigner | null = null,
  ) {}

  /** The signature cache of a zone (tests read `made`). */
  cacheOf(apex: string): SignatureCache | undefined {
    return this.caches.get(normaliseName(apex));
  }

  /** Whether nothing is held or under way for the zone `apex` (normalised): no signatures, base or compile. */
  idle(apex: string): boolean {
    return !this.caches.has(apex) && !this.sources.has(apex) && !this.turns.has(apex);
  }

  forget(domain: string): void {
    if (this.caches.size === 0 && this.sources.size === 0 && this.zoneIds.size === 0) return;
    const apex = normaliseName(domain);
    this.caches.delete(apex);
    this.sources.delete(apex);
    this.zoneIds.delete(apex);
  }

  /**
   * The record sets of the version of `domain` compiled last (the base the next is built from) and its
   * serial; null when none is kept (a small zone, or one asleep, is compiled whole).
   */
  baseOf(domain: string): HeldVersion | null {
    const src = this.sources.get(normaliseName(domain));
    if (!src) return null;
    const byName = src.byName;
    return {
      zoneId: this.zoneIds.get(normaliseName(domain)) ?? null,
      serial: src.compiled.serial,
      recordSets: src.list,
      find: (name, type) => setOf(byName, name, type),
    };
  }

  /**
   * Compiles the zone, signed as above when it carries `signing`. `keep` false: the version is not kept as the
   * base of the next (a zone the server holds dormant, which it compiles whole when it wakes).
   */
  compile(zone: Zone, skip: (reason: string, set: RecordSet) => void, keep = true): Promise<CompiledZone> {
    const apex = normaliseName(zone.domain);
    const run = (this.turns.get(apex) ?? Promise.resolve()).catch(() => undefined).then(() => this.compileNow(apex, zone, skip, keep));
    this.turns.set(apex, run);
    void run.finally(() => this.turns.get(apex) === run && this.turns.delete(apex)).catch(() => undefined);
    return run;
  }

  private async compileNow(apex: string, zone: Zone, skip: (reason: string, set: RecordSet) => void, keep: boolean): Promise<CompiledZone> {
    const id = (zone as { id?: unknown }).id;
    if (!zone.signing) {
      const was = this.caches.delete(apex);
      // The signer forgets what it stored once the zone is served unsigned (DNSSEC switched off).
      if (was && this.store && this.openKey && typeof id === 'string') await this.store.clear(id);
      return this.build(apex, zone, skip, null, async () => compileZone(zone, skip), keep);
    }
    let cache = this.caches.get(apex);
    if (!cache) this.caches.set(apex, (cache = new SignatureCache()));
    const options = { ...(this.openKey ? { openKey: this.openKey } : {}), signatures: cache };
    const signing = { openKey: this.openKey, cache };
    const whole = (): Promise<CompiledZone> => compileZoneAsync(zone, skip, options, this.bulk);
    if (!this.store || typeof id !== 'string') return this.build(apex, zone, skip, signing, whole);

    for (let attempt = 0; ; attempt++) {
      const full = cache.generation < 0 || attempt > 0;
      const snap = await this.store.read(id, full ? -1 : cache.generation);
      if (!snap) cache.reset();
      else if (full || snap.generation !== cache.generation) cache.load(snap.signatures, snap.generation, full);
      let compiled: CompiledZone;
      try {
        compiled = await this.build(apex, zone, skip, signing, whole);
      } catch (err) {
        // A worker that pruned a signature the store still holds reads everything once before it gives up.
        if (err instanceof SignaturesPending && !full) continue;
        if (!(err instanceof SignaturesPending)) cache.reset();
        throw err;
      }
      if (!this.openKey) return compiled;
      if (cache.fresh.length === 0 && cache.dropped.length === 0 && cache.generation >= 0) return compiled;
      const put = cache.fresh.map((f) => ({ rrset: f.rrset, keyTag: f.keyTag, digest: f.digest, rdata: rdataOf(f.rrsig) }));
      const generation = await this.store.store(id, cache.generation, compiled.serial, put, cache.dropped);
      if (generation !== null) {
        cache.generation = generation;
        return compiled;
      }
      // Another signer stored this zone first: serve its signatures, not ours.
      cache.reset();
      this.sources.delete(apex);
      if (attempt >= 3) throw new Error(`nameserver: zone ${apex}: the signatures kept changing under this signer`);
    }
  }

  /** Remembers which stored zone (if any) the source of `apex` now holds a version of. */
  private keepId(apex: string, zone: Zone): void {
    const id = (zone as Partial<StoredZone>).id;
    if (id === undefined) this.zoneIds.delete(apex);
    else this.zoneIds.set(apex, id);
  }

  /**
   * The version from the last one when it differs by a few sets (incremental.ts), else compiled whole by
   * `whole`; either way remembered as the base of the next. A failure forgets the base.
   */
  private async build(
    apex: string,
    zone: Zone,
    skip: (reason: string, set: RecordSet) => void,
    signing: { openKey: ((sealed: string) => string) | null; cache: SignatureCache } | null,
    whole: () => Promise<CompiledZone>,
    keep = true,
  ): Promise<CompiledZone> {
    const src = this.sources.get(apex);
    this.sources.delete(apex);
    if (src) {
      const next = updateZone(src, zone, skip, signing);
      if (next) {
        this.built.incremental++;
        this.sources.set(apex, src);
        this.keepId(apex, zone);
        return next;
      }
    }
    const compiled = await whole();
    this.built.full++;
    const fresh = keep ? sourceOf(zone, compiled) : null;
    if (fresh) {
      this.sources.set(apex, fresh);
      this.keepId(apex, zone);
    }
    return compiled;
  }
}
