/**
 * `npm run bench:start`: how quickly `npm start` comes back and how much memory its processes hold.
 *
 * On one store with the demo data (seeded by a first start), it restarts `npm start` BENCH_START_RUNS
 * times (default 5) and reports the median of:
 *   - start to /healthz 200 (from spawning npm);
 *   - the RSS of every process `npm start` leaves running (npm, node, the DNS workers), summed, read
 *     from /proc once /healthz answers and the DNS workers serve (2 s later);
 *   - what the start spent its time on (the server's own "started" log line: loading the code,
 *     migrations, building the API, starting DNS, listening).
 * Targets: ≤ 1.5 s to /healthz, ≤ 300 MB RSS together with the default DNS workers.
 * BENCH_START_TSX=1 also measures the sources run through tsx (the way npm start ran before it was
 * compiled: `tsx --max-semi-space-size=64 src/main/server.ts`, here without npm in front), same store.
 * Needs the build (npm ci or npm run build).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../test/dns/server/tools.js';
import { rssKb, tree } from './proc.js';
import { serverEnv } from '../test/support/compiled-process.js';

const ROOT = join(import.meta.dirname, '..');
const RUNS = Number(process.env.BENCH_START_RUNS ?? 5);

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};

interface Run {
  readonly ms: number;
  readonly rssMb: number;
  readonly processes: Array<{ cmd: string; mb: number }>;
  readonly phases: Record<string, number>;
}

const startOnce = async (dir: string, command: string, args: string[]): Promise<Run> => {
  const port = await freePort();
  const dnsPort = await freePort([port]);
  const env = serverEnv(dir, port, dnsPort, { LOG_LEVEL: 'info' });
  const t0 = performance.now();
  const child: ChildProcess = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  let ms = -1;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`exited ${child.exitCode}: ${out}`);
    try {
      if ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok) {
        ms = performance.now() - t0;
        break;
      }
    } catch {
      /* not yet */
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  await new Promise((r) => setTimeout(r, 2000));
  const processes = tree(child.pid!).map((p) => ({
    cmd: readFileSync(`/proc/${p}/cmdline`, 'utf8')
      .split('\0')
      .filter(Boolean)
      .slice(0, 3)
      .join(' ')
      .replace(ROOT + '/', ''),
    mb: rssKb(p) / 1024,
  }));
  const line = out.split('\n').find((l) => l.includes('"msg":"started"'));
  const phases = line ? ((JSON.parse(line) as { phasesMs?: Record<string, number> }).phasesMs ?? {}) : {};
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
  return { ms, rssMb: processes.reduce((a, p) => a + p.mb, 0), processes, phases };
};

/** A port taken between freePort and the start (other processes on the machine) is tried again. */
const retried = async (f: () => Promise<Run>): Promise<Run> => {
  for (let attempt = 1; ; attempt++) {
    try {
      return await f();
    } catch (err) {
      if (attempt === 3 || !String(err).includes('EADDRINUSE')) throw err;
    }
  }
};

const report = async (label: string, dir: string, command: string, args: string[]) => {
  const runs: Run[] = [];
  for (let i = 0; i < RUNS; i++) runs.push(await retried(() => startOnce(dir, command, args)));
  const ms = median(runs.map((r) => r.ms));
  const mb = median(runs.map((r) => r.rssMb));
  const mid = runs.find((r) => r.rssMb === mb)!;
  const phaseNames = [...new Set(runs.flatMap((r) => Object.keys(r.phases)))];
  process.stdout.write(
    `\n${label} (median of ${RUNS})\n` +
      `  start to /healthz: ${ms.toFixed(0)} ms  (runs: ${runs.map((r) => r.ms.toFixed(0)).join(', ')}; target ≤ 1500)\n` +
      `  RSS of every process: ${mb.toFixed(0)} MB  (target ≤ 300)\n` +
      mid.processes.map((p) => `    ${p.mb.toFixed(0).padStart(5)} MB  ${p.cmd}\n`).join('') +
      (phaseNames.length
        ? `  where the start goes (median ms): ${phaseNames.map((n) => `${n} ${median(runs.map((r) => r.phases[n] ?? 0)).toFixed(0)}`).join(', ')}\n`
        : ''),
  );
};

const main = async () => {
  if (!existsSync(join(ROOT, 'dist/src/main/server.js'))) throw new Error('dist/ is missing: npm run build');
  const dir = mkdtempSync(join(tmpdir(), 'bench-start-'));
  // The first start seeds the demo; every measured start is a restart on that store.
  await retried(() => startOnce(dir, 'npm', ['start', '--silent']));
  process.stdout.write(`bench:start on ${dir} (the demo store), ${RUNS} restarts each`);
  await report('npm start (compiled: node dist/src/main/server.js, under npm)', dir, 'npm', ['start', '--silent']);
  if (process.env.BENCH_START_TSX === '1') {
    await report('the sources through tsx (before: tsx src/main/server.ts, no npm)', dir, join(ROOT, 'node_modules/.bin/tsx'), [
      '--max-semi-space-size=64',
      'src/main/server.ts',
    ]);
  }
};

await main();
