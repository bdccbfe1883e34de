import { performance } from 'node:perf_hooks';
import { STORES } from '../test/support/stores.js';
import { bearer, startApi } from '../test/support/system.js';
import { benchSets } from './zone-gen.js';

/**
 * `npm run bench:console`: how long the console's DNS editor takes to render a 1,000-record-set zone,
 * measured end to end over HTTP (session check, the person's key, the zone read, the applied-plan
 * history, the HTML) on a fresh SQLite store. Target: p95 ≤ 100 ms. A report, never a timed test:
 * exits 0 whether or not the target is met.
 *
 * Env: BENCH_SETS (1000), BENCH_REQUESTS (200), BENCH_WARMUP (20).
 */
const num = (name: string, fallback: number) => {
  const n = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number`);
  return Math.round(n);
};
const SETS = num('BENCH_SETS', 1000);
const REQUESTS = num('BENCH_REQUESTS', 200);
const WARMUP = num('BENCH_WARMUP', 20);
const TARGET_P95_MS = 100;
const ZONE = 'domivka-demo.dev';

const api = await startApi(STORES[0]!);
try {
  const key = (await api.issueKey({ environment: 'test', rights: ['dns.edit', 'dns.read'], domains: [ZONE] })).secret;
  const write = (path: string, json: unknown, idem: string) =>
    api.call(path, { method: 'POST', headers: { ...bearer(key), 'idempotency-key': idem }, json });
  const plan = await write(`/v1/domains/${ZONE}/dns/plans`, { records: benchSets(ZONE, SETS) }, 'bench-plan');
  if (plan.status !== 201 || !plan.body.valid)
    throw new Error(`the bench zone's plan was refused: ${JSON.stringify(plan.body).slice(0, 500)}`);
  const applied = await write(`/v1/domains/${ZONE}/dns/plans/${plan.body.id}/apply`, { force: true }, 'bench-apply');
  if (applied.status !== 200) throw new Error(`apply failed: ${JSON.stringify(applied.body).slice(0, 500)}`);
  const cookie = await api.signIn();
  const url = `${api.base}/console/domains/${ZONE}/dns`;
  const once = async () => {
    const t = performance.now();
    const r = await fetch(url, { headers: { cookie }, redirect: 'manual' });
    const body = await r.text();
    if (r.status !== 200) throw new Error(`GET ${url} answered ${r.status}`);
    return { ms: performance.now() - t, bytes: body.length, rows: (body.match(/<tr>/g) ?? []).length };
  };
  for (let i = 0; i < WARMUP; i++) await once();
  const runs = [];
  for (let i = 0; i < REQUESTS; i++) runs.push(await once());
  const ms = runs.map((r) => r.ms).sort((a, b) => a - b);
  const at = (q: number) => ms[Math.min(ms.length - 1, Math.ceil(q * ms.length) - 1)]!;
  const p95 = at(0.95);
  console.log(
    JSON.stringify(
      {
        page: '/console/domains/{zone}/dns',
        record_sets: SETS,
        table_rows: runs[0]!.rows,
        html_bytes: runs[0]!.bytes,
        requests: REQUESTS,
        p50_ms: Number(at(0.5).toFixed(1)),
        p95_ms: Number(p95.toFixed(1)),
        max_ms: Number(ms.at(-1)!.toFixed(1)),
        target_p95_ms: TARGET_P95_MS,
        met: p95 <= TARGET_P95_MS,
      },
      null,
      2,
    ),
  );
} finally {
  await api.close();
}
