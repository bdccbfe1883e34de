import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { EmbeddedNameserver } from '../adapters/dns/embedded/index.js';
import { SystemClock } from '../adapters/clock/system/index.js';
import { NodeRandom } from '../adapters/crypto/node/index.js';
import { SqlStore } from '../adapters/sql/index.js';
import { buildPlan, inputOf, isSafeChange, type PlanInput, type RecordSetInput } from '../core/dns/plans/plan-builder.js';
import { Plan, staleReason } from '../core/dns/plans/plan.js';
import type { RecordSet, RecordType } from '../core/dns/zone/record-set.js';
import { ZoneService, type ZonePublisher } from '../core/dns/zone/zone-service.js';
import { apexSets, benchSets, BENCH_SERIAL } from './zone-gen.js';

/**
 * `npm run bench:plan`: plan + checks + apply for zones of 1k, 10k and 100k record sets on SQLite
 * ("Benchmarks": 10k ≤ 300 ms, 100k ≤ 3 s, growing no worse than n log n).
 *
 * For each size, a fresh temp SQLite SqlStore (migrated) and two scenarios, each the work DnsPlans does
 * (core/dns/dns-plans.use-case.ts) through the real store and core code:
 *   records: a zone holding only its apex SOA/NS, and a whole-zone `records` plan of n record sets
 *            (every set a create);
 *   change:  a zone of n record sets (inserted with ZoneRepository.create), and a `changes` plan of one
 *            create (a new A record).
 * Timed, as DnsPlans.create and DnsPlans.apply do it:
 *   plan  = ZoneService.indexed (the zone's row; its sets only when the zone cache does not hold them at that
 *           serial) → buildPlan (input resolved, diffed, every check run)
 *   apply = ZoneService.indexed → the freshness comparison (DnsPlans' staleReason) and the 30 % safety rule →
 *           buildPlan again with the plan's changes on the zone as it is now, when it moved on since the plan
 *           (apply re-checks) → ZoneService.commit (one SQLite transaction: the serial compare-and-set,
 *           deletes, inserts)
 * ZoneService gets a no-op publisher. Not in the totals but shown: writing the plan's dns_plans row
 * (PlanRepository.insert, JSON of the changes and checks) and publishing the committed zone to an
 * (unstarted) EmbeddedNameserver, i.e. compiling it — the apply endpoint waits for both.
 * Medians of BENCH_PLAN_RUNS runs (default 5; 3 at 100k), after an untimed warm-up (10 plans of each kind
 * at 1k); a full garbage collection before each run (see collectGarbage), so that no run pays for the
 * untimed work of the one before.
 *
 * A report: exits 0 whether or not the targets are met; non-zero only if something fails (a plan is
 * invalid, a commit loses its race, the store errs).
 *
 * A size whose first runs take over 10× its target gets no further runs (the "runs" column says how many).
 *
 * Env: BENCH_PLAN_SIZES (1000,10000,100000), BENCH_PLAN_RUNS, BENCH_PLAN_SCENARIOS (records,change),
 *      BENCH_PLAN_KEEP_DB (keep the temp dir).
 * Profile with: node --cpu-prof --cpu-prof-dir=var/prof --import tsx bench/plan.bench.ts
 */
const TARGETS: Record<number, number> = { 10_000: 300, 100_000: 3000 };
/** Issue 22 "Speed and memory": a one-change plan + apply on a 100k zone, median (the zone already read once). */
const CHANGE_TARGETS: Record<number, number> = { 100_000: 50 };
const DOMAIN = 'bench.test';
const ACCOUNT = 'bench-account';
const ENV = 'live' as const;

const sizes = (process.env.BENCH_PLAN_SIZES ?? '1000,10000,100000').split(',').map((s) => {
  const n = Number(s.trim());
  if (!Number.isInteger(n) || n < 5) throw new Error(`BENCH_PLAN_SIZES: "${s}" is not a size ≥ 5`);
  return n;
});
const scenarios = new Set((process.env.BENCH_PLAN_SCENARIOS ?? 'records,change').split(',').map((s) => s.trim()));
for (const s of scenarios) if (s !== 'records' && s !== 'change') throw new Error(`BENCH_PLAN_SCENARIOS: "${s}" is not records or change`);
const WARM_UP_RUNS = 10;
/** A size whose run takes over this many times its target gets no more runs (one is enough to see it). */
const GIVE_UP_FACTOR = 10;
const runsFor = (n: number): number => {
  const v = process.env.BENCH_PLAN_RUNS;
  if (v) {
    const r = Number(v);
    if (!Number.isInteger(r) || r < 1) throw new Error(`BENCH_PLAN_RUNS must be a positive integer, got "${v}"`);
    return r;
  }
  return n >= 100_000 ? 3 : 5;
};

