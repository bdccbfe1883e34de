import type { ZoneSets } from './zone-sets.js';

/** Record sets a process keeps indexed, over every zone (two zones of 100k sets; roughly 0.5 KB a set). */
export const DEFAULT_ZONE_CACHE_SETS = 200_000;

/**
 * The indexed record sets of recently planned zones, each at one serial: a plan on a zone of 100k sets
 * reads the zone's row, and only when its serial is not the one kept here all its sets. Exact by
 * construction: every write to a zone's sets bumps its serial in the same transaction (ZoneRepository.commit),
 * and an entry is added only for a serial read with the sets in one statement or after its own commit —
 * so a kept (zone, serial) always holds what the store holds at that serial. Least recently used zones go
 * first once more than `maxSets` sets are kept.
 */
export class ZoneCache {
  private readonly entries = new Map<string, { serial: number; sets: ZoneSets }>();
  private held = 0;

  constructor(private readonly maxSets: number = DEFAULT_ZONE_CACHE_SETS) {}

  /** The zone's sets at `serial`, if kept. */
  get(zoneId: string, serial: number): ZoneSets | null {
    const e = this.entries.get(zoneId);
    if (!e || e.serial !== serial) return null;
    // Most recently used last (a Map keeps insertion order).
    this.entries.delete(zoneId);
    this.entries.set(zoneId, e);
    return e.sets;
  }

  put(zoneId: string, serial: number, sets: ZoneSets): void {
    this.drop(zoneId);
    if (sets.size > this.maxSets) return;
    this.entries.set(zoneId, { serial, sets });
    this.held += sets.size;
    for (const [id, e] of this.entries) {
      if (this.held <= this.maxSets) break;
      this.entries.delete(id);
      this.held -= e.sets.size;
    }
  }

  drop(zoneId: string): void {
    const e = this.entries.get(zoneId);
    if (!e) return;
    this.entries.delete(zoneId);
    this.held -= e.sets.size;
  }

  /** Sets kept now, over every zone. */
  get size(): number {
    return this.held;
  }
}
