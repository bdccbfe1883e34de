import { expect } from 'chai';
import { OverlayMap } from '../../core/dns/zone/names-overlay.js';

/** OverlayMap must behave exactly like a copied Map changed by the same calls (entries, order, size). */
describe('OverlayMap (the zone after a small plan, without copying the zone)', () => {
  it('random sets and deletes: the same answers and iteration order as new Map(base)', () => {
    let seed = 42;
    const r = () => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed / 2 ** 32;
    };
    const keys = Array.from({ length: 12 }, (_, i) => `k${i}`);
    for (let round = 0; round < 2000; round++) {
      const base = new Map<string, number>();
      for (const k of keys) if (r() < 0.5) base.set(k, Math.floor(r() * 100));
      const copy = new Map(base);
      const overlay = new OverlayMap(base);
      const ops = Math.floor(r() * 20);
      for (let i = 0; i < ops; i++) {
        const k = keys[Math.floor(r() * keys.length)]!;
        if (r() < 0.6) {
          const v = Math.floor(r() * 100);
          copy.set(k, v);
          expect(overlay.set(k, v)).to.equal(overlay);
        } else expect(overlay.delete(k)).to.equal(copy.delete(k));
        expect([...overlay]).to.deep.equal([...copy]);
      }
      expect(overlay.size).to.equal(copy.size);
      expect([...overlay.keys()]).to.deep.equal([...copy.keys()]);
      expect([...overlay.values()]).to.deep.equal([...copy.values()]);
      const seen: Array<[string, number]> = [];
      overlay.forEach((v, k) => seen.push([k, v]));
      expect(seen).to.deep.equal([...copy.entries()]);
      for (const k of keys) {
        expect(overlay.get(k), k).to.equal(copy.get(k));
        expect(overlay.has(k), k).to.equal(copy.has(k));
      }
      // The base is left alone.
      expect([...base].length).to.be.at.most(keys.length);
    }
  });
});
