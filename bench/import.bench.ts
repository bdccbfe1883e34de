import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import pino from 'pino';
import { loadConfig } from '../src/config.js';
import { System } from '../src/system.js';
import { TOKENS } from '../src/tokens.js';
import { freePort } from '../test/dns/server/tools.js';
import { serverEnv } from '../test/support/compiled-process.js';
import { STORES } from '../test/support/stores.js';
import { bearer, callJson, startApi } from '../test/support/system.js';
import { benchSets } from './zone-gen.js';

/**
 * `npm run bench:import` (issue "Domains born elsewhere", speed and memory). Two figures, each printed with its
 * target, never asserted:
 *
 * 1. Import of a BENCH_IMPORT_RECORDS-record zone file (default 1,000,000), streamed as a raw `text/dns` body
 *    to POST /v1/domains/{domain}/dns/imports, then GET …/imports/{id} until it is ready: the time from the
 *    first byte sent to the plan being ready (target ≤ 60 s), and the server's peak RSS (target ≤ 1 GB). The
 *    file is generated while it is sent (never held whole): the bench:plan mix (A, AAAA, TXT, MX, CNAME; a
 *    third of the A sets with two addresses), so 187,500 units of five sets are exactly 1,000,000 records.
 * 2. A one-change plan + apply on a zone of BENCH_IMPORT_ZONE record sets (default 100,000), through the API
 *    (POST …/dns/plans with one create, POST …/plans/{id}/apply): the median of BENCH_IMPORT_RUNS (default 7)
 *    after two warm-ups (target ≤ 50 ms). The zone is written once through the store before the server starts.
 *
 * The server is the one production runs: `npm start`'s command (node --enable-source-maps
 * --max-semi-space-size=64 dist/src/main/server.js, or BENCH_IMPORT_SERVER's file) in a process of its own on a
 * fresh SQLite store in a temporary directory, with its DNS workers; this process only makes the store (demo,
 * key, the 100,000-set zone), sends and polls. The peak RSS is that server process's own high-water mark
 * (VmHWM in /proc/PID/status, which holds its import thread too; the DNS workers are processes of their own
 * and are not in it), read when the plan is ready; its RSS is also sampled every 50 ms meanwhile. An apply
 * returns once every DNS worker serves the change. Needs the build (npm run build).
 *
 * BENCH_IMPORT_IN_PROCESS=1 runs the system in this process under tsx instead (as the bench did at first; the DNS
 * server in this process too): the peak RSS is then this process's maxrss, which also holds the generating,
 * sending and polling.
 *
 * Env: BENCH_IMPORT_RECORDS, BENCH_IMPORT_ZONE, BENCH_IMPORT_RUNS, BENCH_IMPORT_PART (import,change; default both),
 * BENCH_IMPORT_IN_PROCESS, BENCH_IMPORT_SERVER, BENCH_IMPORT_TRACE, BENCH_IMPORT_VALUES_MB, BENCH_SERVER_NODE_ARGS.
 */
const RECORDS = Number(process.env.BENCH_IMPORT_RECORDS ?? 1_000_000);
const ZONE_SETS = Number(process.env.BENCH_IMPORT_ZONE ?? 100_000);
const RUNS = Number(process.env.BENCH_IMPORT_RUNS ?? 7);
const PARTS = new Set((process.env.BENCH_IMPORT_PART ?? 'import,change').split(',').map((s) => s.trim()));
const IN_PROCESS = process.env.BENCH_IMPORT_IN_PROCESS === '1';
/**
 * BENCH_IMPORT_VALUES_MB=N: the import part sends a value-heavy file of N MB instead (TXT records of four
 * 255-character strings, ~1 KB each), to a server whose DNS_IMPORT_MAX_BYTES is N MB and whose record limits
 * are the defaults: does the planning thread's heap cap admit the largest file the byte limit lets in?
 */
