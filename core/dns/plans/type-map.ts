import type { RecordType } from '../zone/record-set.js';

/**
 * The types → sets map of one name in the zone a plan makes: a Map in behaviour (the same entries in the same
 * order — insertion order; a key deleted and set again goes to the end), a fraction of one in memory. Most
 * names hold one set, kept here in two fields; a Map of one entry takes some 185 bytes, and an import of a
 * million records holds one per name for its checks.
 */
export class TypeMap<V> implements ReadonlyMap<RecordType, V> {
  /** One key (and `v` its value), or the keys in order (and `v` the values), or none. */
  private k: RecordType | RecordType[] | undefined = undefined;
  private v: V | V[] | undefined = undefined;

  constructor(from?: Iterable<readonly [RecordType, V]>) {
    if (from) for (const [k, v] of from) this.set(k, v);
  }

  get size(): number {
    const k = this.k;
    return k === undefined ? 0 : Array.isArray(k) ? k.length : 1;
  }

  get(key: RecordType): V | undefined {
    const k = this.k;
    if (k === undefined) return undefined;
    if (!Array.isArray(k)) return k === key ? (this.v as V) : undefined;
    const i = k.indexOf(key);
    return i < 0 ? undefined : (this.v as V[])[i];
  }

  has(key: RecordType): boolean {
    const k = this.k;
    return k === undefined ? false : Array.isArray(k) ? k.includes(key) : k === key;
  }

  set(key: RecordType, value: V): this {
    const k = this.k;
    if (k === undefined) {
      this.k = key;
      this.v = value;
    } else if (!Array.isArray(k)) {
      if (k === key) this.v = value;
      else {
        this.k = [k, key];
        this.v = [this.v as V, value];
      }
    } else {
      const i = k.indexOf(key);
      if (i >= 0) (this.v as V[])[i] = value;
      else {
        // New arrays of the exact length (concat): a push, or a spread, would reserve room for 16 more.
        this.k = k.concat(key);
        this.v = (this.v as V[]).concat([value]);
      }
    }
    return this;
  }

  delete(key: RecordType): boolean {
    const k = this.k;
    if (k === undefined) return false;
    if (!Array.isArray(k)) {
      if (k !== key) return false;
      this.k = undefined;
      this.v = undefined;
      return true;
    }
    const i = k.indexOf(key);
    if (i < 0) return false;
    const values = this.v as V[];
    k.splice(i, 1);
    values.splice(i, 1);
    if (k.length === 1) {
      this.k = k[0];
      this.v = values[0];
    }
    return true;
  }

  *entries(): MapIterator<[RecordType, V]> {
    const k = this.k;
    if (k === undefined) return;
    if (!Array.isArray(k)) {
      yield [k, this.v as V];
      return;
    }
    // Over a copy: a change meanwhile does not disturb the walk.
    const keys = [...k];
    const values = [...(this.v as V[])];
    for (let i = 0; i < keys.length; i++) yield [keys[i]!, values[i]!];
  }

  *keys(): MapIterator<RecordType> {
    for (const [k] of this.entries()) yield k;
  }

  *values(): MapIterator<V> {
    const k = this.k;
    if (k === undefined) return;
    if (!Array.isArray(k)) {
      yield this.v as V;
      return;
    }
    yield* [...(this.v as V[])];
  }

  [Symbol.iterator](): MapIterator<[RecordType, V]> {
    return this.entries();
  }

  forEach(fn: (value: V, key: RecordType, map: ReadonlyMap<RecordType, V>) => void, thisArg?: unknown): void {
    for (const [k, v] of this.entries()) fn.call(thisArg, v, k, this);
  }
}
