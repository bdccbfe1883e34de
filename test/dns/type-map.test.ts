import { expect } from 'chai';
import { TypeMap } from '../../core/dns/plans/type-map.js';
import { RECORD_TYPES, type RecordType } from '../../core/dns/zone/record-set.js';

/** The plan builder's per-name map behaves as a Map: the same entries, in the same order, after any calls. */
describe('TypeMap behaves as a Map', () => {
  it('the same answers and order as a Map over random sets and deletes', () => {
    let seed = 7;
    const next = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    for (let round = 0; round < 300; round++) {
      const start: Array<[RecordType, number]> = [];
      for (let i = next(4); i > 0; i--) start.push([RECORD_TYPES[next(5)]!, next(100)]);
      const map = new Map(start);
      const tm = new TypeMap<number>(map);
      for (let step = 0; step < 12; step++) {
        const key = RECORD_TYPES[next(5)]!;
        if (next(3) === 0) expect(tm.delete(key)).to.equal(map.delete(key));
        else {
          const v = next(100);
          map.set(key, v);
          tm.set(key, v);
        }
        expect([...tm]).to.deep.equal([...map]);
        expect([...tm.keys()]).to.deep.equal([...map.keys()]);
        expect([...tm.values()]).to.deep.equal([...map.values()]);
        expect(tm.size).to.equal(map.size);
        for (const t of RECORD_TYPES.slice(0, 6)) {
          expect(tm.get(t)).to.equal(map.get(t));
          expect(tm.has(t)).to.equal(map.has(t));
        }
        const seen: unknown[] = [];
        tm.forEach((v, k) => seen.push([k, v]));
        expect(seen).to.deep.equal([...map]);
      }
    }
  });
});
