import cluster from 'node:cluster';
import { createInterface } from 'node:readline';
import { AesGcmSecretBox } from '../adapters/crypto/node/index.js';
import { EmbeddedNameserver, type NameserverLogger } from '../adapters/dns/embedded/index.js';
import { SignPool } from '../adapters/dns/embedded/sign-pool.js';
import type { ZoneSigning } from '../core/dns/zone/zone-signing.js';
import type { Zone } from '../core/dns/zone/zone.js';
import { benchZone } from './zone-gen.js';
import { onShutdown } from '../src/main/process.js';

/**
 * Our nameserver for bench:dns (bench/dns.bench.ts), in its own process so that neither dnsperf nor the
 * harness shares its event loop. Serves `benchZone(BENCH_DNS_DOMAIN, BENCH_DNS_RECORDS)` on
 * 127.0.0.1:BENCH_DNS_PORT, UDP and TCP, AXFR allowed from 127.0.0.1.
 *
 *   single:  one process; NOTIFYs BENCH_DNS_SECONDARY_PORT (Knot) after each publish when set.
 *            Prints {"port", "pids", "records"} once listening, then takes one JSON command per stdin line:
 *            {"cmd":"publish","serial":S,"name":N,"ip":IP} → publishes the zone at serial S with `N A IP`
 *            added and answers {"published":S,"ms":<publish time>} once our server serves it.
 *   cluster: node:cluster with BENCH_DNS_WORKERS workers, each binding its own UDP socket on the port
 *            with SO_REUSEPORT (as src/main/dns-worker.ts) and sharing the TCP listener the primary binds.
 *            Prints {"port", "pids"} (workers first, then the primary). No secondaries.
 *
 * Signed (DNSSEC) when BENCH_DNS_SIGNING is set: the zone's `ZoneSigning` as JSON (keys with their private
 * key sealed by the secret box, the signature window; the harness makes it with core/dnssec/new-key.ts), and
 * BENCH_DNS_DATA_KEY the 32-octet data key, hex, of that secret box (AesGcmSecretBox). Each process is then
 * a signer as `npm start` with one process is (src/dns-server.ts): it opens the sealed key with the box and
 * signs at compile time on a SignPool — the compiled zone carries DNSKEY, RRSIGs and the NSEC chain, and
 * nothing is signed per query. Every publish (stdin command) is signed too. In a cluster each worker signs
 * for itself with the same key and window (production has one signer storing the signatures the workers
 * serve; the serving path is the same): algorithm 13's signatures are randomized, so two workers' RRSIGs
 * differ in their signature octets only.
 *
 * Stops on SIGTERM/SIGINT. Warnings and errors of the nameserver go to stderr; nothing is logged per query.
 */
const env = (name: string, fallback?: string): string => {
  const v = process.env[name] ?? fallback;
  if (v === undefined) throw new Error(`${name} is required`);
  return v;
};

const domain = env('BENCH_DNS_DOMAIN', 'bench.test');
const records = Number(env('BENCH_DNS_RECORDS', '1000'));
const port = Number(env('BENCH_DNS_PORT'));
const udpBatch = process.env.BENCH_DNS_UDP_BATCH !== '0';
const secondaryPort = process.env.BENCH_DNS_SECONDARY_PORT ? Number(process.env.BENCH_DNS_SECONDARY_PORT) : null;
const signing = process.env.BENCH_DNS_SIGNING ? (JSON.parse(process.env.BENCH_DNS_SIGNING) as ZoneSigning) : null;
const box = signing ? new AesGcmSecretBox(Buffer.from(env('BENCH_DNS_DATA_KEY'), 'hex')) : null;
const signPool = signing ? new SignPool() : null;

/** The bench zone (signed when BENCH_DNS_SIGNING is set). */
const zoneAt = (...args: Parameters<typeof benchZone>): Zone => {
  const zone = benchZone(...args);
  return signing ? { ...zone, signing } : zone;
};

