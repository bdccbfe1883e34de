import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import knexFactory from 'knex';
import { dnsRounds, type DnsStore } from './scale-dns.js';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/**
 * `npm run bench:scale`: does a request cost more on a large account than on the 3-domain demo? Two
 * stores, each in its own process (bench/scale-server.ts): the demo as seeded, and the demo grown through
 * the project's own use cases to BENCH_SCALE_DOMAINS domains (with events, monitors, keys, webhooks and a
 * zone of BENCH_SCALE_RECORDS records). The same operations are then measured from outside on both, in
 * BENCH_ROUNDS rounds (the order alternates), and each large/small ratio is printed against the target
 * ≤ 1.5× (issue: "cost that does not grow with the account").
 *
 * Operations: GET /v1/events?limit=200 with a key that reads every label and with one that reads one
 * label (the blog domain, a rare match); GET /v1/domains?label=blog; GET /v1/domains?limit=50 (3 items on
 * the demo, 50 on the large account) and ?limit=3 (a full page on both); GET of one domain; a records page
 * of domivka-demo.com.ua (limit 50: 6 against 50 items; limit 6: full on both); and the event publisher per event
 * (monitor.created events, whose subject is not a domain), timed inside the server through its control
 * port because it has no route.
 *
 * Beside each wall-clock median, the server process's CPU microseconds per request (its own counter, read
 * through the control port before and after the measured requests): a figure other load on the machine
 * moves less. On Postgres the database's work is not in it.
 *
 * SQLite always; Postgres too when BENCH_PG_URL or TEST_PG_URL is set (BENCH_ENGINES=sqlite,postgres picks).
 * A report: exits 0 whether or not the targets are met; non-zero when a server failed or a request was
 * not answered 200.
 *
 * Env: BENCH_SCALE_DOMAINS (default 2000; the issue's figure is 10000, which takes ~5 minutes a store to
 *      build here), BENCH_SCALE_EVENTS (5 per domain), BENCH_SCALE_MONITORS (500), BENCH_SCALE_KEYS (1000 or
 *      domains/10), BENCH_SCALE_WEBHOOKS (200 or domains/50), BENCH_SCALE_RECORDS (1000), BENCH_ROUNDS (3),
 *      BENCH_REQUESTS (40 per operation, account and round, after 5 unmeasured), BENCH_PUBLISH_EVENTS (100),
 *      BENCH_PUBLISH_RUNS (5 publisher runs per account and round), BENCH_PRIME_EVENTS (300: recorded on both
 *      accounts before the rounds, so that an event page of 200 is full on the demo as on the large account).
 *      BENCH_SCALE_DNS: the DNS part (bench/scale-dns.ts: `npm start`'s server started on each store, BENCH_ROUNDS
 *      times alternating — start to /healthz, RSS per DNS worker against the record data, a plan applied to a
 *      3-record zone, BENCH_DNS_APPLIES (20) a start); 1 (default) after the reads, 0 off, `only` without the reads.
 */
const TARGET = 1.5;
const root = join(dirname(fileURLToPath(import.meta.url)), '..');

