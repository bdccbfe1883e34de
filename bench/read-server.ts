import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Koa from 'koa';
import pino from 'pino';
import { loadConfig } from '../src/config.js';
import { System } from '../src/system.js';
import { TOKENS } from '../src/tokens.js';
import { onShutdown } from '../src/main/process.js';

/**
 * One server of the read benchmark (bench/read.bench.ts), in its own process so that the load
 * generator does not share its event loop. Prints one JSON line on stdout once it listens:
 *
 *   system: the real system on a fresh temp SQLite store, demo seeded, a domain.read test key issued
 *           through IssueKey → {"port", "key", "path", "body"} (body: the GET response, verbatim)
 *   bare:   Koa alone (no router, no auth), answering BENCH_BARE_BODY on the same path → {"port", "path"}
 *
 * Stops on SIGTERM/SIGINT (removing its temp store), so `--cpu-prof` profiles get written.
 * BENCH_LOG_LEVEL (default silent) sets the system's pino level; non-silent logs go to /dev/null,
 * so the cost of building and writing each request's log line is measured without a terminal.
 */
const BENCH_DOMAIN = 'domivka-demo.com.ua';
const BENCH_PATH = `/v1/domains/${BENCH_DOMAIN}`;

const listen = (app: Koa): Promise<Server> =>
  new Promise((resolve, reject) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
    s.once('error', reject);
  });

const portOf = (s: Server) => (s.address() as AddressInfo).port;


const startSystem = async () => {
  const dir = mkdtempSync(join(tmpdir(), 'domivka-bench-'));
  const high = process.env.BENCH_RATE_LIMIT ?? '10000000';
  const logLevel = process.env.BENCH_LOG_LEVEL ?? 'silent';
  const config = loadConfig({
    DATABASE_URL: join(dir, 'bench.sqlite'),
    VAR_DIR: dir,
    KEY_PEPPER: randomBytes(32).toString('hex'),
    ARGON2_MEMORY_KIB: '1024',
    ARGON2_TIME_COST: '1',
    LOG_LEVEL: logLevel,
    RATE_LIMIT_BURST: high,
    RATE_LIMIT_PER_SECOND: high,
    SEED_DEMO: 'true',
    RUN_WORKER: 'false',
  });
  const logger = logLevel === 'silent' ? pino({ level: 'silent' }) : pino({ level: logLevel }, pino.destination('/dev/null'));
  const system = new System(config, { logger });
  await system.migrate();
  const demo = await system.get(TOKENS.SeedDemo).execute();
  if (!demo) throw new Error('the fresh store already had a demo account');
  const issued = await system.get(TOKENS.IssueKey).issue(
    { personId: demo.personId, accountId: demo.accountId, role: 'owner' },
    { environment: 'test', name: 'read bench', rights: ['domain.read'], domains: [BENCH_DOMAIN] },
  );
  const { app } = system.http();
  const server = await listen(app);
  system.markStarted();
  const port = portOf(server);

  // The exact body the bare server must answer, and a check that the key works before any load.
  const res = await fetch(`http://127.0.0.1:${port}${BENCH_PATH}`, { headers: { authorization: `Bearer ${issued.secret}` } });
  const body = await res.text();
  if (res.status !== 200) throw new Error(`GET ${BENCH_PATH} with the bench key answered ${res.status}: ${body}`);

  onShutdown(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await system.close();
    rmSync(dir, { recursive: true, force: true });
  });
  process.stdout.write(`${JSON.stringify({ port, key: issued.secret, path: BENCH_PATH, body })}\n`);
};

const startBare = async () => {
  const raw = process.env.BENCH_BARE_BODY;
  if (!raw) throw new Error('BENCH_BARE_BODY (the JSON body to answer) is required');
  // Parsed once; Koa serialises it on every response, as it does the real route's reply.
  const body: unknown = JSON.parse(raw);
  const app = new Koa();
  app.use((ctx) => {
    if (ctx.method === 'GET' && ctx.path === BENCH_PATH) ctx.body = body;
  });
  const server = await listen(app);
  onShutdown(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  process.stdout.write(`${JSON.stringify({ port: portOf(server), path: BENCH_PATH })}\n`);
};

const mode = process.argv[2];
const start = mode === 'system' ? startSystem : mode === 'bare' ? startBare : null;
if (!start) {
  process.stderr.write('usage: read-server.ts system|bare\n');
  process.exit(2);
}
start().catch((err) => {
  process.stderr.write(`read-server ${mode}: ${(err as Error).stack}\n`);
  process.exit(1);
});
