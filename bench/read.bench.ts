import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import autocannon, { type Result } from 'autocannon';

/**
 * `npm run bench:read`: what the keyed read path costs against a reference doing the same essential work
 * (Koa + @koa/router + the key's HMAC check + the same prepared select; read-server.ts
 * `reference`), and against a bare Koa answering the same bytes. On SQLite always, and on Postgres when
 * BENCH_PG_URL or TEST_PG_URL is set (BENCH_ENGINES=sqlite,postgres picks). Targets (SQLite):
 * keyed/reference ≥ 0.8, keyed/bare ≥ 0.5 and keyed p99 ≤ 5 ms at 50 connections; Postgres reports the
 * same figures.
 *
 * Three servers, each in its own child process (bench/read-server.ts) so that none shares an event
 * loop with autocannon: the real system as `npm start` runs it (compiled, from dist/: needs `npm run build`;
 * BENCH_SYSTEM=src runs the sources through tsx instead) on a fresh temp SQLite store with a domain.read
 * test key (rate limiter on, limits set out of reach), the reference, and Koa alone answering the same
 * JSON body. Each gets a warm-up and then a measured autocannon run. Prints RPS, p50/p99 latency, CPU per
 * request and non-2xx counts, then the ratios and keyed p99 against their targets.
 *
 * A report: exits 0 whether or not the targets are met; non-zero only when a server crashed, the
 * load generator saw errors, or any response was not 2xx.
 *
 * The machine is shared, so the three are measured in BENCH_ROUNDS alternating rounds (the order rotates)
 * and the round with the median keyed/reference ratio is reported, with every round's ratios.
 *
 * Env: BENCH_ROUNDS (3), BENCH_SECONDS (5 per run), BENCH_WARMUP_SECONDS (2), BENCH_CONNECTIONS (50),
 *      BENCH_SERVER_NODE_ARGS (extra node flags for the servers, e.g. "--cpu-prof --cpu-prof-dir=var/prof"),
 *      BENCH_LOG_LEVEL (the system's log level, default info as npm start's; its logs go to /dev/null),
 *      BENCH_RATE_LIMIT (the system's RATE_LIMIT_BURST and RATE_LIMIT_PER_SECOND, default 10000000),
 *      BENCH_SYSTEM (dist, the default, or src).
 */
const TARGET_RATIO = 0.8;
const TARGET_BARE_RATIO = 0.5;
const TARGET_P99_MS = 5;

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