const VALUES_MB = Number(process.env.BENCH_IMPORT_VALUES_MB ?? 0);
/** BENCH_IMPORT_TRACE=1: the server's RSS as sampled (every 50 ms, in MB) is printed at the end. */
const TRACE = process.env.BENCH_IMPORT_TRACE === '1';
const trace: string[] = [];
const ROOT = join(import.meta.dirname, '..');
/** BENCH_SERVER_NODE_ARGS: more node flags for the server (its DNS workers inherit them), e.g. "--cpu-prof --cpu-prof-dir=var/prof". */
const SERVER_NODE_ARGS = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
const SERVER = resolve(process.env.BENCH_IMPORT_SERVER ?? join(ROOT, 'dist/src/main/server.js'));
const IMPORT_TARGET_S = 60;
const RSS_TARGET_MB = 1024;
const CHANGE_TARGET_MS = 50;
const IMPORT_DOMAIN = 'domivka-demo.dev';
const CHANGE_DOMAIN = 'domivka-demo.com.ua';

const log = (s: string): void => void process.stderr.write(s);
const mb = (bytes: number): number => Math.round(bytes / 1024 / 1024);
const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

const ipv4 = (i: number, k: number): string => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${(i & 255) ^ k}`;
const ipv6 = (i: number): string => `2001:db8::${(i >>> 16).toString(16)}:${(i & 0xffff).toString(16)}`;

/** The zone file, unit by unit (5 sets, 5 or 6 records each), in chunks of ~1,000 units. */
function* zoneFileChunks(records: number): Generator<string> {
  yield `$ORIGIN ${IMPORT_DOMAIN}.\n$TTL 300\n@ 3600 IN SOA ns1.old.example. hostmaster.old.example. 1 3600 600 1209600 300\n@ IN NS ns1.old.example.\n`;
  let written = 2;
  let u = 0;
  while (written < records) {
    const lines: string[] = [];
    for (let k = 0; k < 1000 && written < records; k++, u++) {
      const h = `h${u}`;
      lines.push(`${h} IN A ${ipv4(u, 1)}`);
      written++;
      if (u % 3 === 0 && written < records) {
        lines.push(`${h} IN A ${ipv4(u, 2)}`);
        written++;
      }
      const more = [
        `${h} IN AAAA ${ipv6(u)}`,
        `${h} IN TXT "bench host ${u} verification=${(u * 2654435761) >>> 0}"`,
        `m${u} 3600 IN MX 10 ${h}`,
        `c${u} IN CNAME ${h}`,
      ];
      for (const l of more) {
        if (written >= records) break;
        lines.push(l);
        written++;
      }
    }
    yield `${lines.join('\n')}\n`;
  }
}

/** A value-heavy zone file of just under `bytes` octets: TXT sets of four 255-character strings, in chunks of ~1 MB. */
function* valueHeavyChunks(bytes: number): Generator<string> {
  const head = `$ORIGIN ${IMPORT_DOMAIN}.\n$TTL 300\n@ 3600 IN SOA ns1.old.example. hostmaster.old.example. 1 3600 600 1209600 300\n@ IN NS ns1.old.example.\n`;
  yield head;
  let written = Buffer.byteLength(head);
  const chars = 'abcdefghijklmnopqrstuvwxyz0123456789';
  for (let u = 0; ;) {
    const lines: string[] = [];
    for (let k = 0; k < 1000; k++, u++) {
      const strings = [0, 1, 2, 3].map((j) => `"${chars[(u + j) % chars.length]!.repeat(247)}${String(u).padStart(8, '0')}"`).join(' ');
      const line = `t${u} IN TXT ${strings}\n`;
      if (written + line.length > bytes) {
        yield lines.join('');
        return;
      }
      lines.push(line);
      written += line.length;
    }
    yield lines.join('');
  }
}

/** The system under measure: where to send, with which key, and the memory of the process that holds it. */
interface Target {
  readonly base: string;
  readonly key: string;
  /** What the peak is of, as printed. */
  readonly measured: string;
  /** The measured process's RSS now, MB. */
  rssMb(): number;
  /** Its peak RSS so far, MB. */
  peakMb(): number;
  /** The highest RSS sampled while the import ran (spawned server only), MB. */
  sampledMb(): number | null;
  close(): Promise<void>;
}

const call = callJson;

const IMPORT_ENV: Record<string, string> =
  VALUES_MB > 0
    ? { DNS_IMPORT_MAX_BYTES: String(VALUES_MB * 1024 * 1024), DNS_IMPORT_MAX_SECONDS: '3600' }
    : {
        DNS_IMPORT_MAX_BYTES: String(512 * 1024 * 1024),
        DNS_IMPORT_MAX_RECORDS: String(RECORDS + 10),
        DNS_IMPORT_MAX_SECONDS: '3600',
        // The hosted-domains work caps record sets per zone (a plan check); the bench zone is larger on purpose.
        ZONE_RECORD_LIMIT: String(RECORDS + 10),
      };

/** A process's VmRSS and VmHWM (peak) in MB, from /proc (0 once it is gone). */
const procMemMb = (pid: number): { rss: number; hwm: number } => {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
    return { rss: Math.round(kb('VmRSS') / 1024), hwm: Math.round(kb('VmHWM') / 1024) };
  } catch {
    return { rss: 0, hwm: 0 };
  }
};

/**
 * The compiled server as `npm start` runs it, in a process of its own on a fresh SQLite store: the store is
 * made first from this process (migrations, the demo account, the key, the change part's zone), then the
 * server starts on it.
 */
const spawnedServer = async (): Promise<Target> => {
  if (!existsSync(SERVER)) throw new Error(`${SERVER} is missing: npm run build`);
  const dir = mkdtempSync(join(tmpdir(), 'bench-import-'));
  const port = await freePort();
  const dnsPort = await freePort([port]);
  const env = serverEnv(dir, port, dnsPort, { LOG_LEVEL: 'warn', ...IMPORT_ENV });
  const system = new System(loadConfig(env), { logger: pino({ level: 'silent' }) });
  let key: string;
  try {
    await system.migrate();
    const demo = await system.get(TOKENS.SeedDemo).execute();
    if (!demo) throw new Error('the fresh store already had a demo account');
    const owner = { personId: demo.personId, accountId: demo.accountId, role: 'owner' as const };
    key = (
      await system
        .get(TOKENS.IssueKey)
        .issue(owner, { environment: 'test', template: 'dns_editor', domains: [IMPORT_DOMAIN, CHANGE_DOMAIN] })
    ).secret;
    if (PARTS.has('change')) await writeZone(system, demo.accountId);
  } finally {
    await system.close();
  }
  const child: ChildProcess = spawn(process.execPath, ['--enable-source-maps', '--max-semi-space-size=64', ...SERVER_NODE_ARGS, SERVER], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-20_000)));
  child.stderr!.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-20_000)));
  const exited = new Promise((r) => child.once('exit', r));
  const base = `http://127.0.0.1:${port}`;
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const kill = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(kill);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; ; i++) {
      if (child.exitCode !== null) throw new Error(`the server exited ${child.exitCode}: ${out}`);
      if (i > 2400) throw new Error(`the server did not start: ${out}`);
      try {
        if ((await fetch(`${base}/healthz`)).ok) break;
      } catch {
        /* not yet */
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  } catch (err) {
    await close();
    throw err;
  }
  const pid = child.pid!;
  let sampled = 0;
  const t0 = performance.now();
  const sampler = setInterval(() => {
    const rss = procMemMb(pid).rss;
    sampled = Math.max(sampled, rss);
    if (TRACE) trace.push(`${((performance.now() - t0) / 1000).toFixed(1)}s ${rss}`);
  }, 50);
  return {
    base,
    key,
    measured: `the server process (pid ${pid}, ${SERVER.replace(`${ROOT}/`, '')}; its VmHWM)`,
    rssMb: () => procMemMb(pid).rss,
    peakMb: () => procMemMb(pid).hwm,
    sampledMb: () => sampled,
    close: async () => {
      clearInterval(sampler);
      await close();
    },
  };
};

