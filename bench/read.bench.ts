import { spawn, type ChildProcess } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import autocannon, { type Result } from 'autocannon';

/**
 * `npm run bench:read`: what the keyed read path costs over a bare Koa answering the same bytes.
 *
 * Two servers, each in its own child process (bench/read-server.ts) so that neither shares an event
 * loop with autocannon: the real system on a fresh temp SQLite store with a domain.read test key
 * (rate limiter on, limits set out of reach), and Koa alone answering the same JSON body. Each gets a
 * warm-up and then a measured autocannon run. Prints RPS, p50/p99 latency and non-2xx counts, then
 * keyed/bare RPS against the target ratio ≥ 0.8 and keyed p99 ≤ 10 ms.
 *
 * A report: exits 0 whether or not the targets are met; non-zero only when a server crashed, the
 * load generator saw errors, or any response was not 2xx.
 *
 * Env: BENCH_SECONDS (10), BENCH_WARMUP_SECONDS (2), BENCH_CONNECTIONS (50),
 *      BENCH_SERVER_NODE_ARGS (extra node flags for the servers, e.g. "--cpu-prof --cpu-prof-dir=var/prof"),
 *      BENCH_LOG_LEVEL (the system's log level, default silent; other levels log to /dev/null),
 *      BENCH_RATE_LIMIT (the system's RATE_LIMIT_BURST and RATE_LIMIT_PER_SECOND, default 10000000).
 */
const TARGET_RATIO = 0.8;
const TARGET_P99_MS = 10;

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

const num = (name: string, fallback: number): number => {
  const v = process.env[name];
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number, got "${v}"`);
  return n;
};

const seconds = num('BENCH_SECONDS', 10);
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
const startServer = <Info>(mode: 'system' | 'bare', env: Record<string, string> = {}): Promise<Child<Info>> =>
  new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [...serverNodeArgs, '--import', 'tsx', join(root, 'bench', 'read-server.ts'), mode], {
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
}

const run = async (name: string, url: string, headers: Record<string, string>): Promise<Measured> => {
  process.stderr.write(`  ${name}: warm-up ${warmupSeconds} s … `);
  const warm = await autocannon({ url, connections, duration: warmupSeconds, headers });
  process.stderr.write(`${Math.round(warm.requests.average)} req/s; measuring ${seconds} s … `);
  const result = await autocannon({ url, connections, duration: seconds, headers, title: name });
  process.stderr.write(`${Math.round(result.requests.average)} req/s\n`);
  if (warm.non2xx > 0 || warm.errors > 0) {
    process.stderr.write(`  ${name}: the warm-up had ${warm.non2xx} non-2xx responses and ${warm.errors} errors\n`);
  }
  return { name, result };
};

const pad = (s: string, n: number) => (s.length >= n ? s : s + ' '.repeat(n - s.length));
const lpad = (s: string, n: number) => (s.length >= n ? s : ' '.repeat(n - s.length) + s);

const table = (rows: Measured[]): string => {
  const head = ['', 'RPS avg', 'p50 ms', 'p99 ms', 'avg ms', 'responses', 'non-2xx', 'errors'];
  const body = rows.map(({ name, result: r }) => [
    name,
    r.requests.average.toFixed(0),
    String(r.latency.p50),
    String(r.latency.p99),
    r.latency.average.toFixed(2),
    String(r['2xx'] + r.non2xx),
    String(r.non2xx),
    String(r.errors + r.timeouts),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? pad(c, widths[i]!) : lpad(c, widths[i]!))).join('  ');
  return [line(head), ...body.map(line)].join('\n');
};

const main = async (): Promise<number> => {
  process.stderr.write(
    `read bench: ${connections} connections, ${warmupSeconds} s warm-up + ${seconds} s each; node ${process.version}, ` +
      `${cpus().length} cores, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}\n`,
  );
  const children: Child<unknown>[] = [];
  const stopAll = () => Promise.all(children.map((c) => c.stop()));
  const onSignal = () => void stopAll().then(() => process.exit(130));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const system = await startServer<{ port: number; key: string; path: string; body: string }>('system');
    children.push(system);
    const bare = await startServer<{ port: number; path: string }>('bare', { BENCH_BARE_BODY: system.info.body });
    children.push(bare);

    // Same bytes from both, before any load.
    const keyedUrl = `http://127.0.0.1:${system.info.port}${system.info.path}`;
    const bareUrl = `http://127.0.0.1:${bare.info.port}${bare.info.path}`;
    const auth = { authorization: `Bearer ${system.info.key}` };
    const [k, b] = await Promise.all([fetch(keyedUrl, { headers: auth }), fetch(bareUrl)]);
    const [kb, bb] = await Promise.all([k.text(), b.text()]);
    if (k.status !== 200 || b.status !== 200 || kb !== bb) {
      throw new Error(`the servers do not answer the same 200 body: keyed ${k.status} ${kb.length} B, bare ${b.status} ${bb.length} B`);
    }
    process.stderr.write(`  both answer 200 with the same ${kb.length}-byte body (keyed adds ${[...k.headers.keys()].length - [...b.headers.keys()].length} headers)\n`);

    const keyed = await run(`keyed GET ${system.info.path}`, keyedUrl, auth);
    const plain = await run('bare Koa, same body', bareUrl, {});
    const crash = children.map((c) => c.crashed()).find((c) => c !== null);
    if (crash) throw new Error(crash);

    const ratio = keyed.result.requests.average / plain.result.requests.average;
    const ratioOk = ratio >= TARGET_RATIO;
    const p99Ok = keyed.result.latency.p99 <= TARGET_P99_MS;
    process.stdout.write(
      `\n${table([keyed, plain])}\n\n` +
        `ratio keyed/bare RPS: ${ratio.toFixed(3)}  (target ≥ ${TARGET_RATIO})  ${ratioOk ? 'PASS' : 'FAIL'}\n` +
        `keyed p99: ${keyed.result.latency.p99} ms  (target ≤ ${TARGET_P99_MS} ms)  ${p99Ok ? 'PASS' : 'FAIL'}\n` +
        `overall: ${ratioOk && p99Ok ? 'PASS' : 'FAIL'}  (a report: the exit code does not depend on the targets)\n` +
        '(autocannon records latency in whole milliseconds)\n',
    );

    const bad = [keyed, plain].filter((m) => m.result.non2xx > 0 || m.result.errors > 0 || m.result.timeouts > 0);
    for (const m of bad) {
      process.stderr.write(`${m.name}: ${m.result.non2xx} non-2xx, ${m.result.errors} errors, ${m.result.timeouts} timeouts; status codes ${JSON.stringify(m.result.statusCodeStats)}\n`);
    }
    return bad.length > 0 ? 1 : 0;
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