const num = (name: string, fallback: number): number => {
  const v = process.env[name];
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number, got "${v}"`);
  return n;
};

const seconds = num('BENCH_SECONDS', 5);
const rounds = Math.round(num('BENCH_ROUNDS', 3));
const warmupSeconds = num('BENCH_WARMUP_SECONDS', 2);
const connections = Math.round(num('BENCH_CONNECTIONS', 50));
const serverNodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);

interface Child<Info> {
  readonly proc: ChildProcess;
  readonly info: Info;
  /** Set when the process ended before we stopped it. */
  crashed(): string | null;
  stop(): Promise<void>;
}

/** Spawns `node --import tsx bench/read-server.ts MODE` and waits for the JSON line it prints once listening. */
const startServer = <Info>(mode: 'system' | 'bare' | 'reference', env: Record<string, string> = {}): Promise<Child<Info>> =>
  new Promise((resolve, reject) => {
    // The system's server is a process of its own, started by read-server.ts with these flags (from the env).
    const nodeArgs = mode === 'system' ? [] : serverNodeArgs;
    const proc = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', join(root, 'bench', 'read-server.ts'), mode], {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stopping = false;
    let crash: string | null = null;
    let exited = false;
    const exitedPromise = new Promise<void>((done) => proc.once('exit', () => done()));
    proc.once('exit', (code, signal) => {
      exited = true;
      if (!stopping) {
        crash = `${mode} server exited (code ${code}, signal ${signal})`;
        reject(new Error(crash));
      }
    });
    proc.once('error', reject);
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`${mode} server did not report its port within 60 s`));
    }, 60_000);
    const lines = createInterface({ input: proc.stdout! });
    lines.once('line', (line) => {
      clearTimeout(timer);
      let info: Info;
      try {
        info = JSON.parse(line) as Info;
      } catch {
        reject(new Error(`${mode} server printed "${line}" instead of its JSON line`));
        return;
      }
      resolve({
        proc,
        info,
        crashed: () => crash,
        async stop() {
          if (exited) return;
          stopping = true;
          proc.kill('SIGTERM');
          const kill = setTimeout(() => proc.kill('SIGKILL'), 10_000);
          await exitedPromise;
          clearTimeout(kill);
        },
      });
    });
  });

interface Measured {
  readonly name: string;
  readonly result: Result;
  /** The server process's CPU time (user + system, /proc) per answered request, in µs; null off Linux. */
  readonly cpuUsPerRequest: number | null;
}

/** utime + stime of a process in µs (Linux /proc/PID/stat; clock ticks are 100 Hz there). A shared machine
 * makes RPS ratios noisy; CPU per request is what the server itself spends, whatever else runs. */
const cpuUs = (pid: number | undefined): number | null => {
  if (!pid) return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * 10_000;
  } catch {
    return null;
  }
};

const run = async (name: string, url: string, headers: Record<string, string>, pid?: number): Promise<Measured> => {
  process.stderr.write(`  ${name}: warm-up ${warmupSeconds} s … `);
  const warm = await autocannon({ url, connections, duration: warmupSeconds, headers });
  process.stderr.write(`${Math.round(warm.requests.average)} req/s; measuring ${seconds} s … `);
  const cpu0 = cpuUs(pid);
  const result = await autocannon({ url, connections, duration: seconds, headers, title: name });
  const cpu1 = cpuUs(pid);
  const answered = result['2xx'] + result.non2xx;
  const cpuUsPerRequest = cpu0 !== null && cpu1 !== null && answered > 0 ? (cpu1 - cpu0) / answered : null;
  process.stderr.write(`${Math.round(result.requests.average)} req/s\n`);
  if (warm.non2xx > 0 || warm.errors > 0) {
    process.stderr.write(`  ${name}: the warm-up had ${warm.non2xx} non-2xx responses and ${warm.errors} errors\n`);
  }
  return { name, result, cpuUsPerRequest };
};

const pad = (s: string, n: number) => (s.length >= n ? s : s + ' '.repeat(n - s.length));
const lpad = (s: string, n: number) => (s.length >= n ? s : ' '.repeat(n - s.length) + s);

const table = (rows: Measured[]): string => {
  const head = ['', 'RPS avg', 'p50 ms', 'p99 ms', 'avg ms', 'CPU µs/req', 'responses', 'non-2xx', 'errors'];
  const body = rows.map(({ name, result: r, cpuUsPerRequest }) => [
    name,
    r.requests.average.toFixed(0),
    String(r.latency.p50),
    String(r.latency.p99),
    r.latency.average.toFixed(2),
    cpuUsPerRequest === null ? '-' : cpuUsPerRequest.toFixed(0),
    String(r['2xx'] + r.non2xx),
    String(r.non2xx),
    String(r.errors + r.timeouts),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? pad(c, widths[i]!) : lpad(c, widths[i]!))).join('  ');
  return [line(head), ...body.map(line)].join('\n');
};

const pgUrl = process.env.BENCH_PG_URL || process.env.TEST_PG_URL || '';
const engines = (process.env.BENCH_ENGINES ?? (pgUrl ? 'sqlite,postgres' : 'sqlite'))
  .split(',')
  .map((e) => e.trim())
  .filter(Boolean);

type SystemInfo = {
  port: number;
  pid: number;
  key: string;
  path: string;
  body: string;
  store: { url: string; schema?: string };
  pepper: string;
};

/** One engine: the system, the reference and bare Koa, each measured in turn; returns whether all answered 2xx. */
const runEngine = async (engine: string, children: Child<unknown>[]): Promise<boolean> => {
  process.stderr.write(`\n[${engine}]\n`);
  const system = await startServer<SystemInfo>('system', { BENCH_STORE: engine });
  children.push(system);
  const reference = await startServer<{ port: number; path: string }>('reference', {
    BENCH_REF_STORE: JSON.stringify(system.info.store),
    BENCH_REF_PEPPER: system.info.pepper,
  });
  children.push(reference);
  const bare = await startServer<{ port: number; path: string }>('bare', { BENCH_BARE_BODY: system.info.body });
  children.push(bare);

  // Same bytes from all three, before any load.
  const keyedUrl = `http://127.0.0.1:${system.info.port}${system.info.path}`;
  const refUrl = `http://127.0.0.1:${reference.info.port}${reference.info.path}`;
  const bareUrl = `http://127.0.0.1:${bare.info.port}${bare.info.path}`;
  const auth = { authorization: `Bearer ${system.info.key}` };
  const [k, r, b] = await Promise.all([fetch(keyedUrl, { headers: auth }), fetch(refUrl, { headers: auth }), fetch(bareUrl)]);
  const [kb, rb, bb] = await Promise.all([k.text(), r.text(), b.text()]);
  if (k.status !== 200 || r.status !== 200 || b.status !== 200 || kb !== bb || rb !== bb) {
    throw new Error(
      `the servers do not answer the same 200 body: keyed ${k.status} ${kb}, reference ${r.status} ${rb}, bare ${b.status} ${bb}`,
    );
  }
  process.stderr.write(`  all three answer 200 with the same ${kb.length}-byte body\n`);

  const measured: Array<{ keyed: Measured; ref: Measured; plain: Measured; ratio: number }> = [];
  for (let round = 0; round < rounds; round++) {
    process.stderr.write(`  round ${round + 1} of ${rounds}\n`);
    const jobs: Array<() => Promise<Measured>> = [
      () => run(`keyed GET ${system.info.path}`, keyedUrl, auth, system.info.pid),
      () => run('reference: Koa + router + HMAC + select', refUrl, auth, reference.proc.pid),
      () => run('bare Koa, same body', bareUrl, {}, bare.proc.pid),
    ];
    const out: Measured[] = [];
    for (let i = 0; i < jobs.length; i++) out[(i + round) % 3] = await jobs[(i + round) % 3]!();
    const [k1, r1, b1] = out as [Measured, Measured, Measured];
    measured.push({ keyed: k1, ref: r1, plain: b1, ratio: k1.result.requests.average / r1.result.requests.average });
    const crashed = children.map((c) => c.crashed()).find((c) => c !== null);
    if (crashed) throw new Error(crashed);
  }
  const sorted = [...measured].sort((a, b) => a.ratio - b.ratio);
  const median = sorted[Math.floor((sorted.length - 1) / 2)]!;
  const { keyed, ref, plain } = median;
  const cpuRatio = (m: Measured, other: Measured) =>
    m.cpuUsPerRequest && other.cpuUsPerRequest ? other.cpuUsPerRequest / m.cpuUsPerRequest : NaN;
  const medianOf = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
  const cpuRatios = measured.map((m) => cpuRatio(m.keyed, m.ref));
  const cpuBare = measured.map((m) => cpuRatio(m.keyed, m.plain));
  const bareRatios = measured.map((m) => m.keyed.result.requests.average / m.plain.result.requests.average);
  process.stdout.write(
    `\n[${engine}] keyed/reference RPS per round: ${measured.map((m) => m.ratio.toFixed(3)).join(', ')}; keyed/bare: ${bareRatios.map((r) => r.toFixed(3)).join(', ')}; keyed p99 per round: ${measured.map((m) => m.keyed.result.latency.p99).join(', ')} ms\n` +
      `[${engine}] the same ratios measured as server CPU per request (robust to a shared machine), per round: reference/keyed ${cpuRatios.map((r) => r.toFixed(3)).join(', ')}, median ${medianOf(cpuRatios).toFixed(3)}; bare/keyed ${cpuBare.map((r) => r.toFixed(3)).join(', ')}, median ${medianOf(cpuBare).toFixed(3)}\n`,
  );
  const crash = children.map((c) => c.crashed()).find((c) => c !== null);
  if (crash) throw new Error(crash);

  const ratioRef = keyed.result.requests.average / ref.result.requests.average;
  const ratioBare = keyed.result.requests.average / plain.result.requests.average;
  const ratioOk = ratioRef >= TARGET_RATIO;
  const bareOk = ratioBare >= TARGET_BARE_RATIO;
  const p99Ok = keyed.result.latency.p99 <= TARGET_P99_MS;
  const judged = engine === 'sqlite';
  const meanMs = (m: Measured) => ((connections / m.result.requests.average) * 1000).toFixed(2);
  process.stdout.write(
    `[${engine}] ${connections} connections, the median round:\n${table([keyed, ref, plain])}\n\n` +
      `ratio keyed/reference RPS: ${ratioRef.toFixed(3)}  (target ≥ ${TARGET_RATIO}${judged ? '' : ', judged on SQLite'})  ${ratioOk ? 'PASS' : 'FAIL'}\n` +
      `ratio keyed/bare RPS:      ${ratioBare.toFixed(3)}  (target ≥ ${TARGET_BARE_RATIO}${judged ? '' : ', judged on SQLite'})  ${bareOk ? 'PASS' : 'FAIL'}\n` +
      `keyed p99: ${keyed.result.latency.p99} ms  (target ≤ ${TARGET_P99_MS} ms${judged ? '' : ', judged on SQLite'})  ${p99Ok ? 'PASS' : 'FAIL'}\n` +
      // With every connection waiting on its answer, the mean latency is the connections over the rate (Little's
      // law): a p99 under saturation is mostly the server's rate, and bare Koa's own p99 is this machine's floor.
      `  the same round: bare Koa's p99 ${plain.result.latency.p99} ms; mean latency ${connections} ÷ rate: keyed ${meanMs(keyed)} ms, bare Koa ${meanMs(plain)} ms\n` +
      `[${engine}] overall: ${ratioOk && bareOk && p99Ok ? 'PASS' : 'FAIL'}  (a report: the exit code does not depend on the targets)\n` +
      '(autocannon records latency in whole milliseconds)\n',
  );
  const bad = measured
    .flatMap((m) => [m.keyed, m.ref, m.plain])
    .filter((m) => m.result.non2xx > 0 || m.result.errors > 0 || m.result.timeouts > 0);
  for (const m of bad) {
    process.stderr.write(
      `${m.name}: ${m.result.non2xx} non-2xx, ${m.result.errors} errors, ${m.result.timeouts} timeouts; status codes ${JSON.stringify(m.result.statusCodeStats)}\n`,
    );
  }
  await Promise.all([system.stop(), reference.stop(), bare.stop()]);
  return bad.length === 0;
};

