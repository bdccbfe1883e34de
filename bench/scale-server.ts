import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import knexFactory from 'knex';
import pino from 'pino';
import { transientCheckpoints } from '../core/kernel/checkpoints.port.js';
import { loadConfig } from '../src/config.js';
import { System } from '../src/system.js';
import { TOKENS } from '../src/tokens.js';
import { onShutdown } from '../src/main/process.js';

/**
 * One account of the scale benchmark (bench/scale.bench.ts), in its own process: a fresh store with the
 * demo account seeded, grown (when BENCH_SCALE_DOMAINS > 0) through the project's own use cases —
 * RegisterDomain through a label-scoped domain.register key (every new domain carries the label `bulk`),
 * SetAutoRenew (more domain events), CreateMonitor, IssueKey, ManageWebhooks, DnsPlans on one zone — and the publisher run until the log is
 * numbered. Then it serves the API and prints one JSON line: the port, the keys the bench reads with,
 * the sizes it built and how long building took.
 *
 * A control listener (not part of the product) on another port runs what has no route: `POST /publish?n=N`
 * records N fresh events that need a domain lookup (monitor.created, subject `monitor:…`) through
 * CreateMonitor and times PublishEvents over them (wall clock and the process's CPU); `GET /cpu` answers the process's CPU time so far (µs).
 *
 * Env: BENCH_SCALE_DOMAINS (0 = the demo as seeded), BENCH_SCALE_EVENTS, BENCH_SCALE_MONITORS, BENCH_SCALE_KEYS,
 * BENCH_SCALE_WEBHOOKS, BENCH_SCALE_RECORDS (records added to domivka-demo.com.ua), BENCH_STORE=postgres
 * (a fresh schema of BENCH_PG_URL or TEST_PG_URL, dropped on exit). For the DNS part of the bench
 * (bench/scale-dns.ts), which starts `npm start`'s server on the store afterwards: BENCH_SCALE_DIR (the
 * store's directory, kept on exit), BENCH_SCALE_SCHEMA (the Postgres schema, kept on exit),
 * BENCH_SCALE_KEY_PEPPER and BENCH_SCALE_DATA_KEY (so that the server reads the same keys).
 */