const num = (name: string, fallback: number): number => {
  const v = process.env[name];
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number, got "${v}"`);
  return n;
};

const domains = Math.round(num('BENCH_SCALE_DOMAINS', 2000));
const rounds = Math.round(num('BENCH_ROUNDS', 3));
const requests = Math.round(num('BENCH_REQUESTS', 40));
const publishEvents = Math.round(num('BENCH_PUBLISH_EVENTS', 100));
const publishRuns = Math.round(num('BENCH_PUBLISH_RUNS', 5));
/** Events recorded on both accounts before the rounds, so that every event page is full (200) on the demo too. */
const primeEvents = Math.round(num('BENCH_PRIME_EVENTS', 300));
const dnsPart = process.env.BENCH_SCALE_DNS ?? '1';
const dnsApplies = Math.round(num('BENCH_DNS_APPLIES', 20));

interface Info {
  port: number;
  controlPort: number;
  keys: { reader: string; rare: string; editor: string; renew: string; dns: string };
  sizes: Record<string, number>;
  builtMs: number;
  engine: string;
}

interface Child {
  readonly proc: ChildProcess;
  readonly info: Info;
  crashed(): string | null;
  stop(): Promise<void>;
}

const startServer = (name: string, env: Record<string, string>): Promise<Child> =>
  new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', join(root, 'bench', 'scale-server.ts')], {
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
        crash = `${name} server exited (code ${code}, signal ${signal})`;
        reject(new Error(crash));
      }
    });
    proc.once('error', reject);
    const lines = createInterface({ input: proc.stdout! });
    lines.once('line', (line) => {
      let info: Info;
      try {
        info = JSON.parse(line) as Info;
      } catch {
        reject(new Error(`${name} server printed "${line}" instead of its JSON line`));
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

type Op = { name: string; path: string; key: keyof Info['keys'] };
const OPS: Op[] = [
  { name: 'GET /v1/events?limit=200 (every label)', path: '/v1/events?limit=200', key: 'reader' },
  { name: 'GET /v1/events?limit=200 (one label, rare)', path: '/v1/events?limit=200', key: 'rare' },
  { name: 'GET /v1/domains?label=blog', path: '/v1/domains?label=blog', key: 'reader' },
  { name: 'GET /v1/domains?limit=50', path: '/v1/domains?limit=50', key: 'reader' },
  { name: 'GET /v1/domains?limit=3 (full page on both)', path: '/v1/domains?limit=3', key: 'reader' },
  { name: 'GET /v1/domains/domivka-demo.com.ua', path: '/v1/domains/domivka-demo.com.ua', key: 'reader' },
  { name: 'GET …/dns/records?limit=50 (demo zone)', path: '/v1/domains/domivka-demo.com.ua/dns/records?limit=50', key: 'reader' },
  { name: 'GET …/dns/records?limit=6 (full page on both)', path: '/v1/domains/domivka-demo.com.ua/dns/records?limit=6', key: 'reader' },
];

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/** Median milliseconds of one request, `requests` in a row after 5 unmeasured ones; every answer must be 200. */
/** The server process's CPU time (user + system) in microseconds, from its control port. */
const cpuOf = async (c: Child): Promise<number> => {
  const res = await fetch(`http://127.0.0.1:${c.info.controlPort}/cpu`);
  const body = await res.text();
  if (res.status !== 200) throw new Error(`cpu: ${res.status} ${body}`);
  return (JSON.parse(body) as { us: number }).us;
};

/**
 * Median milliseconds of one request (`requests` in a row after 5 unmeasured), and the server process's
 * CPU microseconds per request over them (less moved by other load on the machine than the wall clock;
 * on Postgres the database's own work is not in it). Every answer must be 200.
 */
const measure = async (c: Child, op: Op): Promise<{ ms: number; cpu: number | null; items: number }> => {
  const url = `http://127.0.0.1:${c.info.port}${op.path}`;
  const headers = { authorization: `Bearer ${c.info.keys[op.key]}` };
  const times: number[] = [];
  let items = 0;
  let cpu0 = 0;
  for (let i = 0; i < requests + 5; i++) {
    if (i === 5) cpu0 = await cpuOf(c);
    const t0 = process.hrtime.bigint();
    const res = await fetch(url, { headers });
    const body = await res.text();
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    if (res.status !== 200) throw new Error(`${op.name} answered ${res.status}: ${body.slice(0, 300)}`);
    if (i >= 5) times.push(ms);
    items = ((JSON.parse(body) as { data?: unknown[] }).data ?? []).length;
  }
  const cpu = (await cpuOf(c)) - cpu0;
  return { ms: median(times), cpu: cpu / requests, items };
};

/** One publisher run: the server records `n` monitor.created events and times PublishEvents over them. */
const publishOnce = async (c: Child, n: number): Promise<{ published: number; ms: number; cpuUs: number }> => {
  const res = await fetch(`http://127.0.0.1:${c.info.controlPort}/publish?n=${n}`, { method: 'POST' });
  const body = await res.text();
  if (res.status !== 200) throw new Error(`publisher: ${res.status} ${body}`);
  return JSON.parse(body) as { published: number; ms: number; cpuUs: number };
};

