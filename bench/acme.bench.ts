import { randomBytes, randomUUID } from 'node:crypto';
import dgram from 'node:dgram';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent } from 'node:https';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import acme from 'acme-client';
import dnsPacket from 'dns-packet';
import pino from 'pino';
import { EmbeddedNameserver } from '../adapters/dns/embedded/index.js';
import { loadConfig } from '../src/config.js';
import { System } from '../src/system.js';
import { TOKENS } from '../src/tokens.js';
import { ZoneSync } from '../adapters/dns/zone-sync.js';
import { freePort } from '../test/dns/server/tools.js';
import { startPebble, type Pebble } from '../test/support/pebble.js';

/**
 * `npm run bench:acme`: one certificate for `x` + `*.x` from Pebble through our API —
 * POST /v1/certificates, DNS-01 written through our zone machinery and answered by our own DNS server,
 * then GET until issued — against the same order made by bare acme-client with an in-memory TXT
 * responder, in the same run. Two Pebbles (one per DNS server; same flags). Prints each run, the
 * medians and the ratio against the target ≤ 1.5×. A report: exits 0 whether or not the target is met.
 *
 * Env: BENCH_ROUNDS (7), BENCH_POLL_MS (10: how often the client asks GET /v1/certificates/{id}).
 */
const TARGET = 1.5;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const POLL_MS = Number(process.env.BENCH_POLL_MS ?? 10);
const ZONE = 'domivka-demo.com.ua';

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/** The reference's DNS: TXT values from a Map, NOERROR and an empty answer otherwise, no EDNS. */
const memoryResponder = async (port: number) => {
  const txt = new Map<string, Set<string>>();
  const socket = dgram.createSocket('udp4');
  socket.on('message', (msg, rinfo) => {
    let q: dnsPacket.Packet;
    try {
      q = dnsPacket.decode(msg);
    } catch {
      return;
    }
    const question = q.questions?.[0];
    if (!question) return;
    const values = question.type === 'TXT' ? [...(txt.get(question.name.toLowerCase()) ?? [])] : [];
    const reply = dnsPacket.encode({
      id: q.id,
      type: 'response',
      flags: dnsPacket.AUTHORITATIVE_ANSWER,
      questions: [question],
      answers: values.map((v) => ({ name: question.name, type: 'TXT' as const, class: 'IN' as const, ttl: 60, data: v })),
    });
    socket.send(reply, rinfo.port, rinfo.address);
  });
  await new Promise<void>((ok) => socket.bind(port, '127.0.0.1', () => ok()));
  return { txt, close: () => new Promise<void>((ok) => socket.close(() => ok())) };
};

