import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { EmbeddedNameserver } from '../adapters/dns/embedded/index.js';
import { SignedMessages } from '../adapters/dns/update/signed-messages.js';
import { ZoneSync } from '../adapters/dns/zone-sync.js';
import { httpServer } from '../adapters/http/index.js';
import { loadConfig } from '../src/config.js';
import { System } from '../src/system.js';
import { TOKENS } from '../src/tokens.js';

/**
 * `npm run bench:update`: one TXT value added at a fresh `_acme-challenge.<label>` name per operation,
 * made four ways in the same run, against the same system (SQLite, the API and the embedded DNS server
 * in this process, as under `npm start` with DNS_WORKERS=1):
 *   update-udp  a TSIG-signed DNS UPDATE over UDP (lego's rfc2136 provider, nsupdate);
 *   update-tcp  the same over one TCP connection per operation (certbot's plugin, nsupdate -v);
 *   acme-route  POST /v1/domains/{domain}/dns/acme-challenges (what our ACME hooks call);
 *   plan-api    POST …/dns/plans {changes: [one add]} then POST …/plans/{id}/apply (two calls).
 * Each answers only once the change is committed and our DNS server answers with it. Rounds alternate
 * the ways so load drift hits all alike, and every way adds as many names to the one zone. Two phases:
 * one client at a time (latency: p50, p99), then BENCH_CONCURRENCY clients at once on the same zone
 * (throughput; the writes to one zone are serialised by its serial check, so this shows the queueing; UPDATEs
 * of one key arriving during a commit are committed together, core/dns/update/group-commit.ts). The
 * clients run in a process of their own (bench/update-clients.ts), as real clients do: in the server's
 * process their work would count as the server's, and its event loop would read one new TCP connection's
 * message per turn, so TCP clients there reach the server one at a time.
 * Prints ops/s, p50, p99 and the server's CPU per operation (this process's user + system time: the API, the DNS
 * server and SQLite, which runs in it; not the clients') per way and phase, and the UPDATE/API ratios (issue target: UPDATE ≥ 1.0 of
 * the ACME route's rate, p99 ≤ 50 ms). A report: exits 0 whether or not a target is met; non-zero only if
 * an operation fails.
 *
 * Env: BENCH_ROUNDS (4), BENCH_OPS (25: operations per way per round), BENCH_CONCURRENCY (4), BENCH_WAYS (all;
 * a comma list to run only some, e.g. `update-udp` under `node --cpu-prof`: then no ratios). Any number of
 * one key's signed messages may be in flight at once: the credential limiter counts a TSIG check only when
 * it fails (core/accounts/credential-throttle.ts, `on_failure`).
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const OPS = Number(process.env.BENCH_OPS ?? 25);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
const ZONE = 'domivka-demo.dev';
const ALL_WAYS = ['update-udp', 'update-tcp', 'acme-route', 'plan-api'] as const;
type Way = (typeof ALL_WAYS)[number];
const WAYS: readonly Way[] = process.env.BENCH_WAYS ? ALL_WAYS.filter((w) => process.env.BENCH_WAYS!.split(',').includes(w)) : ALL_WAYS;
const root = join(dirname(fileURLToPath(import.meta.url)), '..');

const pct = (xs: readonly number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? NaN;
};

const main = async () => {
  const dir = mkdtempSync(join(tmpdir(), 'domivka-update-bench-'));
  const config = loadConfig({
    DATABASE_URL: join(dir, 'bench.sqlite'),
    VAR_DIR: dir,
    KEY_PEPPER: randomBytes(32).toString('hex'),
    DATA_KEY: randomBytes(32).toString('hex'),
    ARGON2_MEMORY_KIB: '1024',
    ARGON2_TIME_COST: '1',
    LOG_LEVEL: 'silent',
    SEED_DEMO: 'true',
    RUN_WORKER: 'false',
    // Every way spends the key's tokens: a bucket that never runs out, so the figures are the work's.
    RATE_LIMIT_BURST: '1000000',
    RATE_LIMIT_PER_SECOND: '1000000',
  });
  const system = new System(config, { logger: pino({ level: 'silent' }) });
  await system.migrate();
  const demo = (await system.get(TOKENS.SeedDemo).execute())!;
  const issued = await system
    .get(TOKENS.IssueKey)
    .issue(
      { personId: demo.personId, accountId: demo.accountId, role: 'owner' },
      { environment: 'test', name: 'update bench', rights: ['dns.edit', 'dns.acme_challenge'], domains: [ZONE] },
    );
  const tsig = issued.tsig!;

  const dns = new EmbeddedNameserver({ host: '127.0.0.1', port: 0, axfrAllow: [], secondaries: [] });
  await dns.start();
  system.get(TOKENS.ZonePublisher).attach(dns);
  dns.acceptSigned(new SignedMessages(system.signedDns(), { serves: null, log: pino({ level: 'silent' }) }));
  await new ZoneSync(system.store.zones, dns, pino({ level: 'silent' })).load();
  const dnsPort = dns.address().port;
  const server: Server = await new Promise((ok) => {
    const s = httpServer(system.http().app, system.config.clientTimeouts).listen(0, '127.0.0.1', () => ok(s));
  });
  system.markStarted();
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  // The clients: another process (bench/update-clients.ts), one job at a time over its stdin/stdout.
  const child = spawn(process.execPath, ['--max-semi-space-size=64', '--import', 'tsx', join(root, 'bench', 'update-clients.ts')], {
    env: {
      ...process.env,
      BENCH_UPDATE_CLIENT: JSON.stringify({
        dnsPort,
        base,
        secret: issued.secret,
        tsig: { name: tsig.name, algorithm: tsig.algorithm, secret: tsig.secret },
        zone: ZONE,
      }),
    },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const answers = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  let seq = 0;
  /** `n` operations of one way by `clients` clients at once (in the client process): each one's latency, and the wall time. */
  const batch = async (way: Way, n: number, clients: number): Promise<{ ms: number[]; wall: number; cpu: number }> => {
    const cpu0 = process.cpuUsage();
    child.stdin!.write(`${JSON.stringify({ way, n, clients, prefix: `${way}-${++seq}` })}\n`);
    const next = await answers.next();
    if (next.done) throw new Error('the client process ended');
    const r = JSON.parse(next.value) as { ms: number[]; wall: number } | { error: string };
    if ('error' in r) throw new Error(r.error);
    const cpu = process.cpuUsage(cpu0);
    return { ...r, cpu: (cpu.user + cpu.system) / 1000 };
  };

  console.log(
    `bench:update — one TXT at a fresh _acme-challenge name per operation, zone ${ZONE}, SQLite, ${ROUNDS} rounds × ${OPS} per way; load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  for (const way of WAYS) await batch(way, 5, 1); // warm-up
  const results: Record<string, { ms: number[]; wall: number; cpu: number }> = {};
  for (const clients of [1, CONCURRENCY]) {
    for (const way of WAYS) results[`${way}/${clients}`] = { ms: [], wall: 0, cpu: 0 };
    for (let r = 0; r < ROUNDS; r++) {
      for (const way of r % 2 ? [...WAYS].reverse() : WAYS) {
        const b = await batch(way, OPS, clients);
        const acc = results[`${way}/${clients}`]!;
        acc.ms.push(...b.ms);
        acc.wall += b.wall;
        acc.cpu += b.cpu;
      }
    }
    console.log(`\n${clients} client${clients > 1 ? 's' : ''} at a time:`);
    for (const way of WAYS) {
      const acc = results[`${way}/${clients}`]!;
      const rate = (acc.ms.length / acc.wall) * 1000;
      console.log(
        `  ${way.padEnd(11)} ${rate.toFixed(0).padStart(5)} ops/s   p50 ${pct(acc.ms, 50).toFixed(1).padStart(6)} ms   p99 ${pct(acc.ms, 99)
          .toFixed(1)
          .padStart(6)} ms   server CPU ${(acc.cpu / acc.ms.length).toFixed(2).padStart(5)} ms/op   (${acc.ms.length} ops)`,
      );
    }
    const rate = (way: Way) => {
      const acc = results[`${way}/${clients}`]!;
      return acc.ms.length / acc.wall;
    };
    for (const u of ['update-udp', 'update-tcp'] as const) {
      if (!WAYS.includes(u) || !WAYS.includes('acme-route') || !WAYS.includes('plan-api')) continue;
      const p99 = pct(results[`${u}/${clients}`]!.ms, 99);
      const vsAcme = rate(u) / rate('acme-route');
      console.log(
        `  ${u}: ${vsAcme.toFixed(2)}× the ACME route's rate (target ≥ 1.0: ${vsAcme >= 1 ? 'PASS' : 'FAIL'}), ${(rate(u) / rate('plan-api')).toFixed(2)}× the plan API's; p99 ${p99.toFixed(1)} ms (target ≤ 50: ${p99 <= 50 ? 'PASS' : 'FAIL'})`,
      );
    }
  }

  child.stdin!.end();
  await new Promise((ok) => child.once('exit', ok));
  server.closeAllConnections();
  await new Promise<void>((ok) => server.close(() => ok()));
  await dns.stop();
  await system.close();
  rmSync(dir, { recursive: true, force: true });
};

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