/** The system in this process under tsx, the DNS server in it too (BENCH_IMPORT_IN_PROCESS=1). */
const inProcess = async (): Promise<Target> => {
  const api = await startApi(STORES[0]!, { dns: true, env: IMPORT_ENV });
  try {
    const key = (await api.issueKey({ environment: 'test', template: 'dns_editor', domains: [IMPORT_DOMAIN, CHANGE_DOMAIN] })).secret;
    if (PARTS.has('change')) await writeZone(api.system, api.demo.accountId);
    return {
      base: api.base,
      key,
      measured: 'this process (the system under tsx, plus the generating, sending and polling; its maxrss)',
      rssMb: () => mb(process.memoryUsage().rss),
      peakMb: () => Math.round(process.resourceUsage().maxRSS / 1024),
      sampledMb: () => null,
      close: () => api.close(),
    };
  } catch (err) {
    await api.close();
    throw err;
  }
};

/** The change part's zone of ZONE_SETS sets, written once through the store. */
const writeZone = async (system: System, accountId: string): Promise<void> => {
  const zone = await system.store.zones.find(accountId, 'test', CHANGE_DOMAIN);
  if (!zone) throw new Error(`${CHANGE_DOMAIN} is not in the demo account`);
  const zoneService = system.get(TOKENS.ZoneService);
  const sets = benchSets(CHANGE_DOMAIN, ZONE_SETS);
  await system.store.uow.transaction(() => zoneService.commit(zone, sets, []));
};

