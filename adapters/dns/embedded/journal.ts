import type { CompiledZone } from './compiled-zone.js';
import { changedNames } from './incremental.js';
import { serialBefore } from './wire.js';

/**
 * The changes between the zone versions this server has published, so that a secondary that asks IXFR
 * (RFC 1995) from a serial we published gets only what changed since, not the whole zone.
 *
 * Each publish of a newer serial adds one diff: the old SOA, the records that went, the new SOA, the
 * records that came (a changed TTL or value is one deleted and one added record, as RFC 1995 has it).
 * Diffs are kept while they chain (each starts where the previous ended) and while, together, they are
 * smaller than the zone itself and fewer than `maxDiffs`: past that a whole transfer is as cheap. The
 * journal lives in memory, one per zone per process: after a restart (or on a DNS worker that missed a
 * version) an IXFR from a serial it does not know is answered with the whole zone, AXFR-style, as before.
 */

/**
 * A step of at least this much (a quarter of the serial space) is a jump: an RFC 1982 §7 reset in
 * progress, or a serial set by hand. The journal starts again after it.
 */
const SERIAL_JUMP = 2 ** 30;

/** How far `b` lies ahead of `a` on the serial circle (RFC 1982: 0 to 2^32 - 1). */
const serialDistance = (a: number, b: number): number => (b - a + 2 ** 32) % 2 ** 32;

/** A record as sent in a transfer: owner name (wire form) and the rest (type, class, TTL, RDATA). */
export type WireRecord = readonly [Buffer, Buffer];

export interface Diff {
  readonly from: number;
  readonly to: number;
  readonly fromSoa: Buffer;
  readonly toSoa: Buffer;
  readonly deleted: readonly WireRecord[];
  readonly added: readonly WireRecord[];
}

const sameTails = (a: readonly Buffer[], b: readonly Buffer[]): boolean => {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!a[i]!.equals(b[i]!)) return false;
  return true;
};

/** The records of `tails` not among `others` (compared by wire form, TTL included). */
const missing = (tails: readonly Buffer[], others: readonly Buffer[]): Buffer[] => {
  if (others.length > 16) {
    const seen = new Set(others.map((o) => o.toString('latin1')));
    return tails.filter((t) => !seen.has(t.toString('latin1')));
  }
  return tails.filter((t) => !others.some((o) => o.equals(t)));
};

/**
 * What went from `old` and came in `next`, SOA aside. Set by set: an RRset whose records are octet for
 * octet the same (most of them, in a plan's publish) costs one comparison and no allocation.
 */
const diff = (old: CompiledZone, next: CompiledZone): { deleted: WireRecord[]; added: WireRecord[] } => {
  const deleted: WireRecord[] = [];
  const added: WireRecord[] = [];
  // A version built from `old` by changing a few names (incremental.ts): only those names can differ.
  const changed = changedNames.get(next);
  if (changed?.from === old) {
    for (const name of changed.names) {
      const before = old.nodes.get(name);
      const after = next.nodes.get(name);
      for (const set of after?.order ?? []) {
        if (set === next.soa) continue;
        const prev = before?.sets.get(set.type);
        if (prev === set || (prev && sameTails(prev.tails, set.tails))) continue;
        for (const t of missing(set.tails, prev?.tails ?? [])) added.push([after!.wire, t]);
        if (prev) for (const t of missing(prev.tails, set.tails)) deleted.push([before!.wire, t]);
      }
      for (const set of before?.order ?? []) {
        if (set === old.soa || after?.sets.has(set.type)) continue;
        for (const t of set.tails) deleted.push([before!.wire, t]);
      }
    }
    return { deleted, added };
  }
  for (const [name, node] of next.nodes) {
    const before = old.nodes.get(name);
    for (const set of node.order) {
      if (set === next.soa) continue;
      const prev = before?.sets.get(set.type);
      if (prev && sameTails(prev.tails, set.tails)) continue;
      for (const t of missing(set.tails, prev?.tails ?? [])) added.push([node.wire, t]);
      if (prev) for (const t of missing(prev.tails, set.tails)) deleted.push([before!.wire, t]);
    }
  }
  for (const [name, node] of old.nodes) {
    const after = next.nodes.get(name);
    for (const set of node.order) {
      if (set === old.soa || after?.sets.has(set.type)) continue; // a set still there was compared above
      for (const t of set.tails) deleted.push([node.wire, t]);
    }
  }
  return { deleted, added };
};

