import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pino from 'pino';
import type { EventType } from '../core/kernel/events.js';
import { loadConfig } from '../src/config.js';
import { System } from '../src/system.js';
import { TOKENS } from '../src/tokens.js';
import { WebhookDispatcher } from '../src/webhook-dispatcher.js';

/**
 * `npm run bench:webhooks`: 10 000 events fanned out to a local receiver.
 *
 * The receiver runs in its own process (this file with `--receiver`): it answers 204 and reports each
 * arrival (webhook-id, wall-clock ms) on stdout. First its own ceiling is measured with autocannon
 * (POSTs of the same size, same run). Then the system — a fresh SQLite store (or BENCH_DATABASE_URL), the
 * worker's WebhookDispatcher in this process — gets 10 endpoints on that receiver, one per event type,
 * and a producer commits 10 000 events (BENCH_EVENTS) through store.events.append in transactions of
 * 20, at BENCH_RATE events/s. Reported: total time from the first commit to the last arrival, and the
 * latency from each event's commit to its first attempt reaching the receiver (p50/p99/max), beside
 * the receiver's ceiling. Targets: total ≤ 20 s, p99 ≤ 500 ms. A report: exits 0 either way.
 */
const TARGET_TOTAL_S = 20;
const TARGET_P99_MS = 500;
const num = (name: string, fallback: number): number => (process.env[name] ? Number(process.env[name]) : fallback);
const EVENTS = num('BENCH_EVENTS', 10_000);
const RATE = num('BENCH_RATE', 1000);

