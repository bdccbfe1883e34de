import { execFile, spawn } from 'node:child_process';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Router from '@koa/router';
import Database from 'better-sqlite3';
import knexFactory from 'knex';
import Koa from 'koa';
import pg from 'pg';
import { parseToken } from '../core/access/key-token.js';
import { onShutdown } from '../src/main/process.js';
import { freePort } from '../test/dns/server/tools.js';

/**
 * One server of the read benchmark (bench/read.bench.ts), in its own process so that the load
 * generator does not share its event loop. Prints one JSON line on stdout once it listens:
 *
 *   system: the real system as `npm start` runs it (its own process: package.json's start command, from
 *           dist/; BENCH_SYSTEM=src: the sources through tsx) on a fresh temp SQLite store, demo seeded, a
 *           domain.read test key issued by `npm run sandbox:key`'s entry point → {"port", "pid", "key",
 *           "path", "body"} (pid: the server's; body: the GET response, verbatim)
 *   bare:   Koa alone (no router, no auth), answering BENCH_BARE_BODY on the same path → {"port", "path"}
 *   reference: the same essential work as the keyed read, hand-built: Koa + @koa/router, the
 *           bearer token parsed, its HMAC-SHA-256 (BENCH_REF_PEPPER) compared in constant time with the
 *           stored hash read by a prepared select, the domain read by the same prepared select as the
 *           repository's (SQLite: better-sqlite3 statements; Postgres: named pg statements), the same
 *           JSON view → {"port", "path"}. No rights, rate limit, logging or caching.
 *
 * BENCH_STORE=postgres runs the system on a fresh schema of BENCH_PG_URL (or TEST_PG_URL), dropped on exit.
 *
 * Stops on SIGTERM/SIGINT (stopping the system's server and removing its temp store), so `--cpu-prof`
 * profiles get written. BENCH_LOG_LEVEL (default info, npm start's) sets the system's LOG_LEVEL; its logs
 * go to /dev/null, so the cost of building and writing each request's log line is measured without a
 * terminal.
 */
const BENCH_DOMAIN = 'domivka-demo.com.ua';
const BENCH_PATH = `/v1/domains/${BENCH_DOMAIN}`;

const listen = (app: Koa): Promise<Server> =>
  new Promise((resolve, reject) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
    s.once('error', reject);
  });

const portOf = (s: Server) => (s.address() as AddressInfo).port;

/**
 * The system as `npm start` runs it: the command line of package.json's start script (node with its flags,
 * dist/src/main/server.js: the API with the metrics middleware, the in-process worker, the DNS workers, its
 * HTTP server's client bounds) and npm start's defaults but for what a bench must set (a fresh store, free
 * ports, rate limits out of reach, the log level). BENCH_SYSTEM=src runs src/main/server.ts through tsx
 * with the same node flags. BENCH_SERVER_NODE_ARGS (e.g. --cpu-prof) go to that process. The key is issued
 * by `npm run sandbox:key`'s entry point on the same store.
 */