export class Journal {
  private diffs: Diff[] = [];
  /** Records in all diffs. */
  private size = 0;

  constructor(private readonly maxDiffs = 100) {}

  /** How many diffs are held, from which serial to which (for logs and tests). */
  span(): { diffs: number; from: number | null; to: number | null; records: number } {
    return { diffs: this.diffs.length, from: this.diffs[0]?.from ?? null, to: this.diffs.at(-1)?.to ?? null, records: this.size };
  }

  /** Records the change from `old` to `next` (a newer serial, both of this zone). */
  record(old: CompiledZone, next: CompiledZone): void {
    if (!this.follows(old.serial, next.serial)) return;
    const { deleted, added } = diff(old, next);
    this.push(
      { from: old.serial, to: next.serial, fromSoa: old.soa.tails[0]!, toSoa: next.soa.tails[0]!, deleted, added },
      next.recordCount,
    );
  }

  /**
   * Records a change known without either version compiled (the catalog: what members came and went): the
   * SOA tails of both serials, the records that went and came, and how many records `to` holds.
   */
  recordChange(change: Diff, recordCount: number): void {
    if (this.follows(change.from, change.to)) this.push(change, recordCount);
  }

  /** Whether a diff from `from` to `to` can be journaled (after which it is pushed); the journal cleared when it cannot follow. */
  private follows(from: number, to: number): boolean {
    if (from === to || this.maxDiffs === 0) return false;
    // A gap (a version published elsewhere, or a withdraw between): the older diffs no longer lead here.
    if (this.diffs.length > 0 && this.diffs.at(-1)!.to !== from) this.clear();
    // A serial that goes back, or jumps (an RFC 1982 §7 reset, stepping round the circle): the serials
    // before it may come again, and a client holding one of them would be sent the wrong history.
    if (!serialBefore(from, to) || serialDistance(from, to) >= SERIAL_JUMP) {
      this.clear();
      return false;
    }
    return true;
  }

  private push(d: Diff, recordCount: number): void {
    this.diffs.push(d);
    this.size += d.deleted.length + d.added.length;
    const limit = Math.max(recordCount, 64);
    // Every serial held must compare (RFC 1982) with every other, so none can appear twice: the span from
    // the oldest to the newest stays under 2^31.
    while (
      this.diffs.length > 0 &&
      (this.diffs.length > this.maxDiffs || this.size > limit || serialDistance(this.diffs[0]!.from, d.to) >= 2 ** 31)
    ) {
      const gone = this.diffs.shift()!;
      this.size -= gone.deleted.length + gone.added.length;
    }
  }

  clear(): void {
    this.diffs = [];
    this.size = 0;
  }

  /**
   * The records of an incremental transfer from `serial` up to `zone` (RFC 1995 §4): the new SOA, then
   * per diff the old SOA, the deleted records, the new SOA and the added ones, and the new SOA again.
   * Null when the journal does not reach back to `serial` (or forward to `zone`): send the whole zone.
   */
  since(serial: number, zone: CompiledZone): Array<readonly Buffer[]> | null {
    if (this.diffs.length === 0 || this.diffs.at(-1)!.to !== zone.serial) return null;
    // The newest diff from that serial: should a serial ever be held twice, the older history is not
    // the client's. And in doubt (the chain passes the final serial, or the client's, midway: a client
    // would stop there, or apply the wrong history) the whole zone goes instead.
    let first = this.diffs.length - 1;
    while (first >= 0 && this.diffs[first]!.from !== serial) first--;
    if (first === -1) return null;
    const chain = this.diffs.slice(first);
    for (let i = 0; i < chain.length; i++) {
      const d = chain[i]!;
      if (i > 0 && (d.from === serial || d.from === zone.serial)) return null;
      if (i < chain.length - 1 && d.to === zone.serial) return null;
    }
    const apex = zone.apexNode.wire;
    const current = zone.soa.tails[0]!;
    const out: Array<readonly Buffer[]> = [[apex, current]];
    for (const d of chain) {
      out.push([apex, d.fromSoa], ...d.deleted, [apex, d.toSoa], ...d.added);
    }
    out.push([apex, current]);
    return out;
  }
}
