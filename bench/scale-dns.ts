import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import knexFactory from 'knex';
import { freePort } from '../test/dns/server/tools.js';
import { rssKb, tree } from './proc.js';

/**
 * The DNS part of `npm run bench:scale`: on the two stores the bench built (the demo, and the demo grown
 * to BENCH_SCALE_DOMAINS domains), `npm start`'s server (node dist/src/main/server.js, the default DNS
 * workers) is started in turn, BENCH_ROUNDS times each, alternating, and measured from outside:
 *   - start to /healthz (the DNS workers have loaded every zone by then: the API listens after them) — a restart, on the DNS
 *     snapshot the first start on the store wrote (that first start is measured once and printed apart);
 *   - the RSS of each DNS worker (/proc, 2 s after /healthz), against the record data it serves (every
 *     record set as the JSON of its name, type, TTL and values, summed);
 *   - a plan applied to a zone of 3 record sets (domivka-demo.dev, the same on both): the apply request's
 *     median over BENCH_DNS_APPLIES, after 3 unmeasured (an apply answers once every DNS worker serves it).
 * Targets (issue 21 item 8): start, apply and worker RSS large/small ≤ 1.5×; the zones' memory — what a
 * large account's worker holds beyond the demo's — ≤ 4× the octets of its record data.
 *
 * Run alone (`node --import tsx bench/scale-dns.ts`), it measures stores built before, again and again (a
 * 10,000-domain store takes minutes to build; bench/scale-server.ts with BENCH_SCALE_DIR builds and keeps
 * one): BENCH_DNS_SMALL and BENCH_DNS_LARGE name each a JSON file {"env": {DATABASE_URL, VAR_DIR,
 * KEY_PEPPER, DATA_KEY, …}, "key": "<a key holding dns.edit on domivka-demo.dev>"}; BENCH_DNS_BUILDS lists
 * the checkouts (comma-separated, default this one) whose builds (dist/) are started in turn within each
 * round, so that two builds are compared under the same load; BENCH_ROUNDS (3), BENCH_DNS_APPLIES (20).
 * The stores are changed by the applies (a store's www A moves on; each run reads where it is).
 */
const ROOT = join(import.meta.dirname, '..');
const TARGET = 1.5;
const ZONE_TARGET = 4;

export interface DnsStore {
  readonly name: 'small' | 'large';
  /** DATABASE_URL (and DATABASE_SCHEMA), VAR_DIR, KEY_PEPPER and DATA_KEY of the store. */
  readonly env: Record<string, string>;
  /** A key holding dns.edit on domivka-demo.dev. */
  readonly key: string;
}