/**
 * A full garbage collection, run before each timed plan + apply: the untimed work around them (inserting the
 * zone, compiling the committed zone for the nameserver — hundreds of MB at 100k) leaves garbage whose
 * collection would otherwise land in the next run's timed sections and be charged to the plan.
 */
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

const log = (s: string): void => void process.stderr.write(s);
const now = (): number => performance.now();

const noopPublisher: ZonePublisher = { publish: async () => undefined, withdraw: async () => undefined };

interface Timing {
  find: number;
  build: number;
  plan: number;
  applyFind: number;
  recheck: number;
  commit: number;
  apply: number;
  total: number;
  /** Not in total: the dns_plans row and compiling the zone for our nameserver. */
  planRow: number;
  compile: number;
  changes: number;
  checks: number;
}

interface Ctx {
  readonly store: SqlStore;
  readonly zoneService: ZoneService;
  readonly random: NodeRandom;
  readonly ns: EmbeddedNameserver;
}

/** One plan + apply of `input` on the zone `domain`, timed the way DnsPlans runs it. */
const planAndApply = async (ctx: Ctx, domain: string, input: PlanInput, wholeZone: boolean, compile: boolean): Promise<Timing> => {
  const { store, zoneService } = ctx;
  collectGarbage();
  // DnsPlans.create
  const t0 = now();
  const zone = await zoneService.indexed(ACCOUNT, ENV, domain);
  const t1 = now();
  if (!zone) throw new Error(`zone ${domain} not found`);
  const built = buildPlan({ origin: domain, current: zone.sets, input });
  const t2 = now();
  if (!built.valid)
    throw new Error(`the plan on ${domain} is invalid: ${JSON.stringify(built.checks.filter((c) => c.severity === 'error').slice(0, 5))}`);
  const before = wholeZone ? Plan.wholeZoneBefore(zone) : built.before;
  const p0 = now();
  const created = new Date();
  await store.plans.insert({
    id: ctx.random.id(),
    accountId: ACCOUNT,
    environment: ENV,
    domain,
    keyId: 'benchkey0000',
    source: wholeZone ? 'records' : 'changes',
    baseSerial: zone.serial,
    changes: built.changes,
    before,
    checks: built.checks,
    valid: built.valid,
    createdAt: created,
    expiresAt: new Date(created.getTime() + 3600_000),
    appliedAt: null,
  });
  const p1 = now();

  // DnsPlans.apply
  const a0 = now();
  const current = await zoneService.indexed(ACCOUNT, ENV, domain);
  const a1 = now();
  if (!current) throw new Error(`zone ${domain} vanished`);
  const stale = staleReason({ domain, source: wholeZone ? 'records' : 'changes', before }, current);
  if (stale !== null) throw new Error(`plan stale: ${stale}`);
  if (!isSafeChange(current.sets.size, built.changes)) throw new Error('plan_unsafe (the bench plans only creates)');
  // As DnsPlans.apply: the checks run again only when the zone moved on since the plan (serial changed).
  const recheck =
    current.serial === zone.serial
      ? { valid: true, checks: [] as Array<{ severity: string }> }
      : buildPlan({ origin: domain, current: current.sets, input: { changes: built.changes.map(inputOf) } });
  const a2 = now();
  if (!recheck.valid)
    throw new Error(
      `the re-check on ${domain} failed: ${JSON.stringify(recheck.checks.filter((c) => c.severity === 'error').slice(0, 5))}`,
    );
  const upserts: RecordSet[] = [];
  const deletes: Array<{ name: string; type: RecordType }> = [];
  for (const c of built.changes) {
    if (c.action === 'delete') deletes.push({ name: c.name, type: c.type });
    else upserts.push({ name: c.name, type: c.type, ttl: c.ttl!, values: [...(c.values ?? [])] });
  }
  const committed = await store.uow.transaction(() => zoneService.commit(current, upserts, deletes));
  const a3 = now();
  if (!committed) throw new Error(`commit on ${domain} lost the serial race`);

  // Compiling a zone of 100k sets leaves hundreds of MB of garbage whose sweeping (lazy, after any full
  // collection) would land in the next run's timed reads: so only the last run of a scenario compiles.
  let compileMs = Number.NaN;
  if (compile) {
    const c0 = now();
    await ctx.ns.publish(committed);
    compileMs = now() - c0;
    await ctx.ns.withdraw(domain);
  }

  return {
    find: t1 - t0,
    build: t2 - t1,
    plan: t2 - t0,
    applyFind: a1 - a0,
    recheck: a2 - a1,
    commit: a3 - a2,
    apply: a3 - a0,
    total: t2 - t0 + (a3 - a0),
    planRow: p1 - p0,
    compile: compileMs,
    changes: built.changes.length,
    checks: built.checks.length,
  };
};

