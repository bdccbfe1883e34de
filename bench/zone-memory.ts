/**
 * What a small zone costs the embedded nameserver: N (default 10 000) SOA+NS zones, as a registration
 * makes them, published into one EmbeddedNameserver; prints the heap they hold after a full GC, per zone,
 * beside the JSON of their record sets. `node --expose-gc --import tsx bench/zone-memory.ts` (N=… to change).
 * Target (issue 21 item 8): within 4× of the record data.
 */
import { EmbeddedNameserver } from '../adapters/dns/embedded/index.js';
import { SERVICE_NAMESERVERS, soaValue } from '../core/dns/zone/record-set.js';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');
const N = Number(process.env.N ?? 10_000);
const zones = Array.from({ length: N }, (_, i) => {
  const d = `scale-${String(i).padStart(6, '0')}.com.ua`;
  return {
    domain: d,
    serial: 2026112700,
    recordSets: [
      { name: d, type: 'SOA' as const, ttl: 3600, values: [soaValue(2026112700)] },
      { name: d, type: 'NS' as const, ttl: 3600, values: SERVICE_NAMESERVERS.map((n) => `${n}.`) },
    ],
  };
});
const json = zones.reduce((a, z) => a + JSON.stringify(z.recordSets).length, 0);
const ns = new EmbeddedNameserver({ host: '127.0.0.1', port: 0, axfrAllow: [], secondaries: [] });
gc();
gc();
const m0 = process.memoryUsage();
for (const z of zones) await ns.publish(z);
gc();
gc();
const m1 = process.memoryUsage();
const heap = (m1.heapUsed - m0.heapUsed) / N;
const outside = (m1.external - m0.external + m1.arrayBuffers - m0.arrayBuffers) / N;
process.stdout.write(
  `${N} SOA+NS zones: heap ${heap.toFixed(0)} B a zone, outside the heap ${outside.toFixed(0)} B, ` +
    `record data ${(json / N).toFixed(0)} B (JSON): ${((heap + outside) / (json / N)).toFixed(1)}× (target ≤ 4×)\n`,
);