const main = async () => {
  const dir = mkdtempSync(join(tmpdir(), 'domivka-acme-bench-'));
  const ourDns = await freePort();
  const refDns = await freePort([ourDns]);
  const pebbles: Pebble[] = [await startPebble(ourDns), await startPebble(refDns)];
  const [ours, ref] = pebbles as [Pebble, Pebble];

  // Ours: the whole system in this process, its DNS server fed as under npm start; the test
  // environment's CA is ACME against the first Pebble (SANDBOX_CA=acme).
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
    SANDBOX_CA: 'acme',
    SANDBOX_ACME_DIRECTORY_URL: ours.directoryUrl,
    SANDBOX_ACME_CA_FILE: ours.listenerCaFile,
    RATE_LIMIT_BURST: '100000',
    RATE_LIMIT_PER_SECOND: '100000',
  });
  const system = new System(config, { logger: pino({ level: 'silent' }) });
  await system.migrate();
  const demo = (await system.get(TOKENS.SeedDemo).execute())!;
  const key = await system
    .get(TOKENS.IssueKey)
    .issue(
      { personId: demo.personId, accountId: demo.accountId, role: 'owner' },
      { environment: 'test', name: 'acme bench', rights: ['cert.issue'], domains: [ZONE] },
    );
  const dns = new EmbeddedNameserver({ host: '127.0.0.1', port: ourDns, axfrAllow: [], secondaries: [] });
  await dns.start();
  system.get(TOKENS.ZonePublisher).attach(dns);
  await new ZoneSync(system.store.zones, dns, pino({ level: 'silent' })).load();
  const server: Server = await new Promise((ok) => {
    const s = system.http().app.listen(0, '127.0.0.1', () => ok(s));
  });
  system.markStarted();
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const auth = { authorization: `Bearer ${key.secret}` };

  const viaApi = async (label: string): Promise<number> => {
    const t0 = performance.now();
    const res = await fetch(`${base}/v1/certificates`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
      body: JSON.stringify({ domains: [`${label}.${ZONE}`, `*.${label}.${ZONE}`] }),
    });
    const body = (await res.json()) as { id: string; status: string };
    if (res.status !== 202) throw new Error(`POST /v1/certificates answered ${res.status}: ${JSON.stringify(body)}`);
    for (;;) {
      const c = (await (await fetch(`${base}/v1/certificates/${body.id}`, { headers: auth })).json()) as {
        status: string;
        failure: unknown;
      };
      if (c.status === 'issued') return performance.now() - t0;
      if (c.status !== 'pending') throw new Error(`certificate ${body.id} ended ${c.status}: ${JSON.stringify(c.failure)}`);
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  };

  // The reference: acme-client alone, one account, TXT values in memory.
  const responder = await memoryResponder(refDns);
  acme.axios.defaults.httpsAgent = new Agent({ ca: [ours.listenerCaPem, ref.listenerCaPem] });
  const client = new acme.Client({
    directoryUrl: ref.directoryUrl,
    accountKey: await acme.crypto.createPrivateEcdsaKey(),
    backoffAttempts: 10,
    backoffMin: 50,
    backoffMax: 1000,
  });
  await client.createAccount({ termsOfServiceAgreed: true });
  const bare = async (label: string): Promise<number> => {
    const names = [`${label}.bench.example`, `*.${label}.bench.example`];
    const [, csr] = await acme.crypto.createCsr({ commonName: names[0]!, altNames: names }, await acme.crypto.createPrivateEcdsaKey());
    const t0 = performance.now();
    await client.auto({
      csr,
      challengePriority: ['dns-01'],
      termsOfServiceAgreed: true,
      skipChallengeVerification: true,
      challengeCreateFn: async (authz, _c, value) => {
        const name = `_acme-challenge.${authz.identifier.value}`;
        if (!responder.txt.has(name)) responder.txt.set(name, new Set());
        responder.txt.get(name)!.add(value);
      },
      challengeRemoveFn: async (authz, _c, value) => {
        responder.txt.get(`_acme-challenge.${authz.identifier.value}`)?.delete(value);
      },
    });
    return performance.now() - t0;
  };

  console.log(
    `bench:acme — x + *.x from Pebble, ${ROUNDS} rounds each (after one warm-up each), poll ${POLL_MS} ms; load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  await viaApi('warm');
  await bare('warm');
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    // Alternate so drift in machine load hits both alike.
    a.push(await viaApi(`r${i}`));
    b.push(await bare(`r${i}`));
    console.log(`  round ${i + 1}: through our API ${a[i]!.toFixed(0)} ms, bare acme-client ${b[i]!.toFixed(0)} ms`);
  }
  const ratio = median(a) / median(b);
  console.log(`median: ours ${median(a).toFixed(0)} ms, bare acme-client ${median(b).toFixed(0)} ms`);
  console.log(`ratio ours/bare ${ratio.toFixed(2)}× (target ≤ ${TARGET}×): ${ratio <= TARGET ? 'PASS' : 'FAIL'}`);

  server.closeAllConnections();
  await new Promise<void>((ok) => server.close(() => ok()));
  await dns.stop();
  await responder.close();
  await system.close();
  for (const p of pebbles) await p.stop();
  rmSync(dir, { recursive: true, force: true });
};

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