const num = (name: string, fallback: number): number => {
  const v = process.env[name];
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a whole number ≥ 0, got "${v}"`);
  return n;
};

const listen = (s: Server): Promise<number> =>
  new Promise((resolve, reject) => {
    s.listen(0, '127.0.0.1', () => resolve((s.address() as AddressInfo).port));
    s.once('error', reject);
  });

const progress = (what: string, done: number, total: number) => {
  if (done % 500 === 0 || done === total) process.stderr.write(`    ${what}: ${done}/${total}\n`);
};

const main = async () => {
  const domains = num('BENCH_SCALE_DOMAINS', 0);
  const large = domains > 0;
  const monitors = large ? num('BENCH_SCALE_MONITORS', Math.min(500, domains)) : 0;
  const keys = large ? num('BENCH_SCALE_KEYS', Math.min(1000, domains / 10)) : 0;
  const webhooks = large ? num('BENCH_SCALE_WEBHOOKS', Math.min(200, domains / 50)) : 0;
  const records = large ? num('BENCH_SCALE_RECORDS', 1000) : 0;
  const events = large ? num('BENCH_SCALE_EVENTS', domains * 5) : 0;

  const keep = process.env.BENCH_SCALE_DIR || '';
  const dir = keep || mkdtempSync(join(tmpdir(), 'domivka-scale-'));
  const pgUrl = process.env.BENCH_STORE === 'postgres' ? process.env.BENCH_PG_URL || process.env.TEST_PG_URL : undefined;
  if (process.env.BENCH_STORE === 'postgres' && !pgUrl) throw new Error('BENCH_STORE=postgres needs BENCH_PG_URL or TEST_PG_URL');
  const keepSchema = process.env.BENCH_SCALE_SCHEMA || '';
  const schema = pgUrl ? keepSchema || `bench_${randomBytes(6).toString('hex')}` : undefined;
  if (pgUrl) {
    const admin = knexFactory({ client: 'pg', connection: pgUrl, pool: { min: 0, max: 1 } });
    await admin.raw(`create schema "${schema}"`);
    await admin.destroy();
  }
  const config = loadConfig({
    DATABASE_URL: pgUrl ?? join(dir, 'bench.sqlite'),
    ...(schema ? { DATABASE_SCHEMA: schema } : {}),
    VAR_DIR: dir,
    KEY_PEPPER: process.env.BENCH_SCALE_KEY_PEPPER || randomBytes(32).toString('hex'),
    DATA_KEY: process.env.BENCH_SCALE_DATA_KEY || randomBytes(32).toString('hex'),
    ARGON2_MEMORY_KIB: '1024',
    ARGON2_TIME_COST: '1',
    LOG_LEVEL: 'silent',
    RATE_LIMIT_BURST: '10000000',
    RATE_LIMIT_PER_SECOND: '10000000',
    SEED_DEMO: 'true',
    RUN_WORKER: 'false',
    // The bench's publisher runs create monitors too (priming, then BENCH_PUBLISH_RUNS × BENCH_PUBLISH_EVENTS a round).
    MONITOR_LIMIT: String(monitors + 20_000),
    WEBHOOKS_ALLOW_LOOPBACK: '1',
  });
  const system = new System(config, { logger: pino({ level: 'silent' }) });
  const servers: Server[] = [];
  onShutdown(async () => {
    for (const s of servers) s.closeAllConnections();
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
    await system.close();
    if (!keep) rmSync(dir, { recursive: true, force: true });
    if (pgUrl && !keepSchema) {
      const admin = knexFactory({ client: 'pg', connection: pgUrl, pool: { min: 0, max: 1 } });
      await admin.raw(`drop schema if exists "${schema}" cascade`);
      await admin.destroy();
    }
  });
  await system.migrate();
  const demo = await system.get(TOKENS.SeedDemo).execute();
  if (!demo) throw new Error('the fresh store already had a demo account');
  const owner = { personId: demo.personId, accountId: demo.accountId, role: 'owner' as const };
  const issue = system.get(TOKENS.IssueKey);
  const authenticate = system.get(TOKENS.AuthenticateKey);
  const keyOf = async (input: Parameters<typeof issue.issue>[1]) => {
    const issued = await issue.issue(owner, input);
    return { secret: issued.secret, key: await authenticate.execute(issued.secret, '127.0.0.1') };
  };
  const started = Date.now();

  // The keys the bench reads with, the same on both accounts.
  const reader = await keyOf({
    environment: 'test',
    name: 'scale: every label',
    policies: ['prod', 'shop', 'blog', 'bulk'].flatMap((label) => [
      { right: 'domain.read', resources: { label } },
      { right: 'dns.read', resources: { label } },
    ]),
  });
  const rare = await keyOf({ environment: 'test', name: 'scale: one label', rights: ['domain.read'], label: 'blog' });
  const editor = await keyOf({
    environment: 'test',
    name: 'scale: monitors',
    policies: ['prod', 'shop', 'blog', 'bulk'].map((label) => ({ right: 'monitor.edit', resources: { label } })),
  });
  const labels = await keyOf({
    environment: 'test',
    name: 'scale: auto-renew',
    policies: [{ right: 'domain.renew', resources: { label: 'prod' } }],
    conditions: { cidr: '127.0.0.0/8', spend_limit: 100_000_00 },
  });

  // The DNS part: plans applied to a zone of 3 record sets, the same on both accounts.
  const applier = await keyOf({ environment: 'test', name: 'scale: dns apply', rights: ['dns.edit'], domains: ['domivka-demo.dev'] });

  const sizes = { domains: 3, events: 0, monitors: 0, keys: 4, webhooks: 0, records_in_demo_zone: 4 };
  if (large) {
    const price = 1_000_00; // more than any TLD of the price list, per year
    await system.store.uow.transaction(() =>
      system.get(TOKENS.Accounting).credit({
        accountId: demo.accountId,
        environment: 'test',
        amount: price * domains,
        kind: 'grant',
        keyId: null,
        description: 'scale bench',
      }),
    );
    const registrar = await keyOf({
      environment: 'test',
      name: 'scale: registrations',
      policies: [{ right: 'domain.register', resources: { label: 'bulk' } }],
      conditions: { cidr: '127.0.0.0/8', spend_limit: price * domains },
    });
    const register = system.get(TOKENS.RegisterDomain);
    const tlds = ['com.ua', 'kyiv.ua', 'org.ua', 'dev', 'com'];
    for (let i = 0; i < domains; i++) {
      await register.execute(
        registrar.key,
        { domain: `scale-${String(i).padStart(6, '0')}.${tlds[i % tlds.length]}`, years: 1 },
        transientCheckpoints(system.store.uow),
      );
      progress('domains registered', i + 1, domains);
    }
    sizes.domains += domains;
    // More domain events (auto-renew switched off and on), up to about BENCH_SCALE_EVENTS in the log.
    const renewer = await keyOf({
      environment: 'test',
      name: 'scale: auto-renew switches',
      policies: [{ right: 'domain.renew', resources: { label: 'bulk' } }],
      conditions: { cidr: '127.0.0.0/8', spend_limit: price * domains },
    });
    const setAutoRenew = system.get(TOKENS.SetAutoRenew);
    const switches = Math.max(0, events - domains * 2 - monitors);
    for (let i = 0; i < switches; i++) {
      const d = i % domains;
      await setAutoRenew.execute(
        renewer.key,
        `scale-${String(d).padStart(6, '0')}.${tlds[d % tlds.length]}`,
        Math.floor(i / domains) % 2 === 1,
      );
      progress('auto-renew switches', i + 1, switches);
    }
    const create = system.get(TOKENS.CreateMonitor);
    for (let i = 0; i < monitors; i++) {
      await create.execute(editor.key, {
        kind: 'domain_expiry',
        domain: `scale-${String(i % domains).padStart(6, '0')}.${tlds[(i % domains) % tlds.length]}`,
      });
      progress('monitors created', i + 1, monitors);
    }
    sizes.monitors = monitors;
    for (let i = 0; i < keys; i++) {
      await issue.issue(owner, { environment: 'test', name: `scale key ${i}`, rights: ['domain.read'], label: 'bulk' });
      progress('keys issued', i + 1, keys);
    }
    sizes.keys += keys + 1;
    const manage = system.get(TOKENS.ManageWebhooks);
    const hooksKey = await keyOf({ environment: 'test', name: 'scale: webhooks', rights: ['webhook.manage'] });
    for (let i = 0; i < webhooks; i++) {
      await manage.create(hooksKey.key, { url: `http://127.0.0.1:9/hook/${i}`, events: ['domain.renewed'] });
      progress('webhooks created', i + 1, webhooks);
    }
    sizes.webhooks = webhooks;
    if (records > 0) {
      const plans = system.get(TOKENS.DnsPlans);
      const zone = 'domivka-demo.com.ua';
      const changes = Array.from({ length: records }, (_, i) => ({
        action: 'create' as const,
        name: `host-${String(i).padStart(5, '0')}`,
        type: 'A',
        ttl: 300,
        values: [`198.51.100.${i % 250}`],
      }));
      const dnsEditor = await keyOf({ environment: 'test', name: 'scale: dns', rights: ['dns.edit'], domains: [zone] });
      for (let i = 0; i < changes.length; i += 200) {
        const plan = await plans.create(dnsEditor.key, zone, { changes: changes.slice(i, i + 200) });
        await plans.apply(dnsEditor.key, zone, plan.id, {});
      }
      sizes.records_in_demo_zone += records;
    }
  }
  // Number the whole log as the worker would, so the event list reads published events.
  const publish = system.get(TOKENS.PublishEvents);
  for (;;) {
    const r = await publish.run(500);
    sizes.events += r.published;
    if (r.taken === 0) break;
  }
  const builtMs = Date.now() - started;

  const { app } = system.http();
  const api = createServer(app.callback());
  const port = await listen(api);
  system.markStarted();

  let monitorSerial = 0;
  const control = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    void (async () => {
      if (req.method === 'GET' && url.pathname === '/cpu') {
        const u = process.cpuUsage();
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ us: u.user + u.system }));
        return;
      }
      if (req.method === 'POST' && url.pathname === '/publish') {
        const n = Number(url.searchParams.get('n') ?? '100');
        const create = system.get(TOKENS.CreateMonitor);
        const blog = 'domivka-blog.kyiv.ua';
        for (let i = 0; i < n; i++) {
          monitorSerial += 1;
          await create.execute(editor.key, { kind: 'domain_expiry', domain: blog, min_days_valid: (monitorSerial % 300) + 1 } as never);
        }
        const t0 = process.hrtime.bigint();
        const cpu0 = process.cpuUsage();
        let published = 0;
        for (;;) {
          const r = await publish.run(500);
          published += r.published;
          if (r.taken === 0) break;
        }
        const ms = Number(process.hrtime.bigint() - t0) / 1e6;
        const cpu = process.cpuUsage(cpu0);
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ published, ms, cpuUs: cpu.user + cpu.system }));
        return;
      }
      res.writeHead(404).end();
    })().catch((err: Error) => res.writeHead(500).end(err.stack));
  });
  const controlPort = await listen(control);
  servers.push(api, control);
  process.stdout.write(
    `${JSON.stringify({
      port,
      controlPort,
      keys: { reader: reader.secret, rare: rare.secret, editor: editor.secret, renew: labels.secret, dns: applier.secret },
      sizes,
      builtMs,
      engine: pgUrl ? 'postgres' : 'sqlite',
    })}\n`,
  );
};

main().catch((err) => {
  process.stderr.write(`scale-server: ${(err as Error).stack}\n`);
  process.exit(1);
});