const importPart = async (t: Target): Promise<void> => {
  const what = VALUES_MB > 0 ? `value-heavy ${VALUES_MB} MB` : `${RECORDS.toLocaleString('en')}-record`;
  log(`  import of a ${what} zone file as text/dns …\n`);
  const rssBefore = t.rssMb();
  const peakBefore = t.peakMb();
  let bytes = 0;
  const body = Readable.toWeb(
    Readable.from(
      (function* () {
        for (const c of VALUES_MB > 0 ? valueHeavyChunks(VALUES_MB * 1024 * 1024) : zoneFileChunks(RECORDS)) {
          bytes += Buffer.byteLength(c);
          yield c;
        }
      })(),
    ),
  ) as ReadableStream;
  const t0 = performance.now();
  const res = await fetch(`${t.base}/v1/domains/${IMPORT_DOMAIN}/dns/imports`, {
    method: 'POST',
    headers: { ...bearer(t.key), 'idempotency-key': randomUUID(), 'content-type': 'text/dns' },
    body,
    duplex: 'half',
  } as RequestInit);
  const accepted = await res.json();
  const t1 = performance.now();
  if (res.status !== 202) throw new Error(`the import was refused: ${res.status} ${JSON.stringify(accepted)}`);
  let job = accepted;
  let stalls = 0;
  while (job.status === 'running') {
    await new Promise((r) => setTimeout(r, 200));
    try {
      job = (await call(t.base, `/v1/domains/${IMPORT_DOMAIN}/dns/imports/${accepted.id}`, { headers: bearer(t.key) })).body;
    } catch {
      // While the plan is built (synchronous work, seconds long) the server's timers may close a kept-alive
      // connection under this poll: ask again.
      stalls++;
    }
  }
  const t2 = performance.now();
  // The target is the plan being ready: the peak so far. Reading the whole plan back (below, as a client
  // would) costs memory of its own, printed apart.
  const peak = t.peakMb();
  const sampled = t.sampledMb();
  if (job.status !== 'ready') throw new Error(`the import failed: ${JSON.stringify(job.error)}`);
  const plan = await call(t.base, `/v1/domains/${IMPORT_DOMAIN}/dns/plans/${job.plan_id}`, { headers: bearer(t.key) });
  const counts = plan.body.counts;
  const total = (t2 - t0) / 1000;
  log(
    `  body ${mb(bytes)} MB sent and accepted (202) in ${((t1 - t0) / 1000).toFixed(1)} s; plan ready ${((t2 - t1) / 1000).toFixed(1)} s later\n` +
      `  records read ${job.records_read.toLocaleString('en')}, skipped ${JSON.stringify(job.skipped.map((s: { type: string; count: number }) => `${s.type}×${s.count}`))}; ` +
      `polls cut off while the server was busy: ${stalls}; plan: ${counts.create} creates, ${counts.update} updates, ${counts.delete} deletes, valid ${plan.body.valid}, ${counts.errors} errors, ${counts.warnings} warnings\n` +
      `  peak RSS of ${t.measured}\n`,
  );
  console.log(
    `import ${VALUES_MB > 0 ? `${job.records_read.toLocaleString('en')} records (value-heavy, ${VALUES_MB} MB at DNS_IMPORT_MAX_BYTES)` : `${RECORDS.toLocaleString('en')} records`}: plan ready in ${total.toFixed(1)} s (target ≤ ${IMPORT_TARGET_S} s) ${total <= IMPORT_TARGET_S ? 'MET' : 'NOT MET'}; ` +
      `peak RSS ${peak} MB (target ≤ ${RSS_TARGET_MB} MB) ${peak <= RSS_TARGET_MB ? 'MET' : 'NOT MET'} (${IN_PROCESS ? 'in process' : 'server process'}; ` +
      `RSS before the import ${rssBefore} MB, peak before it ${peakBefore} MB${sampled !== null ? `, highest sampled during it ${sampled} MB` : ''}; ` +
      `peak after the whole plan was also read back: ${t.peakMb()} MB)`,
  );
};