/** The median of the measured values (NaN: not measured in that run). */
const median = (xs: readonly number[]): number => {
  const s = xs.filter((x) => !Number.isNaN(x)).sort((a, b) => a - b);
  if (s.length === 0) return Number.NaN;
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

const medianTiming = (ts: readonly Timing[]): Timing => {
  const keys = Object.keys(ts[0]!) as Array<keyof Timing>;
  return Object.fromEntries(keys.map((k) => [k, median(ts.map((t) => t[k]))])) as unknown as Timing;
};

const recordsInput = (domain: string, n: number): RecordSetInput[] =>
  benchSets(domain, n).map((s) => ({ name: s.name, type: s.type, ttl: s.ttl, values: [...s.values] }));

interface Row {
  readonly n: number;
  readonly scenario: 'records' | 'change';
  readonly runs: number;
  readonly insertMs: number | null;
  /** The first plan on the zone (its sets read from the store, not yet kept by the zone cache). */
  readonly coldPlanMs: number | null;
  readonly t: Timing;
}

/** A fresh migrated SQLite store with one account; the caller removes `dir`. */
const openStore = async (dir: string): Promise<Ctx> => {
  const store = new SqlStore({ url: join(dir, 'plan-bench.sqlite') });
  await store.migrate();
  await store.knex('accounts').insert({ id: ACCOUNT, name: 'plan bench', created_at: new Date().toISOString() });
  const random = new NodeRandom();
  return {
    store,
    random,
    zoneService: new ZoneService({
      zones: store.zones,
      publisher: noopPublisher,
      uow: store.uow,
      random,
      clock: new SystemClock(),
      diagnostics: {
        report: (err) => {
          throw err;
        },
      },
    }),
    ns: new EmbeddedNameserver({ host: '127.0.0.1', port: 0, axfrAllow: [], secondaries: [] }),
  };
};

const createZone = async (ctx: Ctx, domain: string, sets: readonly RecordSet[]): Promise<number> => {
  const t0 = now();
  await ctx.store.uow.transaction(() =>
    ctx.store.zones.create({
      id: ctx.random.id(),
      accountId: ACCOUNT,
      environment: ENV,
      domain,
      serial: BENCH_SERIAL,
      recordSets: [...apexSets(domain, BENCH_SERIAL), ...sets],
    }),
  );
  return now() - t0;
};

const measureSize = async (n: number, runs: number, quiet = false): Promise<Row[]> => {
  const dir = mkdtempSync(join(tmpdir(), 'domivka-plan-bench-'));
  const ctx = await openStore(dir);
  try {
    const out: Row[] = [];
    // records: a whole zone planned into an empty one (apex only), a fresh zone per run.
    const tooSlow = (t: Timing): boolean => TARGETS[n] !== undefined && t.total > GIVE_UP_FACTOR * TARGETS[n]!;
    const rec: Timing[] = [];
    for (let r = 0; r < (scenarios.has('records') ? runs : 0); r++) {
      const domain = `r${r}.${DOMAIN}`;
      await createZone(ctx, domain, []);
      const input = { records: recordsInput(domain, n) };
      if (!quiet) log(`  n=${n} records run ${r + 1}/${runs} … `);
      const t = await planAndApply(ctx, domain, input, true, r === runs - 1);
      if (t.changes !== benchSets(domain, n).length) throw new Error(`records plan has ${t.changes} changes, expected ${n}`);
      if (!quiet) log(`${t.total.toFixed(0)} ms\n`);
      rec.push(t);
      if (tooSlow(t)) break;
    }
    if (rec.length > 0) out.push({ n, scenario: 'records', runs: rec.length, insertMs: null, coldPlanMs: null, t: medianTiming(rec) });
    if (!scenarios.has('change')) return out;

    // change: one create on a full zone of n sets (runs add new0, new1, … to the same zone).
    const full = `full.${DOMAIN}`;
    const insertMs = await createZone(ctx, full, benchSets(full, n));
    const chg: Timing[] = [];
    for (let r = 0; r < runs; r++) {
      const input = { changes: [{ action: 'create', name: `new${r}`, type: 'A', ttl: 300, values: [`192.0.2.${r + 1}`] }] };
      if (!quiet) log(`  n=${n} one change run ${r + 1}/${runs} … `);
      const t = await planAndApply(ctx, full, input, false, r === runs - 1);
      if (t.changes !== 1) throw new Error(`one-change plan has ${t.changes} changes`);
      if (!quiet) log(`${t.total.toFixed(0)} ms\n`);
      chg.push(t);
      if (tooSlow(t)) break;
    }
    out.push({ n, scenario: 'change', runs: chg.length, insertMs, coldPlanMs: chg[0]!.plan, t: medianTiming(chg) });
    return out;
  } finally {
    await ctx.store.close();
    if (process.env.BENCH_PLAN_KEEP_DB) log(`  kept ${dir}\n`);
    else rmSync(dir, { recursive: true, force: true });
  }
};

const pad = (s: string, n: number) => (s.length >= n ? s : s + ' '.repeat(n - s.length));
const lpad = (s: string, n: number) => (s.length >= n ? s : ' '.repeat(n - s.length) + s);
const ms = (x: number): string => (Number.isNaN(x) ? '–' : x >= 100 ? x.toFixed(0) : x.toFixed(1));

const table = (rows: readonly Row[]): string => {
  const head = [
    'n',
    'plan',
    'runs',
    'plan ms',
    'apply ms',
    'total ms',
    '| find',
    'buildPlan',
    'apply find',
    're-check',
    'commit',
    '| plan row',
    'compile',
    'zone insert',
    'cold plan',
  ];
  const body = rows.map((r) => [
    String(r.n),
    r.scenario === 'records' ? `records (${r.t.changes} creates)` : 'changes (1 create)',
    String(r.runs),
    ms(r.t.plan),
    ms(r.t.apply),
    ms(r.t.total),
    `| ${ms(r.t.find)}`,
    ms(r.t.build),
    ms(r.t.applyFind),
    ms(r.t.recheck),
    ms(r.t.commit),
    `| ${ms(r.t.planRow)}`,
    ms(r.t.compile),
    r.insertMs === null ? '' : ms(r.insertMs),
    r.coldPlanMs === null ? '' : ms(r.coldPlanMs),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 1 ? pad(c, widths[i]!) : lpad(c, widths[i]!))).join('  ');
  return [line(head), ...body.map(line)].join('\n');
};

const nlogn = (n: number): number => n * Math.log(n);

const main = async (): Promise<number> => {
  log(
    `plan bench: sizes ${sizes.join(', ')}; node ${process.version}, ${cpus().length} cores, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}\n`,
  );
  // Enough plans for the JIT to optimise the plan path (two were not: the first timed 10k runs came out
  // about twice as slow as the later ones).
  log(`  warm-up (${WARM_UP_RUNS} plans of each kind at 1k, untimed) … `);
  await measureSize(1000, WARM_UP_RUNS, true);
  log('done\n');
  const rows: Row[] = [];
  for (const n of sizes) rows.push(...(await measureSize(n, runsFor(n))));

  let out = `\n${table(rows)}\n`;
  out +=
    '(medians, ms. plan = find + buildPlan; apply = find + freshness/safety + re-check buildPlan + ZoneService.commit; total = plan + apply.\n' +
    ' Not in total: "plan row" = PlanRepository.insert of the plan, "compile" = EmbeddedNameserver.publish of the committed zone (last run only);\n' +
    ' "zone insert" = ZoneRepository.create of the full zone for the one-change scenario;\n' +
    ' "cold plan" = the first one-change plan on the zone, which reads its sets; later ones find them kept at their serial.)\n\n';

  let allPass = true;
  for (const scenario of ['records', 'change'] as const) {
    const by = new Map(rows.filter((r) => r.scenario === scenario).map((r) => [r.n, r]));
    const label = scenario === 'records' ? 'records plan (whole zone from nothing)' : 'one-change plan on a full zone';
    out += `${label}:\n`;
    const ns = [...by.keys()].sort((a, b) => a - b);
    for (let i = 1; i < ns.length; i++) {
      const a = by.get(ns[i - 1]!)!;
      const b = by.get(ns[i]!)!;
      const growth = b.t.total / a.t.total;
      const bound = nlogn(b.n) / nlogn(a.n);
      const ok = growth <= bound;
      if (!ok) allPass = false;
      out += `  growth ${b.n}/${a.n}: ${growth.toFixed(1)}×  (n·log n: ${bound.toFixed(1)}×, n: ${(b.n / a.n).toFixed(1)}×)  ${ok ? 'PASS' : 'FAIL'}\n`;
    }
    for (const [n, limit] of Object.entries(scenario === 'change' ? { ...TARGETS, ...CHANGE_TARGETS } : TARGETS)) {
      const r = by.get(Number(n));
      if (!r) continue;
      const ok = r.t.total <= limit;
      if (!ok) allPass = false;
      out += `  ${n}: ${ms(r.t.total)} ms  (target ≤ ${limit} ms)  ${ok ? 'PASS' : 'FAIL'}\n`;
    }
  }
  out += `overall: ${allPass ? 'PASS' : 'FAIL'}  (a report: the exit code does not depend on the targets)\n`;
  process.stdout.write(out);
  return 0;
};

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`plan bench failed: ${(err as Error).stack ?? err}\n`);
    process.exit(1);
  },
);