/** The compiled system (dist/) must be there, and should not be older than the sources it was built from. */
const checkBuild = (): string => {
  if (process.env.BENCH_SYSTEM === 'src') return 'the sources through tsx (BENCH_SYSTEM=src)';
  const built = join(root, 'dist/src/system.js');
  if (!existsSync(built)) throw new Error('dist/ is missing: npm run build (or BENCH_SYSTEM=src to run the sources through tsx)');
  const newest = (dir: string): number =>
    readdirSync(dir, { withFileTypes: true }).reduce((m, e) => {
      const p = join(dir, e.name);
      if (e.isDirectory()) return e.name === 'node_modules' ? m : Math.max(m, newest(p));
      return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? Math.max(m, statSync(p).mtimeMs) : m;
    }, 0);
  const sources = Math.max(...['core', 'adapters', 'src'].map((d) => newest(join(root, d))));
  if (sources > statSync(built).mtimeMs) process.stderr.write('WARNING: dist/ is older than the sources; run npm run build first\n');
  return 'compiled, from dist/ (as npm start runs it)';
};

const main = async (): Promise<number> => {
  const system = checkBuild();
  process.stderr.write(`the system: ${system}\n`);
  process.stderr.write(
    `read bench: ${connections} connections, ${warmupSeconds} s warm-up + ${seconds} s each; engines ${engines.join(', ')}; node ${process.version}, ` +
      `${cpus().length} cores, load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}\n`,
  );
  const children: Child<unknown>[] = [];
  const stopAll = () => Promise.all(children.map((c) => c.stop()));
  const onSignal = () => void stopAll().then(() => process.exit(130));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    let ok = true;
    for (const engine of engines) {
      if (engine !== 'sqlite' && engine !== 'postgres') throw new Error(`BENCH_ENGINES: unknown engine "${engine}"`);
      ok = (await runEngine(engine, children)) && ok;
    }
    return ok ? 0 : 1;
  } finally {
    await stopAll();
  }
};

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`read bench failed: ${(err as Error).stack ?? err}\n`);
    process.exit(1);
  },
);