/**
 * Milliseconds per published event: the median of `publishRuns` runs of `publishEvents` events each; beside
 * it the server's CPU µs per event over the same runs (the publisher's own work, which load moves less).
 */
const publisher = async (c: Child): Promise<{ ms: number; cpu: number | null; items: number }> => {
  const per: number[] = [];
  const cpu: number[] = [];
  let items = 0;
  for (let i = 0; i < publishRuns; i++) {
    const r = await publishOnce(c, publishEvents);
    per.push(r.ms / Math.max(1, r.published));
    cpu.push(r.cpuUs / Math.max(1, r.published));
    items = r.published;
  }
  return { ms: median(per), cpu: median(cpu), items };
};

const pad = (s: string, n: number) => (s.length >= n ? s : s + ' '.repeat(n - s.length));
const lpad = (s: string, n: number) => (s.length >= n ? s : ' '.repeat(n - s.length) + s);

/** A store the bench builds and keeps until the end (the DNS part starts `npm start`'s server on it). */
interface KeptStore {
  readonly env: Record<string, string>;
  drop(): Promise<void>;
}

const keptStore = (engine: string): KeptStore => {
  const dir = mkdtempSync(join(tmpdir(), 'domivka-scale-'));
  const secrets = { KEY_PEPPER: randomBytes(32).toString('hex'), DATA_KEY: randomBytes(32).toString('hex') };
  const schema = engine === 'postgres' ? `bench_${randomBytes(6).toString('hex')}` : '';
  const env: Record<string, string> =
    engine === 'postgres'
      ? { DATABASE_URL: pgUrl, DATABASE_SCHEMA: schema, VAR_DIR: dir, ...secrets }
      : { DATABASE_URL: join(dir, 'bench.sqlite'), VAR_DIR: dir, ...secrets };
  return {
    env,
    async drop() {
      rmSync(dir, { recursive: true, force: true });
      if (!schema) return;
      const admin = knexFactory({ client: 'pg', connection: pgUrl, pool: { min: 0, max: 1 } });
      await admin.raw(`drop schema if exists "${schema}" cascade`);
      await admin.destroy();
    },
  };
};

/** What scale-server.ts needs to build a kept store. */
const keptEnv = (k: KeptStore): Record<string, string> => ({
  BENCH_SCALE_DIR: k.env.VAR_DIR!,
  ...(k.env.DATABASE_SCHEMA ? { BENCH_SCALE_SCHEMA: k.env.DATABASE_SCHEMA } : {}),
  BENCH_SCALE_KEY_PEPPER: k.env.KEY_PEPPER!,
  BENCH_SCALE_DATA_KEY: k.env.DATA_KEY!,
});