const logger: NameserverLogger = {
  debug() {},
  info() {},
  warn: (obj, msg) => process.stderr.write(`dns-server[${process.pid}] warn: ${msg} ${JSON.stringify(obj)}\n`),
  error: (obj, msg) =>
    process.stderr.write(`dns-server[${process.pid}] error: ${msg} ${JSON.stringify(obj, (k, v) => (v instanceof Error ? v.stack : v))}\n`),
};

const startNameserver = async (secondaries: Array<{ host: string; port: number }>): Promise<EmbeddedNameserver> => {
  const ns = new EmbeddedNameserver({
    host: '127.0.0.1',
    port,
    axfrAllow: ['127.0.0.1'],
    secondaries,
    logger,
    reusePort: cluster.isWorker,
    udpBatch,
    ...(box && signPool ? { openKey: (sealed: string) => box.open(sealed), bulkSigner: signPool.sign } : {}),
  });
  await ns.publish(zoneAt(domain, records));
  await ns.start();
  if (udpBatch && ns.udpMode() === 'dgram')
    throw new Error('bench:dns: our server fell back to dgram (run npm run build:native, or set BENCH_DNS_UDP_BATCH=0)');
  return ns;
};

const single = async (): Promise<void> => {
  const ns = await startNameserver(secondaryPort ? [{ host: '127.0.0.1', port: secondaryPort }] : []);
  onShutdown(async () => {
    await ns.stop();
    await signPool?.close();
  });
  const zone = zoneAt(domain, records);
  process.stdout.write(`${JSON.stringify({ port: ns.address().port, pids: [process.pid], records: zone.recordSets.length })}\n`);
  const lines = createInterface({ input: process.stdin });
  lines.on('line', (line) => {
    void (async () => {
      const cmd = JSON.parse(line) as { cmd: string; serial: number; name: string; ip: string };
      if (cmd.cmd !== 'publish') throw new Error(`unknown command ${line}`);
      const t0 = performance.now();
      await ns.publish(zoneAt(domain, records, cmd.serial, [{ name: cmd.name, type: 'A', ttl: 60, values: [cmd.ip] }]));
      process.stdout.write(`${JSON.stringify({ published: cmd.serial, ms: performance.now() - t0 })}\n`);
    })().catch((err: unknown) => {
      process.stderr.write(`dns-server: command failed: ${(err as Error).stack}\n`);
      process.exit(1);
    });
  });
  // The harness going away (stdin closed) does not stop us; SIGTERM does.
};

const clustered = async (): Promise<void> => {
  const workers = Number(env('BENCH_DNS_WORKERS', '2'));
  if (cluster.isPrimary) {
    cluster.schedulingPolicy = cluster.SCHED_NONE; // as adapters/dns/cluster.ts: workers accept TCP themselves
    const pids: number[] = [];
    let stopping = false;
    const forked = Array.from({ length: workers }, () => cluster.fork());
    for (const w of forked) {
      w.once('exit', (code, signal) => {
        if (stopping) return;
        process.stderr.write(`dns-server cluster: worker ${w.process.pid} exited (code ${code}, signal ${signal})\n`);
        process.exit(1);
      });
    }
    await Promise.all(
      forked.map(
        (w) => new Promise<void>((ok) => w.once('message', (m: { ready?: number }) => (m.ready ? (pids.push(m.ready), ok()) : undefined))),
      ),
    );
    onShutdown(async () => {
      stopping = true;
      await Promise.all(
        forked.map((w) => new Promise<void>((ok) => (w.isDead() ? ok() : (w.once('exit', () => ok()), w.process.kill('SIGTERM'))))),
      );
    });
    process.stdout.write(`${JSON.stringify({ port, pids: [...pids, process.pid] })}\n`);
    return;
  }
  const ns = await startNameserver([]);
  onShutdown(async () => {
    await ns.stop();
    await signPool?.close();
  });
  process.send!({ ready: process.pid });
};

const mode = process.argv[2];
const run = mode === 'single' ? single : mode === 'cluster' ? clustered : null;
if (!run) {
  process.stderr.write('usage: dns-server.ts single|cluster\n');
  process.exit(2);
}
run().catch((err) => {
  process.stderr.write(`dns-server ${mode}: ${(err as Error).stack}\n`);
  process.exit(1);
});