const startSystem = async () => {
  const src = process.env.BENCH_SYSTEM === 'src';
  const root = join(import.meta.dirname, '..');
  const start = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.start!;
  const words = start.split(/\s+/).filter((w) => w !== 'exec');
  if (words[0] !== 'node') throw new Error(`package.json's start script is not "node …": ${start}`);
  const flags = words.slice(1, -1);
  const entry = src ? ['--import', 'tsx', 'src/main/server.ts'] : [words[words.length - 1]!];
  const dir = mkdtempSync(join(tmpdir(), 'domivka-bench-'));
  const pgUrl = process.env.BENCH_STORE === 'postgres' ? process.env.BENCH_PG_URL || process.env.TEST_PG_URL : undefined;
  if (process.env.BENCH_STORE === 'postgres' && !pgUrl) throw new Error('BENCH_STORE=postgres needs BENCH_PG_URL or TEST_PG_URL');
  const schema = pgUrl ? `bench_${randomBytes(6).toString('hex')}` : undefined;
  if (pgUrl) {
    const admin = knexFactory({ client: 'pg', connection: pgUrl, pool: { min: 0, max: 1 } });
    await admin.raw(`create schema "${schema}"`);
    await admin.destroy();
  }
  const pepper = randomBytes(32).toString('hex');
  const high = process.env.BENCH_RATE_LIMIT ?? '10000000';
  const port = await freePort();
  const dnsPort = await freePort([port]);
  const metricsPort = await freePort([port, dnsPort]);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: pgUrl ?? join(dir, 'bench.sqlite'),
    ...(schema ? { DATABASE_SCHEMA: schema } : {}),
    VAR_DIR: dir,
    KEY_PEPPER: pepper,
    DATA_KEY: randomBytes(32).toString('hex'),
    ARGON2_MEMORY_KIB: '1024',
    ARGON2_TIME_COST: '1',
    // npm start's level unless told: each request's log line is written (here to /dev/null).
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
    RATE_LIMIT_BURST: high,
    RATE_LIMIT_PER_SECOND: high,
    PORT: String(port),
    DNS_PORT: String(dnsPort),
    METRICS_PORT: String(metricsPort),
  };
  delete env.NODE_OPTIONS;
  const serverArgs = [...(process.env.BENCH_SERVER_NODE_ARGS ?? '').split(/\s+/).filter(Boolean), ...flags, ...entry];
  const server = spawn(process.execPath, serverArgs, { cwd: root, env, stdio: ['ignore', 'ignore', 'inherit'] });
  const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));
  const base = `http://127.0.0.1:${port}`;
  let key: string;
  let body: string;
  try {
    for (let i = 0; ; i++) {
      if (server.exitCode !== null) throw new Error(`the server exited with ${server.exitCode}`);
      if (i === 1200) throw new Error('the server did not answer /healthz within 120 s');
      try {
        if ((await fetch(`${base}/healthz`)).ok) break;
      } catch {
        /* not yet */
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    const sandboxKey = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts[
      'sandbox:key'
    ]!;
    const keyWords = sandboxKey.split(/\s+/).filter((w) => w !== 'exec' && w !== 'node');
    const keyArgs = src ? ['--import', 'tsx', 'src/main/sandbox-key.ts'] : keyWords;
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [...keyArgs, '--rights', 'domain.read', '--domains', BENCH_DOMAIN, '--name', 'read bench', '--json'],
      { cwd: root, env: { ...env, LOG_LEVEL: 'warn' } },
    );
    key = (JSON.parse(stdout.trim().split('\n').pop()!) as { key: string }).key;

    // The exact body the bare server must answer, and a check that the key works before any load.
    const res = await fetch(`${base}${BENCH_PATH}`, { headers: { authorization: `Bearer ${key}` } });
    body = await res.text();
    if (res.status !== 200) throw new Error(`GET ${BENCH_PATH} with the bench key answered ${res.status}: ${body}`);
  } catch (err) {
    // Not left running (with its DNS workers), nor its store left behind.
    if (server.exitCode === null) server.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }

  onShutdown(async () => {
    if (server.exitCode === null) server.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
    if (pgUrl) {
      const admin = knexFactory({ client: 'pg', connection: pgUrl, pool: { min: 0, max: 1 } });
      await admin.raw(`drop schema if exists "${schema}" cascade`);
      await admin.destroy();
    }
  });
  const store = pgUrl ? { url: pgUrl, schema } : { url: join(dir, 'bench.sqlite') };
  // pid: the server's own process (its CPU per request is measured there, not in this wrapper).
  process.stdout.write(`${JSON.stringify({ port, pid: server.pid, key, path: BENCH_PATH, body, store, pepper })}\n`);
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

/** The repository's domain select (adapters/sql/repositories/domain.repository.ts FIND_SQL), for both engines. */
const FIND_SQL =
  'select d.id, d.account_id, d.environment, d.name, d.status, d.expires_on, d.auto_renew, d.transfer_lock, ' +
  'd.nameservers, d.created_at, d.auto_renew_failed_for, d.auto_renew_key_id, d.registrar, d.hosting_status, d.hosting_token, ' +
  'd.hosting_checked_at, d.hosting_problem, d.hosting_proof, l.label as label from domains d left join domain_labels l on l.domain_id = d.id ' +
  'where d.account_id = ? and d.environment = ? and d.name = ?';
const KEY_SQL = 'select account_id, environment, secret_hash, revoked_at from api_keys where id = ?';
const dollars = (sql: string) => {
  let i = 0;
  return sql.replace(/\?/g, () => `$${++i}`);
};

type KeyRow = { account_id: string; environment: string; secret_hash: string; revoked_at: string | null };
type DomainRow = {
  name: string;
  status: string;
  expires_on: string;
  auto_renew: unknown;
  transfer_lock: unknown;
  nameservers: string;
  created_at: string;
  registrar: string | null;
  label: string | null;
};

const startReference = async () => {
  const store = JSON.parse(process.env.BENCH_REF_STORE ?? 'null') as { url: string; schema?: string } | null;
  const pepperHex = process.env.BENCH_REF_PEPPER;
  if (!store || !pepperHex) throw new Error('BENCH_REF_STORE and BENCH_REF_PEPPER are required');
  const pepper = Buffer.from(pepperHex, 'hex');
  let findKey: (id: string) => Promise<KeyRow | undefined>;
  let findDomain: (a: string, e: string, n: string) => Promise<DomainRow[]>;
  let close: () => Promise<void>;
  if (store.url.startsWith('postgres')) {
    const pool = new pg.Pool({
      connectionString: store.url,
      max: 10,
      ...(store.schema ? { options: `-c search_path=${store.schema}` } : {}),
    });
    findKey = async (id) => (await pool.query<KeyRow>({ name: 'ref_key', text: dollars(KEY_SQL), values: [id] })).rows[0];
    findDomain = async (a, e, n) => (await pool.query<DomainRow>({ name: 'ref_domain', text: dollars(FIND_SQL), values: [a, e, n] })).rows;
    close = () => pool.end();
  } else {
    const db = new Database(store.url, { readonly: true, fileMustExist: true });
    const key = db.prepare(KEY_SQL);
    const domain = db.prepare(FIND_SQL);
    findKey = async (id) => key.get(id) as KeyRow | undefined;
    findDomain = async (a, e, n) => domain.all(a, e, n) as DomainRow[];
    close = async () => void db.close();
  }
  const truthy = (v: unknown) => v === true || v === 1 || v === '1';
  const router = new Router();
  router.get('/v1/domains/:domain', async (ctx) => {
    const auth = ctx.get('authorization');
    const token = auth.startsWith('Bearer ') ? auth.slice(7) : '';
    const parsed = parseToken(token);
    const row = parsed ? await findKey(parsed.id) : undefined;
    const presented = Buffer.from(createHmac('sha256', pepper).update(token, 'utf8').digest('hex'));
    const stored = Buffer.from(row?.secret_hash ?? '0'.repeat(64));
    if (!row || !timingSafeEqual(presented, stored) || row.revoked_at) {
      ctx.status = 401;
      return;
    }
    const rows = await findDomain(row.account_id, row.environment, ctx.params.domain!);
    if (rows.length === 0) {
      ctx.status = 404;
      return;
    }
    const d = rows[0]!;
    ctx.body = {
      domain: d.name,
      status: JSON.parse(d.status),
      expires_at: d.expires_on,
      auto_renew: truthy(d.auto_renew),
      labels: rows.flatMap((r) => (r.label === null ? [] : [r.label])).sort(),
      nameservers: JSON.parse(d.nameservers),
      transfer_lock: truthy(d.transfer_lock),
      created_at: new Date(d.created_at).toISOString(),
      registrar: d.registrar ?? 'domivka',
    };
  });
  const app = new Koa();
  app.use(router.routes());
  const server = await listen(app);
  onShutdown(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await close();
  });
  process.stdout.write(`${JSON.stringify({ port: portOf(server), path: BENCH_PATH })}\n`);
};

const mode = process.argv[2];
const start = mode === 'system' ? startSystem : mode === 'bare' ? startBare : mode === 'reference' ? startReference : null;
if (!start) {
  process.stderr.write('usage: read-server.ts system|bare|reference\n');
  process.exit(2);
}
start().catch((err) => {
  process.stderr.write(`read-server ${mode}: ${(err as Error).stack}\n`);
  process.exit(1);
});