const runEngine = async (engine: string, children: Child[], kept: KeptStore[]): Promise<void> => {
  process.stderr.write(`\n[${engine}] building the small account (the demo) …\n`);
  const store = engine === 'postgres' ? { BENCH_STORE: 'postgres' } : { BENCH_STORE: 'sqlite' };
  const stores = { small: keptStore(engine), large: keptStore(engine) };
  kept.push(stores.small, stores.large);
  const small = await startServer('small', { ...store, ...keptEnv(stores.small), BENCH_SCALE_DOMAINS: '0' });
  children.push(small);
  process.stderr.write(`[${engine}] building the large account (${domains} registrations and more) …\n`);
  const large = await startServer('large', { ...store, ...keptEnv(stores.large), BENCH_SCALE_DOMAINS: String(domains) });
  children.push(large);
  const dnsStores = (): [DnsStore, DnsStore] => [
    { name: 'small', env: stores.small.env, key: small.info.keys.dns },
    { name: 'large', env: stores.large.env, key: large.info.keys.dns },
  ];
  if (dnsPart === 'only') {
    await Promise.all([small.stop(), large.stop()]);
    await dnsRounds(engine, ...dnsStores(), rounds, dnsApplies);
    return;
  }
  for (const [n, c] of [
    ['small', small],
    ['large', large],
  ] as const)
    process.stdout.write(`[${engine}] ${n}: ${JSON.stringify(c.info.sizes)} built in ${(c.info.builtMs / 1000).toFixed(1)} s\n`);

  // The demo holds 4 events: without these, its event pages would hold 4 where the large account's hold 200.
  await Promise.all([publishOnce(small, primeEvents), publishOnce(large, primeEvents)]);
  const names = [...OPS.map((o) => o.name), `publisher, per event (median of ${publishRuns} × ${publishEvents} monitor.created)`];
  const results = names.map(() => ({
    small: [] as number[],
    large: [] as number[],
    cpu: { small: [] as number[], large: [] as number[] },
    items: { small: 0, large: 0 },
  }));
  for (let round = 0; round < rounds; round++) {
    process.stderr.write(`  round ${round + 1} of ${rounds}\n`);
    const order = round % 2 === 0 ? (['small', 'large'] as const) : (['large', 'small'] as const);
    for (let i = 0; i <= OPS.length; i++) {
      for (const which of order) {
        const c = which === 'small' ? small : large;
        const r = i < OPS.length ? await measure(c, OPS[i]!) : await publisher(c);
        results[i]![which].push(r.ms);
        if (r.cpu !== null) results[i]!.cpu[which].push(r.cpu);
        results[i]!.items[which] = r.items;
      }
    }
    const crashed = children.map((c) => c.crashed()).find((x) => x !== null);
    if (crashed) throw new Error(crashed);
  }
  const w = Math.max(...names.map((n) => n.length));
  const lines = [
    `${pad('', w)}  ${lpad('small ms', 9)}  ${lpad('large ms', 9)}  ${lpad('ratio', 6)}  per round            items s/l  target ≤ ${TARGET}×  ` +
      'server CPU µs/req (publisher: /event) small, large, ratio',
  ];
  for (const [i, n] of names.entries()) {
    const r = results[i]!;
    const ratios = r.large.map((l, k) => l / r.small[k]!);
    const ratio = median(r.large) / median(r.small);
    lines.push(
      `${pad(n, w)}  ${lpad(median(r.small).toFixed(2), 9)}  ${lpad(median(r.large).toFixed(2), 9)}  ${lpad(ratio.toFixed(2), 6)}  ${pad(
        ratios.map((x) => x.toFixed(2)).join(', '),
        19,
      )}  ${lpad(`${r.items.small}/${r.items.large}`, 9)}  ${pad(ratio <= TARGET ? 'MET' : 'MISSED', 13)}  ${
        r.cpu.small.length === 0
          ? '-'
          : `${median(r.cpu.small).toFixed(0)}, ${median(r.cpu.large).toFixed(0)}, ${(median(r.cpu.large) / median(r.cpu.small)).toFixed(2)}`
      }`,
    );
  }
  process.stdout.write(`[${engine}] median of ${rounds} rounds (each the median of ${requests} requests in a row)\n${lines.join('\n')}\n`);
  await Promise.all([small.stop(), large.stop()]);
  if (dnsPart !== '0') await dnsRounds(engine, ...dnsStores(), rounds, dnsApplies);
};

const pgUrl = process.env.BENCH_PG_URL || process.env.TEST_PG_URL || '';
const engines = (process.env.BENCH_ENGINES ?? (pgUrl ? 'sqlite,postgres' : 'sqlite'))
  .split(',')
  .map((e) => e.trim())
  .filter(Boolean);

const main = async (): Promise<number> => {
  process.stderr.write(
    `scale bench: large = ${domains} domains (BENCH_SCALE_DOMAINS; the issue's figure is 10000), ${rounds} rounds; engines ${engines.join(', ')}; ` +
      `node ${process.version}, ${cpus().length} cores, load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}\n`,
  );
  const children: Child[] = [];
  const kept: KeptStore[] = [];
  const stopAll = async () => {
    await Promise.all(children.map((c) => c.stop()));
    await Promise.all(kept.splice(0).map((k) => k.drop()));
  };
  const onSignal = () => void stopAll().then(() => process.exit(130));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    for (const engine of engines) {
      if (engine !== 'sqlite' && engine !== 'postgres') throw new Error(`BENCH_ENGINES: unknown engine "${engine}"`);
      await runEngine(engine, children, kept);
    }
    return 0;
  } finally {
    await stopAll();
  }
};

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`scale bench failed: ${(err as Error).stack ?? err}\n`);
    process.exit(1);
  },
);