const changePart = async (t: Target): Promise<void> => {
  log(`  one-change plan + apply on a ${ZONE_SETS.toLocaleString('en')}-set zone through the API …\n`);
  const post = (path: string, json: unknown) =>
    call(t.base, path, { method: 'POST', headers: { ...bearer(t.key), 'idempotency-key': randomUUID() }, json });
  const times: Array<{ plan: number; apply: number }> = [];
  for (let i = 0; i < RUNS + 2; i++) {
    const t0 = performance.now();
    const plan = await post(`/v1/domains/${CHANGE_DOMAIN}/dns/plans`, {
      changes: [{ action: 'create', name: `bench-${i}`, type: 'A', ttl: 300, values: ['192.0.2.1'] }],
    });
    const t1 = performance.now();
    if (plan.status !== 201 || !plan.body.valid) throw new Error(`plan refused: ${plan.status} ${JSON.stringify(plan.body)}`);
    const applied = await post(`/v1/domains/${CHANGE_DOMAIN}/dns/plans/${plan.body.id}/apply`, {});
    const t2 = performance.now();
    if (applied.status !== 200) throw new Error(`apply refused: ${applied.status} ${JSON.stringify(applied.body)}`);
    if (i >= 2) times.push({ plan: t1 - t0, apply: t2 - t1 });
    log(`    run ${i < 2 ? `warm-up ${i + 1}` : i - 1}: plan ${(t1 - t0).toFixed(0)} ms, apply ${(t2 - t1).toFixed(0)} ms\n`);
  }
  const total = median(times.map((x) => x.plan + x.apply));
  console.log(
    `one-change plan + apply on ${ZONE_SETS.toLocaleString('en')} sets (${IN_PROCESS ? 'in process' : 'server process'}): median ${total.toFixed(0)} ms ` +
      `(plan ${median(times.map((x) => x.plan)).toFixed(0)} ms, apply ${median(times.map((x) => x.apply)).toFixed(0)} ms; ` +
      `target ≤ ${CHANGE_TARGET_MS} ms) ${total <= CHANGE_TARGET_MS ? 'MET' : 'NOT MET'}`,
  );
};

const main = async (): Promise<void> => {
  log(
    `import bench: node ${process.version}, ${cpus().length} cores, load average ${loadavg()
      .map((x) => x.toFixed(2))
      .join(
        ' ',
      )}; ${IN_PROCESS ? 'the system in this process (BENCH_IMPORT_IN_PROCESS=1)' : `the compiled server in its own process (${SERVER.replace(`${ROOT}/`, '')})`}\n`,
  );
  const target = IN_PROCESS ? await inProcess() : await spawnedServer();
  try {
    if (PARTS.has('import')) await importPart(target);
    if (PARTS.has('change')) await changePart(target);
  } finally {
    await target.close();
  }
  if (TRACE) log(`  RSS samples (seconds since the server answered, MB): ${trace.join(', ')}\n`);
  log(
    `  load average at the end ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}\n`,
  );
};

await main();