interface Run {
  readonly startMs: number;
  readonly workersMb: number[];
  readonly applyMs: number;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/** The octets of the store's record data: each record set as the JSON of its name, type, TTL and values. */
export const recordBytes = async (env: Record<string, string>): Promise<{ bytes: number; sets: number; zones: number; www?: string }> => {
  const pg = env.DATABASE_URL!.startsWith('postgres');
  const db = knexFactory(
    pg
      ? { client: 'pg', connection: env.DATABASE_URL, searchPath: [env.DATABASE_SCHEMA!], pool: { min: 0, max: 1 } }
      : { client: 'better-sqlite3', connection: { filename: env.DATABASE_URL! }, useNullAsDefault: true },
  );
  try {
    const rows: Array<{ name: string; type: string; ttl: number; record_values: string }> = await db('dns_record_sets').select(
      'name',
      'type',
      'ttl',
      'record_values',
    );
    let bytes = 0;
    for (const r of rows)
      bytes += JSON.stringify({ name: r.name, type: r.type, ttl: Number(r.ttl), values: JSON.parse(r.record_values) as unknown }).length;
    const counted = (await db('dns_zones').count({ n: '*' })) as Array<{ n: number | string }>;
    // Where www.domivka-demo.dev A is now (the applies move it on; a store measured again starts there).
    const www = rows.filter((r) => r.name === 'www.domivka-demo.dev' && r.type === 'A');
    const value = www.length === 1 ? (JSON.parse(www[0]!.record_values) as string[])[0] : undefined;
    return { bytes, sets: rows.length, zones: Number(counted[0]?.n ?? 0), ...(value ? { www: value } : {}) };
  } finally {
    await db.destroy();
  }
};

/** The value of www.domivka-demo.dev A in each store (an update states the set it replaces), and how many applies so far. */
const www = new Map<string, { value: string; n: number }>();

const applyOnce = async (api: string, store: DnsStore): Promise<number> => {
  const state = www.get(store.name) ?? { value: '192.0.2.10', n: 0 };
  www.set(store.name, state);
  const value = `192.0.2.${(state.n++ % 200) + 20}`;
  const key = store.key;
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const res = await fetch(`${api}/v1/domains/domivka-demo.dev/dns/plans`, {
    method: 'POST',
    headers: { ...headers, 'idempotency-key': `p-${Math.random()}` },
    body: JSON.stringify({
      changes: [{ action: 'update', name: 'www', type: 'A', ttl: 300, values: [value], current: { ttl: 300, values: [state.value] } }],
    }),
  });
  const plan = (await res.json()) as { id?: string; checks?: unknown };
  if (process.env.BENCH_DNS_DEBUG) process.stderr.write(`${JSON.stringify(plan).slice(0, 1500)}\n`);
  if (res.status !== 201 && res.status !== 200) throw new Error(`plan: ${res.status} ${JSON.stringify(plan)}`);
  const t0 = performance.now();
  const applied = await fetch(`${api}/v1/domains/domivka-demo.dev/dns/plans/${plan.id}/apply`, {
    method: 'POST',
    headers: { ...headers, 'idempotency-key': `a-${Math.random()}` },
    body: '{}',
  });
  const body = await applied.text();
  const ms = performance.now() - t0;
  if (applied.status !== 200) throw new Error(`apply: ${applied.status} ${body.slice(0, 300)}`);
  state.value = value;
  return ms;
};

/** One start of the server (of the checkout `root`) on a store: start to /healthz, each DNS worker's RSS, and the median apply. */
const runOnce = async (store: DnsStore, applies: number, root = ROOT): Promise<Run> => {
  const port = await freePort();
  const dnsPort = await freePort([port]);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...store.env,
    PORT: String(port),
    DNS_PORT: String(dnsPort),
    METRICS_PORT: '0',
    LOG_LEVEL: 'warn',
  };
  delete env.NODE_OPTIONS;
  const t0 = performance.now();
  const child: ChildProcess = spawn(process.execPath, ['--max-semi-space-size=64', join(root, 'dist/src/main/server.js')], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise((r) => child.once('exit', r));
  try {
    let startMs = -1;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the ${store.name} server exited ${child.exitCode}: ${out.slice(-2000)}`);
      try {
        if ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok) {
          startMs = performance.now() - t0;
          break;
        }
      } catch {
        /* not yet */
      }
      await new Promise((r) => setTimeout(r, 10));
    }
    await new Promise((r) => setTimeout(r, 2000));
    const workersMb = tree(child.pid!)
      .filter((p) => {
        try {
          return readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('dns-worker');
        } catch {
          return false;
        }
      })
      .map((p) => rssKb(p) / 1024);
    const api = `http://127.0.0.1:${port}`;
    const times: number[] = [];
    for (let i = 0; i < applies + 3; i++) {
      const ms = await applyOnce(api, store);
      if (i >= 3) times.push(ms);
    }
    return { startMs, workersMb, applyMs: median(times) };
  } finally {
    child.kill('SIGTERM');
    const kill = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(kill);
  }
};

/** runOnce, again when the free port it picked was taken meanwhile (other processes on the machine). */
const runRetried = async (store: DnsStore, applies: number, root: string): Promise<Run> => {
  for (let attempt = 1; ; attempt++) {
    try {
      return await runOnce(store, applies, root);
    } catch (err) {
      if (attempt >= 3 || !String((err as Error).message).includes('EADDRINUSE')) throw err;
    }
  }
};

const pad = (s: string, n: number) => (s.length >= n ? s : s + ' '.repeat(n - s.length));
const lpad = (s: string, n: number) => (s.length >= n ? s : ' '.repeat(n - s.length) + s);

/**
 * Runs the DNS rounds on both stores and prints the table (one per build, in `roots`: the builds take turns
 * within each round, their order alternating too); the stores must not be in use by another server.
 */
export const dnsRounds = async (
  engine: string,
  small: DnsStore,
  large: DnsStore,
  rounds: number,
  applies: number,
  roots: readonly string[] = [ROOT],
): Promise<void> => {
  for (const root of roots)
    if (!existsSync(join(root, 'dist/src/main/server.js'))) throw new Error(`the DNS part needs the build (npm run build) in ${root}`);
  const data = { small: await recordBytes(small.env), large: await recordBytes(large.env) };
  // Each engine's stores start from the value they hold (the names small/large repeat across engines).
  www.clear();
  for (const s of [small, large]) {
    const value = data[s.name].www ?? '192.0.2.10';
    const last = /^192\.0\.2\.(\d+)$/.exec(value);
    www.set(s.name, { value, n: last ? Number(last[1]) - 19 : 0 }); // the next value differs from it
  }
  // A first start on each store without the DNS snapshot (README: "the zone snapshot"), as on a new machine;
  // the rounds then restart on the snapshot that start wrote, as `npm start` after a stop does.
  const first = { small: 0, large: 0 };
  for (const s of [small, large]) {
    const dir = s.env.VAR_DIR;
    for (let attempt = 1; ; attempt++) {
      // Before each attempt: a start that failed (a port taken meanwhile) may have written the snapshot.
      if (dir && existsSync(dir)) for (const f of readdirSync(dir)) if (/^dns-zones-.*\.snapshot$/.test(f)) rmSync(join(dir, f));
      try {
        first[s.name] = (await runOnce(s, 1, roots[0]!)).startMs;
        break;
      } catch (err) {
        if (attempt >= 3 || !String((err as Error).message).includes('EADDRINUSE')) throw err;
      }
    }
  }
  const all = roots.map(() => ({ small: [] as Run[], large: [] as Run[] }));
  for (let round = 0; round < rounds; round++) {
    process.stderr.write(`  DNS round ${round + 1} of ${rounds}\n`);
    const order = round % 2 === 0 ? [small, large] : [large, small];
    const builds = roots.map((_, i) => i);
    if (round % 2 === 1) builds.reverse();
    for (const b of builds) for (const s of order) all[b]![s.name].push(await runRetried(s, applies, roots[b]!));
  }
  for (const [b, runs] of all.entries()) table(engine, roots.length > 1 ? roots[b]! : null, runs, data, rounds, applies);
  process.stdout.write(
    `[${engine}] the first start on each store, without a DNS snapshot (one each, of ${roots[0]}; not judged): small ${first.small.toFixed(1)} ms, large ${first.large.toFixed(1)} ms, ${(first.large / first.small).toFixed(2)}×\n`,
  );
};

/** The table of one build's runs. */
const table = (
  engine: string,
  root: string | null,
  runs: Record<'small' | 'large', Run[]>,
  data: Record<'small' | 'large', { bytes: number; sets: number; zones: number }>,
  rounds: number,
  applies: number,
): void => {
  const workers = (name: 'small' | 'large') => median(runs[name].map((r) => median(r.workersMb)));
  const rows: Array<[string, number, number, number]> = [
    ['start to /healthz, ms', median(runs.small.map((r) => r.startMs)), median(runs.large.map((r) => r.startMs)), TARGET],
    [
      `apply on a 3-record zone, ms (median of ${applies})`,
      median(runs.small.map((r) => r.applyMs)),
      median(runs.large.map((r) => r.applyMs)),
      TARGET,
    ],
    [`RSS per DNS worker, MB (${runs.small[0]!.workersMb.length} workers)`, workers('small'), workers('large'), TARGET],
  ];
  const w = Math.max(...rows.map((r) => r[0].length));
  const lines = [`${pad('', w)}  ${lpad('small', 9)}  ${lpad('large', 9)}  ${lpad('ratio', 6)}  per round            target`];
  for (const [name, s, l, target] of rows) {
    const perRound =
      name.startsWith('start') || name.startsWith('apply')
        ? runs.large.map((r, k) => (name.startsWith('start') ? r.startMs / runs.small[k]!.startMs : r.applyMs / runs.small[k]!.applyMs))
        : runs.large.map((r, k) => median(r.workersMb) / median(runs.small[k]!.workersMb));
    lines.push(
      `${pad(name, w)}  ${lpad(s.toFixed(1), 9)}  ${lpad(l.toFixed(1), 9)}  ${lpad((l / s).toFixed(2), 6)}  ${pad(
        perRound.map((x) => x.toFixed(2)).join(', '),
        19,
      )}  ≤ ${target}×: ${l / s <= target ? 'MET' : 'MISSED'}`,
    );
  }
  const extraBytes = (workers('large') - workers('small')) * 1024 * 1024;
  const dataBytes = data.large.bytes - data.small.bytes;
  const zoneRatio = extraBytes / dataBytes;
  lines.push(
    `record data: small ${data.small.zones} zones, ${data.small.sets} sets, ${(data.small.bytes / 1024).toFixed(1)} KB; large ${data.large.zones} zones, ${data.large.sets} sets, ${(data.large.bytes / 1024 / 1024).toFixed(2)} MB`,
    `zone memory per worker (large − small RSS) / (large − small record data): ${(extraBytes / 1024 / 1024).toFixed(1)} MB / ${(dataBytes / 1024 / 1024).toFixed(2)} MB = ${zoneRatio.toFixed(1)}×  ≤ ${ZONE_TARGET}×: ${zoneRatio <= ZONE_TARGET ? 'MET' : 'MISSED'}`,
  );
  process.stdout.write(
    `[${engine}] DNS${root ? ` (${root})` : ''}: npm start's server on each store, median of ${rounds} starts; load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}\n${lines.join('\n')}\n`,
  );
};

const readStore = (name: 'small' | 'large', file: string | undefined): DnsStore => {
  if (!file) throw new Error(`BENCH_DNS_${name.toUpperCase()}: the JSON file of the ${name} store ({"env": {…}, "key": "…"})`);
  const { env, key } = JSON.parse(readFileSync(file, 'utf8')) as { env: Record<string, string>; key: string };
  return { name, env, key };
};

if (process.argv[1] && join(process.argv[1]) === join(import.meta.filename)) {
  const small = readStore('small', process.env.BENCH_DNS_SMALL);
  const large = readStore('large', process.env.BENCH_DNS_LARGE);
  const roots = (process.env.BENCH_DNS_BUILDS ?? ROOT)
    .split(',')
    .map((r) => r.trim())
    .filter(Boolean);
  const whole = (name: string, fallback: number): number => {
    const n = Number(process.env[name] ?? fallback);
    if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a whole number ≥ 1`);
    return n;
  };
  const engine = small.env.DATABASE_URL?.startsWith('postgres') ? 'postgres' : 'sqlite';
  process.stderr.write(
    `scale bench, DNS part alone: builds ${roots.join(', ')}; load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}\n`,
  );
  dnsRounds(engine, small, large, whole('BENCH_ROUNDS', 3), whole('BENCH_DNS_APPLIES', 20), roots).then(
    () => process.exit(0),
    (err: unknown) => {
      process.stderr.write(`scale bench (DNS) failed: ${(err as Error).stack ?? String(err)}\n`);
      process.exit(1);
    },
  );
}
