/**
 * A map that reads through to a base map and records its own sets and deletes apart, so that changing a few
 * entries of a large map does not copy it. It behaves exactly like `new Map(base)` changed by the same
 * calls — the same entries in the same iteration order: base entries in base order (with their new values,
 * deleted ones skipped), then the keys it added, in the order a Map would hold them (a key deleted and set
 * again goes to the end). The base must not change meanwhile.
 *
 * The plan builder uses it for the zone after a small plan (names → types → sets of a zone of 100k sets).
 */
export class OverlayMap<K, V> implements ReadonlyMap<K, V> {
  /** Base keys given a new value, or deleted (undefined). */
  private readonly own = new Map<K, V | undefined>();
  /** Keys not in the base, or deleted from it and set again, in Map order. */
  private readonly added = new Map<K, V>();
  private deleted = 0;

  constructor(private readonly base: ReadonlyMap<K, V>) {}

  /** Entries this map holds apart from its base (changed, deleted or added keys). */
  get changed(): number {
    return this.own.size + this.added.size;
  }

  /** A copy that behaves as this map does (same base, its own copies of the changes), to be changed on its own. */
  clone(): OverlayMap<K, V> {
    const copy = new OverlayMap<K, V>(this.base);
    for (const [k, v] of this.own) copy.own.set(k, v);
    for (const [k, v] of this.added) copy.added.set(k, v);
    copy.deleted = this.deleted;
    return copy;
  }

  get size(): number {
    return this.base.size - this.deleted + this.added.size;
  }

  /** Whether the key is in the base and not deleted from it. */
  private inBase(key: K): boolean {
    return this.base.has(key) && !(this.own.has(key) && this.own.get(key) === undefined);
  }

  get(key: K): V | undefined {
    const a = this.added.get(key);
    if (a !== undefined || this.added.has(key)) return a;
    return this.own.has(key) ? this.own.get(key) : this.base.get(key);
  }

  has(key: K): boolean {
    return this.added.has(key) || this.inBase(key);
  }

  set(key: K, value: V): this {
    // A key in `added` is never in the base (or was deleted from it): setting it again keeps its place there.
    if (this.inBase(key)) this.own.set(key, value);
    else this.added.set(key, value);
    return this;
  }

  delete(key: K): boolean {
    if (this.added.delete(key)) return true;
    if (!this.inBase(key)) return false;
    this.own.set(key, undefined);
    this.deleted++;
    return true;
  }

  *entries(): MapIterator<[K, V]> {
    for (const entry of this.base) {
      if (!this.own.has(entry[0])) yield entry;
      else {
        const v = this.own.get(entry[0]);
        if (v !== undefined) yield [entry[0], v];
      }
    }
    yield* this.added;
  }

  *keys(): MapIterator<K> {
    for (const [k] of this.entries()) yield k;
  }

  *values(): MapIterator<V> {
    for (const [, v] of this.entries()) yield v;
  }

  [Symbol.iterator](): MapIterator<[K, V]> {
    return this.entries();
  }

  forEach(fn: (value: V, key: K, map: ReadonlyMap<K, V>) => void, thisArg?: unknown): void {
    for (const [k, v] of this.entries()) fn.call(thisArg, v, k, this);
  }
}