if (process.argv.includes('--receiver')) {
  const server = createServer((req, res) => {
    const id = req.headers['webhook-id'] as string | undefined;
    req.resume();
    req.on('end', () => {
      if (id) process.stdout.write(`${id}\t${Date.now()}\n`);
      res.writeHead(204);
      res.end();
    });
  });
  server.keepAliveTimeout = 65_000;
  server.listen(0, '127.0.0.1', () => process.stdout.write(`PORT ${(server.address() as { port: number }).port}\n`));
} else {
  await main();
}

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function main(): Promise<void> {
  const self = fileURLToPath(import.meta.url);
  const rx = spawn(process.execPath, ['--import', 'tsx', self, '--receiver'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const arrivals = new Map<string, number>();
  let duplicates = 0;
  const port = await new Promise<number>((resolve) => {
    createInterface({ input: rx.stdout! }).on('line', (line) => {
      if (line.startsWith('PORT ')) return resolve(Number(line.slice(5)));
      const [id, t] = line.split('\t');
      if (arrivals.has(id!)) duplicates++;
      else arrivals.set(id!, Number(t));
    });
  });
  const target = `http://127.0.0.1:${port}`;
  const sample = JSON.stringify({
    id: randomUUID(),
    type: 'domain.renewed',
    created_at: new Date().toISOString(),
    environment: 'test',
    domain: 'domivka-demo.dev',
    data: { domain: 'domivka-demo.dev', years: 1 },
  });

  console.log(
    `bench:webhooks — ${cpus().length} cores, load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  const ceiling = await autocannon({
    url: `${target}/ceiling`,
    method: 'POST',
    body: sample,
    headers: { 'content-type': 'application/json' },
    connections: 16,
    duration: 5,
  });
  console.log(
    `receiver ceiling (autocannon, 16 connections, 5 s): ${Math.round(ceiling.requests.average)} req/s, p99 ${ceiling.latency.p99} ms`,
  );

  const dir = mkdtempSync(join(tmpdir(), 'bench-webhooks-'));
  const config = loadConfig({
    DATABASE_URL: process.env.BENCH_DATABASE_URL || join(dir, 'bench.sqlite'),
    VAR_DIR: dir,
    LOG_LEVEL: 'silent',
    KEY_PEPPER: 'a1'.repeat(32),
    DATA_KEY: 'b2'.repeat(32),
    WEBHOOKS_ALLOW_LOOPBACK: '1',
    ARGON2_MEMORY_KIB: '1024',
    ARGON2_TIME_COST: '1',
  });
  const system = new System(config, { logger: pino({ level: 'silent' }) });
  await system.migrate();
  await system.get(TOKENS.SeedDemo).execute();
  const s = system.store;
  const accountId = (await s.knex('accounts').first('id')).id as string;
  const types: EventType[] = [
    'domain.renewed',
    'domain.registered',
    'domain.auto_renew_changed',
    'domain.status_changed',
    'dns.plan_applied',
    'dns.acme_challenge_added',
    'dns.acme_challenge_removed',
    'domain.released',
    'domain.auto_renew_failed',
    'domain.created',
  ];
  const box = system.get(TOKENS.SecretBox);
  const now = new Date();
  for (const [i, t] of types.entries()) {
    await s.webhooks.insert({
      id: `wh_bench_${i}`,
      accountId,
      environment: 'test',
      url: `${target}/hook/${i}`,
      description: null,
      events: [t],
      domains: null,
      enabled: true,
      disabledReason: null,
      secretSealed: box.seal(`whsec_${Buffer.alloc(24, i + 1).toString('base64')}`),
      oldSecretSealed: null,
      oldSecretExpiresAt: null,
      failingSince: null,
      createdBy: 'bench',
      createdAt: now,
      updatedAt: now,
    });
  }
  const w = config.webhooks;
  const dispatcher = new WebhookDispatcher(
    system.get(TOKENS.PublishEvents),
    system.get(TOKENS.DeliverWebhooks),
    { pollMs: w.pollMs, concurrency: w.concurrency, leaseMs: w.leaseMs, timeoutMs: w.timeoutMs, perEndpoint: w.perEndpoint },
    pino({ level: 'silent' }),
  );
  dispatcher.start();

  const committed = new Map<string, number>();
  const batch = 20;
  const started = Date.now();
  for (let n = 0; n < EVENTS; n += batch) {
    const due = started + (n / RATE) * 1000;
    const wait = due - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const ids: string[] = [];
    await s.uow.transaction(async () => {
      for (let j = n; j < Math.min(EVENTS, n + batch); j++) {
        const id = randomUUID();
        ids.push(id);
        await s.events.append({
          id,
          accountId,
          environment: 'test',
          type: types[j % types.length]!,
          subject: 'domain:domivka-demo.dev',
          actor: 'bench',
          occurredAt: new Date(),
          data: { domain: 'domivka-demo.dev', n: j },
        });
      }
    });
    const t = Date.now();
    for (const id of ids) committed.set(id, t);
  }
  const producedIn = Date.now() - started;
  const deadline = Date.now() + 120_000;
  while (arrivals.size < EVENTS && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  const last = Math.max(...arrivals.values());
  await dispatcher.stop();
  const lat = [...committed.entries()]
    .filter(([id]) => arrivals.has(id))
    .map(([id, t]) => arrivals.get(id)! - t)
    .sort((a, b) => a - b);
  const totalS = (last - started) / 1000;
  const p99 = pct(lat, 99);
  const deliveredPerS = arrivals.size / totalS;
  console.log(
    `events: ${EVENTS} committed in ${(producedIn / 1000).toFixed(1)} s (target rate ${RATE}/s, transactions of ${batch}), 10 endpoints, store ${s.engine}`,
  );
  console.log(`delivered: ${arrivals.size}/${EVENTS} first attempts, ${duplicates} duplicates`);
  console.log(
    `total (first commit → last arrival): ${totalS.toFixed(2)} s  [target ≤ ${TARGET_TOTAL_S} s] ${totalS <= TARGET_TOTAL_S ? 'MET' : 'MISSED'}`,
  );
  console.log(
    `commit → first attempt: p50 ${pct(lat, 50)} ms, p99 ${p99} ms, max ${lat[lat.length - 1]} ms  [target p99 ≤ ${TARGET_P99_MS} ms] ${p99 <= TARGET_P99_MS ? 'MET' : 'MISSED'}`,
  );
  console.log(
    `delivery rate ${Math.round(deliveredPerS)}/s vs receiver ceiling ${Math.round(ceiling.requests.average)} req/s (ratio ${(deliveredPerS / ceiling.requests.average).toFixed(3)}; the producer paces at ${RATE}/s)`,
  );
  const sendMs = (await s.knex('webhook_attempts').select('latency_ms'))
    .map((r: { latency_ms: number }) => Number(r.latency_ms))
    .sort((a, b) => a - b);
  console.log(`send round trip as the worker saw it (connect + request + answer): p50 ${pct(sendMs, 50)} ms, p99 ${pct(sendMs, 99)} ms`);
  rx.kill();
  await system.close();
  rmSync(dir, { recursive: true, force: true });
  process.exit(0);
}
