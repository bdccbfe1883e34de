import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import dgram from 'node:dgram';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface, type Interface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import dnsPacket from 'dns-packet';
import { AesGcmSecretBox, NodeDnssecCrypto, NodeRandom } from '../adapters/crypto/node/index.js';
import type { ZoneSigning } from '../core/dns/zone/zone-signing.js';
import type { DnssecAlgorithm } from '../core/dnssec/dnskey.js';
import { zoneSigningOf } from '../core/dnssec/dnssec-state.js';
import { newCsk } from '../core/dnssec/new-key.js';
import { BENCH_SERIAL, benchZone } from './zone-gen.js';
import { freePort, knotSecondaryConf } from '../test/dns/server/tools.js';
import { prng as rng } from '../test/support/prng.js';

/**
 * `npm run bench:dns`: our authoritative server against Knot, serving the same zone, measured by dnsperf
 * in the same run ("Benchmarks").
 *
 * - The zone: bench/zone-gen.ts, BENCH_DNS_RECORDS record sets (default 1000: A, AAAA, TXT, MX, CNAME,
 *   20 % each) plus the apex SOA and NS, under `bench.test`.
 * - Ours: EmbeddedNameserver in a child process (bench/dns-server.ts single), 127.0.0.1, its own port.
 * - Knot: knotd as a *secondary of ours* (config as in adapters/dns/embedded/README.md): it bootstraps the
 *   zone by AXFR from our child and takes NOTIFY from it, on another port. Knot's own UDP worker count is
 *   its default (one per CPU) unless BENCH_KNOT_UDP_WORKERS says otherwise; nothing else is tuned.
 * - With BENCH_DNS_WORKERS ≥ 2 (default: npm start's default DNS_WORKERS, one per core, at most 4; 0 skips
 *   it) ours again as a node:cluster of workers, each with its own SO_REUSEPORT UDP socket on the port as
 *   src/main/dns-worker.ts binds it (bench/dns-server.ts cluster), reported as a third server.
 * - Ours reads UDP in batches (adapters/dns/embedded/udp-batch.ts, the recvmmsg/sendmmsg addon) as in
 *   production; BENCH_DNS_UDP_BATCH=0 measures dgram's per-datagram path instead.
 * - Queries: every (name, type) of the zone once, plus ~10 % names that do not exist (NXDOMAIN), shuffled
 *   with a fixed seed; dnsperf loops over the file (no EDNS, RD set: dnsperf's defaults). Before and after
 *   the load, each of our servers and Knot are asked a sample of the queries with dns-packet and must
 *   agree (rcode, AA and answer data).
 * - BENCH_ROUNDS rounds (5): in each, every server gets a warm-up dnsperf run and then
 *   `dnsperf -s 127.0.0.1 -p PORT -d queries.txt -l SECONDS -c 4` — the same file and flags for all — in an
 *   order turned by one each round, so load from elsewhere on the machine falls on all of them alike. The
 *   ratio is taken within a round (ours / Knot of the same round); the verdict is on the median ratio,
 *   and every round's ratio is printed. QPS and average latency from dnsperf's report; the CPU of dnsperf
 *   and of the server (a cluster: all its processes, and its primary alone) from /proc/<pid>/stat
 *   (utime + stime deltas over the steady part of the run), plus the whole machine's busy share from
 *   /proc/stat, its irq + softirq part (the loopback UDP path, charged to no process), and "other" =
 *   machine − softirq − server − dnsperf (other processes: load from elsewhere). 100 % = one core. CPU per
 *   query: µs of the server's CPU (all its processes) per answered query, its CPU share over dnsperf's QPS.
 * - Apply → Knot serves: our child publishes the zone with a new A record and a new serial; Knot hears
 *   NOTIFY, asks IXFR, gets the zone; we poll Knot with a UDP query (dns-packet over dgram) until it
 *   answers the record. Median of BENCH_KNOT_RUNS (5) runs, from the command to our child.
 * - Then the signed round (BENCH_DNS_SIGNED=0 skips it): the pair above is stopped and a new one started,
 *   ours serving the same zone signed — a CSK of BENCH_DNSSEC_ALGORITHM (13, ECDSA P-256; 15, Ed25519) made
 *   as the product makes one (core/dnssec/new-key.ts: its private key sealed by an AES-GCM secret box with a
 *   fresh data key; zoneSigningOf gives the signature window), our child opening it with that box and
 *   signing at compile time (DNSKEY, RRSIGs, NSEC chain) — and a new knotd as its plain secondary (no
 *   signing of its own), serving the signed zone it transferred by AXFR unchanged. Before and after the
 *   load the sample is asked with EDNS and DO set and both must agree on rcode, AA, answer, authority
 *   (NSEC proofs) and additional sections (MX targets' addresses, RFC 4035 §3.1.1: with their RRSIGs),
 *   RRSIGs octet for octet (a cluster, whose workers each sign, with algorithm 13's
 *   randomized signatures: every RRSIG field but the signature). The same rounds as above, the same
 *   queries.txt, dnsperf with -D (EDNS, DO set) for every server; ratios to the signed knotd of the same
 *   round, target: the default workers ≥ 0.8 (the one process is reported against 0.8 too).
 *
 * A report: exits 0 whether or not the targets (one process ≥ 0.6 of Knot's QPS; the default workers ≥ 0.8,
 * unsigned and signed) are met; non-zero only when a server crashed, a tool is missing or failed, the
 * servers disagreed, or Knot never caught up.
 *
 * Env: BENCH_SECONDS (5), BENCH_WARMUP_SECONDS (1), BENCH_ROUNDS (5), BENCH_DNS_CLIENTS (4, dnsperf -c),
 *      BENCH_DNS_RECORDS (1000), BENCH_DNS_WORKERS (the default DNS_WORKERS; 0 = no cluster), BENCH_DNS_UDP_BATCH (1), BENCH_KNOT_RUNS (5),
 *      BENCH_KNOT_UDP_WORKERS (Knot's default), BENCH_KNOT_GAP_MS (1000, the pause between two publishes),
 *      BENCH_SERVER_NODE_ARGS (extra node flags for our servers), BENCH_DNS_SIGNED (1; 0 skips the signed round),
 *      BENCH_DNSSEC_ALGORITHM (13, or 15 for Ed25519: the signed round's key),
 *      BENCH_KEEP_DIR (keep the temp dir with queries.txt, knot.conf and knot.log).
 */
const TARGET_RATIO = 0.6;
const GOAL_RATIO = 0.8;
const DOMAIN = 'bench.test';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

const num = (name: string, fallback: number, min = 1): number => {
  const v = process.env[name];
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isFinite(n) || n < min) throw new Error(`${name} must be a number ≥ ${min}, got "${v}"`);
  return n;
};

const seconds = num('BENCH_SECONDS', 5);
const warmupSeconds = num('BENCH_WARMUP_SECONDS', 1, 0);
const clients = Math.round(num('BENCH_DNS_CLIENTS', 4));
const rounds = Math.round(num('BENCH_ROUNDS', 5));
const recordCount = Math.round(num('BENCH_DNS_RECORDS', 1000, 5));
/** `npm start`'s default DNS_WORKERS (src/config.ts): one per core, at most 4; 1 on one core (then no cluster: the single process is the default). */
const defaultWorkers = availableParallelism() >= 2 ? Math.min(availableParallelism(), 4) : 1;
const clusterWorkers = Math.round(num('BENCH_DNS_WORKERS', defaultWorkers >= 2 ? defaultWorkers : 0, 0));
const knotRuns = Math.round(num('BENCH_KNOT_RUNS', 5));
/** Pause between two publishes: Knot 3.2 holds some refreshes ~0.8 s back when NOTIFYs come faster than about one a second. */
const knotGapMs = Math.round(num('BENCH_KNOT_GAP_MS', 1000, 0));
const knotUdpWorkers = process.env.BENCH_KNOT_UDP_WORKERS ? Math.round(num('BENCH_KNOT_UDP_WORKERS', 1)) : null;
const serverNodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
const signedRound = process.env.BENCH_DNS_SIGNED !== '0';
const dnssecAlgorithm = ((): DnssecAlgorithm => {
  const v = process.env.BENCH_DNSSEC_ALGORITHM || '13';
  if (v !== '13' && v !== '15') throw new Error(`BENCH_DNSSEC_ALGORITHM must be 13 or 15, got "${v}"`);
  return Number(v) as DnssecAlgorithm;
})();

const log = (s: string): void => void process.stderr.write(s);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------------------------------------------
// Processes

interface Proc {
  readonly name: string;
  readonly proc: ChildProcess;
  /** The pids whose CPU is the server's (a cluster: every worker and the primary). */
  pids: number[];
  crashed(): string | null;
  stop(): Promise<void>;
}

const track = (name: string, proc: ChildProcess, stopSignal: NodeJS.Signals = 'SIGTERM'): Proc => {
  let stopping = false;
  let crash: string | null = null;
  const exited = new Promise<void>((done) => proc.once('exit', () => done()));
  proc.once('exit', (code, signal) => {
    if (!stopping) crash = `${name} exited (code ${code}, signal ${signal})`;
  });
  return {
    name,
    proc,
    pids: proc.pid ? [proc.pid] : [],
    crashed: () => crash,
    async stop() {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      stopping = true;
      proc.kill(stopSignal);
      const kill = setTimeout(() => proc.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(kill);
    },
  };
};

interface OurServer extends Proc {
  readonly lines: Interface;
  readonly info: { port: number; pids: number[]; records?: number };
}

/** `node --import tsx bench/dns-server.ts MODE`, resolved with the JSON line it prints once listening. */
const startOurs = (mode: 'single' | 'cluster', env: Record<string, string>): Promise<OurServer> =>
  new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [...serverNodeArgs, '--import', 'tsx', join(root, 'bench', 'dns-server.ts'), mode], {
      cwd: root,
      env: { ...process.env, BENCH_DNS_DOMAIN: DOMAIN, BENCH_DNS_RECORDS: String(recordCount), ...env },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const p = track(`our server (${mode})`, proc);
    proc.once('exit', (code, signal) => reject(new Error(`our ${mode} server exited before listening (code ${code}, signal ${signal})`)));
    proc.once('error', reject);
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`our ${mode} server did not report within 60 s`));
    }, 60_000);
    const lines = createInterface({ input: proc.stdout! });
    lines.once('line', (line) => {
      clearTimeout(timer);
      let info: OurServer['info'];
      try {
        info = JSON.parse(line) as OurServer['info'];
      } catch {
        reject(new Error(`our ${mode} server printed "${line}" instead of its JSON line`));
        return;
      }
      p.pids = info.pids;
      resolve(Object.assign(p, { lines, info }));
    });
  });

const have = (tool: string): boolean => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;

// ---------------------------------------------------------------------------------------------------
// DNS over dgram (no kdig per poll)

interface Answer {
  readonly rcode: string;
  readonly aa: boolean;
  /** The answer section, one line per record, sorted; an RRSIG ends with ` sig=<its signature, hex>`. */
  readonly answers: string[];
  /** The authority section, the same way (compared only with DO set: the NSEC proofs and their RRSIGs). */
  readonly authority: string[];
  /** The additional section but the OPT record, the same way (compared only with DO set: MX targets' addresses and their RRSIGs). */
  readonly additional: string[];
}

/** A record as a line: owner, type and data (RRSIG: its fields, then the signature in hex). */
const recordLine = (a: dnsPacket.Answer): string => {
  if (a.type === 'RRSIG') {
    const d = a.data;
    return (
      `${a.name.toLowerCase()} RRSIG ${d.typeCovered} ${d.algorithm} ${d.labels} ${d.originalTTL} ${d.expiration} ${d.inception} ` +
      `${d.keyTag} ${d.signersName.toLowerCase()} sig=${d.signature.toString('hex')}`
    );
  }
  return `${a.name.toLowerCase()} ${a.type} ${JSON.stringify((a as { data?: unknown }).data, (_k, v) => (v?.type === 'Buffer' ? Buffer.from(v.data).toString() : v))}`;
};

/** One UDP socket for many queries; each query waits for its id up to `timeoutMs`. */
class UdpAsker {
  private readonly sock = dgram.createSocket('udp4');
  private readonly waiting = new Map<number, (a: Answer | null) => void>();
  private nextId = 1;
  private readonly ready: Promise<void>;

  constructor() {
    this.sock.on('message', (msg) => {
      let p: dnsPacket.Packet;
      try {
        p = dnsPacket.decode(msg);
      } catch {
        return;
      }
      const done = this.waiting.get(p.id ?? -1);
      if (!done) return;
      this.waiting.delete(p.id!);
      done({
        rcode: (p as { rcode?: string }).rcode ?? 'NOERROR',
        aa: ((p.flags ?? 0) & dnsPacket.AUTHORITATIVE_ANSWER) !== 0,
        answers: (p.answers ?? []).map(recordLine).sort(),
        authority: (p.authorities ?? []).map(recordLine).sort(),
        additional: (p.additionals ?? [])
          .filter((a) => a.type !== 'OPT')
          .map(recordLine)
          .sort(),
      });
    });
    this.ready = new Promise((ok) => this.sock.bind(0, '127.0.0.1', () => ok()));
  }

  /** `dnssecOk`: with EDNS (payload 1232, as dnsperf's replies are limited to by both servers) and DO set. */
  async ask(port: number, name: string, type: string, timeoutMs = 200, dnssecOk = false): Promise<Answer | null> {
    await this.ready;
    const id = this.nextId;
    this.nextId = (this.nextId % 65535) + 1;
    const packet = dnsPacket.encode({
      type: 'query',
      id,
      flags: 0,
      questions: [{ type: type as dnsPacket.RecordType, name, class: 'IN' }],
      ...(dnssecOk
        ? {
            additionals: [
              {
                type: 'OPT',
                name: '.',
                udpPayloadSize: 1232,
                extendedRcode: 0,
                ednsVersion: 0,
                flags: dnsPacket.DNSSEC_OK,
                flag_do: true,
                options: [],
              },
            ],
          }
        : {}),
    });
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        resolve(null);
      }, timeoutMs);
      this.waiting.set(id, (a) => {
        clearTimeout(timer);
        resolve(a);
      });
      this.sock.send(packet, port, '127.0.0.1');
    });
  }

  async soaSerial(port: number, zone: string): Promise<number | null> {
    const a = await this.ask(port, zone, 'SOA');
    const m = a?.answers.find((s) => s.includes(' SOA '));
    if (!m) return null;
    const serial = /"serial":(\d+)/.exec(m);
    return serial ? Number(serial[1]) : null;
  }

  close(): void {
    this.sock.close();
  }
}

// ---------------------------------------------------------------------------------------------------
// CPU from /proc

const CLK_TCK = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

/** utime + stime of a process, in seconds (all its threads); null when it is gone. */
const cpuSeconds = (pid: number): number | null => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 2 (comm) is in parentheses and may hold spaces: count fields after the last ')'.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // rest[0] is field 3 (state); utime is field 14, stime field 15.
    return (Number(rest[11]) + Number(rest[12])) / CLK_TCK;
  } catch {
    return null;
  }
};

/** The machine's busy, interrupt (irq + softirq: much of the loopback UDP path) and total jiffies (all CPUs) from /proc/stat. */
const machineJiffies = (): { busy: number; irq: number; total: number } => {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
  const v = line.trim().split(/\s+/).slice(1).map(Number);
  const total = v.reduce((a, b) => a + b, 0);
  const idle = (v[3] ?? 0) + (v[4] ?? 0);
  return { busy: total - idle, irq: (v[5] ?? 0) + (v[6] ?? 0), total };
};

interface CpuSample {
  readonly at: number;
  readonly dnsperf: number | null;
  readonly server: number | null;
  readonly primary: number | null;
  readonly machine: { busy: number; irq: number; total: number };
}

const sampleCpu = (dnsperfPid: number, serverPids: readonly number[], primaryPid: number | null): CpuSample => {
  let server: number | null = 0;
  for (const pid of serverPids) {
    const s = cpuSeconds(pid);
    server = s === null || server === null ? null : server + s;
  }
  return {
    at: performance.now(),
    dnsperf: cpuSeconds(dnsperfPid),
    server,
    primary: primaryPid === null ? null : cpuSeconds(primaryPid),
    machine: machineJiffies(),
  };
};

// ---------------------------------------------------------------------------------------------------
// dnsperf

interface Perf {
  readonly qps: number;
  readonly avgLatencyMs: number;
  readonly sent: number;
  readonly completed: number;
  readonly lost: number;
  readonly rcodes: string;
  /** Average response size, octets (dnsperf's "Average packet size"): DO-set answers carry the RRSIGs and NSECs. */
  readonly responseBytes: number | null;
  readonly raw: string;
}

interface Measured {
  readonly key: ContenderKey;
  readonly name: string;
  readonly round: number;
  readonly perf: Perf;
  /** % of one core over the sampled window. */
  readonly dnsperfCpu: number | null;
  /** Every process of the server together (a cluster: workers and primary). */
  readonly serverCpu: number | null;
  /** A cluster's primary alone (it binds the sockets and hands them over; it should not be in the packet path). */
  readonly primaryCpu: number | null;
  /** The whole machine's busy time, % of one core (all cores: cores × 100 %). */
  readonly machineBusy: number | null;
  /** Of which irq + softirq, charged to no process. */
  readonly machineIrq: number | null;
}

const parsePerf = (raw: string): Perf => {
  const get = (re: RegExp): string => {
    const m = re.exec(raw);
    if (!m) throw new Error(`dnsperf output without ${re}:\n${raw}`);
    return m[1]!;
  };
  return {
    qps: Number(get(/Queries per second:\s+([\d.]+)/)),
    avgLatencyMs: Number(get(/Average Latency \(s\):\s+([\d.]+)/)) * 1000,
    sent: Number(get(/Queries sent:\s+(\d+)/)),
    completed: Number(get(/Queries completed:\s+(\d+)/)),
    lost: Number(get(/Queries lost:\s+(\d+)/)),
    rcodes: (/Response codes:\s+(.*)/.exec(raw)?.[1] ?? '').trim(),
    responseBytes: Number(/Average packet size:.*response (\d+)/.exec(raw)?.[1] ?? NaN) || null,
    raw,
  };
};

/** One dnsperf run against `port`, with CPU sampled over its steady part (from 1 s in to 0.5 s before the end). */
const dnsperf = async (c: Contender, round: number, queries: string, durationS: number): Promise<Measured> => {
  const { key, name, port, pids: serverPids } = c;
  const primaryPid = c.primaryPid ?? null;
  const args = [
    '-s',
    '127.0.0.1',
    '-p',
    String(port),
    '-d',
    queries,
    '-l',
    String(durationS),
    '-c',
    String(clients),
    ...(c.dnsperfArgs ?? []),
  ];
  const proc = spawn('dnsperf', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((ok, fail) => {
    proc.once('exit', (code) => ok(code));
    proc.once('error', fail);
  });
  const from = durationS >= 3 ? 1000 : durationS * 200;
  const to = durationS >= 3 ? durationS * 1000 - 500 : durationS * 800;
  let first: CpuSample | null = null;
  let last: CpuSample | null = null;
  const sampler = (async () => {
    await sleep(from);
    first = sampleCpu(proc.pid!, serverPids, primaryPid);
    await sleep(to - from);
    last = sampleCpu(proc.pid!, serverPids, primaryPid);
  })();
  const code = await exited;
  await sampler;
  if (code !== 0) throw new Error(`dnsperf ${args.join(' ')} exited with ${code}:\n${out}`);
  const perf = parsePerf(out);
  const a = first as CpuSample | null;
  const b = last as CpuSample | null;
  const pct = (x: number | null | undefined, y: number | null | undefined): number | null =>
    a && b && x != null && y != null ? ((y - x) / ((b.at - a.at) / 1000)) * 100 : null;
  return {
    key,
    name,
    round,
    perf,
    dnsperfCpu: pct(a?.dnsperf, b?.dnsperf),
    serverCpu: pct(a?.server, b?.server),
    primaryCpu: pct(a?.primary, b?.primary),
    machineBusy: a && b ? ((b.machine.busy - a.machine.busy) / (b.machine.total - a.machine.total)) * 100 * cpus().length : null,
    machineIrq: a && b ? ((b.machine.irq - a.machine.irq) / (b.machine.total - a.machine.total)) * 100 * cpus().length : null,
  };
};

/** The servers under test: unsigned, and (the signed round) serving the zone signed. */
type ContenderKey = 'ours' | 'knot' | 'cluster' | 'ours-signed' | 'knot-signed' | 'cluster-signed';

/** A server under test: where it listens, which processes are its CPU, and dnsperf's extra flags for it. */
interface Contender {
  readonly key: ContenderKey;
  readonly name: string;
  /** The signed round: `-D` (EDNS with DO set). */
  readonly dnsperfArgs?: readonly string[];
  readonly port: number;
  /** Every process of the server (a cluster: workers and primary). */
  readonly pids: readonly number[];
  /** A cluster's primary, also reported on its own. */
  readonly primaryPid?: number;
}

const measure = async (c: Contender, round: number, queries: string): Promise<Measured> => {
  if (warmupSeconds > 0) {
    log(`    ${c.name}: warm-up ${warmupSeconds} s … `);
    const w = await dnsperf(c, round, queries, warmupSeconds);
    log(`${Math.round(w.perf.qps)} QPS; measuring ${seconds} s … `);
  } else log(`    ${c.name}: measuring ${seconds} s … `);
  const m = await dnsperf(c, round, queries, seconds);
  log(`${Math.round(m.perf.qps)} QPS\n`);
  return m;
};

// ---------------------------------------------------------------------------------------------------
// Queries and Knot

const queryLines = (): Array<[string, string]> => {
  const zone = benchZone(DOMAIN, recordCount);
  const q: Array<[string, string]> = zone.recordSets.map((s) => [s.name, s.type]);
  const nx = Math.round(q.length / 9); // ~10 % of the total
  const types = ['A', 'AAAA', 'TXT', 'MX'];
  for (let i = 0; i < nx; i++) q.push([`nx${i}.${DOMAIN}`, types[i % types.length]!]);
  const r = rng(4);
  for (let i = q.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [q[i], q[j]] = [q[j]!, q[i]!];
  }
  return q;
};

/** Knot's log lines with the time (performance.now()) they reached us, for timelines of slow runs. */
const knotLines: Array<{ at: number; line: string }> = [];

const startKnot = async (dir: string, knotPort: number, primaryPort: number): Promise<{ knot: Proc; logText: () => string }> => {
  const conf = join(dir, 'knot.conf');
  writeFileSync(
    conf,
    knotSecondaryConf({ dir, knotPort, primaryPort, zones: [DOMAIN], ...(knotUdpWorkers ? { udpWorkers: knotUdpWorkers } : {}) }),
  );
  const check = spawnSync('knotc', ['-c', conf, 'conf-check'], { encoding: 'utf8' });
  if (check.status !== 0) throw new Error(`knotc conf-check failed: ${check.stdout}${check.stderr}`);
  const proc = spawn('knotd', ['-c', conf], { stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  const keep = (d: Buffer): void => {
    const at = performance.now();
    for (const line of d.toString().split('\n')) if (line.trim()) knotLines.push({ at, line });
    if (knotLines.length > 10_000) knotLines.splice(0, 5_000);
    text += d.toString();
    if (text.length > 2_000_000) text = text.slice(-1_000_000);
  };
  proc.stdout!.on('data', keep);
  proc.stderr!.on('data', keep);
  proc.once('error', (err) => log(`knotd: ${err.message}\n`));
  return { knot: track('knotd', proc), logText: () => text };
};

const waitFor = async (check: () => Promise<boolean>, timeoutMs: number, everyMs: number): Promise<number | null> => {
  const t0 = performance.now();
  while (performance.now() - t0 < timeoutMs) {
    if (await check()) return performance.now() - t0;
    await sleep(everyMs);
  }
  return null;
};

/**
 * How a sample is asked and compared. `dnssecOk`: with DO set, the authority (NSEC proofs) and additional
 * sections (but OPT) are compared too. `signatures`: 'exact' compares the RRSIGs' signature octets as well (Knot serves the copy it
 * transferred from that very server), 'fields' every RRSIG field but them (a server that signed for itself
 * with algorithm 13, whose signatures are randomized).
 */
interface Comparison {
  readonly dnssecOk: boolean;
  readonly signatures: 'exact' | 'fields';
}

const PLAIN: Comparison = { dnssecOk: false, signatures: 'exact' };

/** The disagreements, and the RRSIGs in each section of the first server's answers (with DO set: the sample is signed). */
interface Agreement {
  readonly bad: string[];
  readonly rrsigs: number;
  readonly authorityRrsigs: number;
  readonly additionalRrsigs: number;
}

/** Asks both servers a sample of the queries. */
const compareServers = async (
  asker: UdpAsker,
  ours: number,
  knot: number,
  sample: Array<[string, string]>,
  how: Comparison = PLAIN,
): Promise<Agreement> => {
  const bad: string[] = [];
  let rrsigs = 0;
  let authorityRrsigs = 0;
  let additionalRrsigs = 0;
  const norm = (lines: readonly string[]): string =>
    (how.signatures === 'exact' ? lines : lines.map((l) => l.replace(/ sig=[0-9a-f]*$/, ''))).join('\n');
  for (const [name, type] of sample) {
    const [a, b] = await Promise.all([asker.ask(ours, name, type, 1000, how.dnssecOk), asker.ask(knot, name, type, 1000, how.dnssecOk)]);
    const show = (x: Answer | null): string =>
      x
        ? `${x.rcode}${x.aa ? ' aa' : ''} [${x.answers.join('; ')}]` +
          (how.dnssecOk ? ` authority [${x.authority.join('; ')}] additional [${x.additional.join('; ')}]` : '')
        : 'no answer';
    const same =
      a &&
      b &&
      a.rcode === b.rcode &&
      a.aa === b.aa &&
      norm(a.answers) === norm(b.answers) &&
      (!how.dnssecOk || (norm(a.authority) === norm(b.authority) && norm(a.additional) === norm(b.additional)));
    if (!same) bad.push(`${name} ${type}: ours ${show(a)}, knot ${show(b)}`);
    rrsigs += a?.answers.filter((l) => l.includes(' RRSIG ')).length ?? 0;
    authorityRrsigs += a?.authority.filter((l) => l.includes(' RRSIG ')).length ?? 0;
    additionalRrsigs += a?.additional.filter((l) => l.includes(' RRSIG ')).length ?? 0;
  }
  return { bad, rrsigs, authorityRrsigs, additionalRrsigs };
};

// ---------------------------------------------------------------------------------------------------
// Report

const pad = (s: string, n: number) => (s.length >= n ? s : s + ' '.repeat(n - s.length));
const lpad = (s: string, n: number) => (s.length >= n ? s : ' '.repeat(n - s.length) + s);
const pctText = (x: number | null): string => (x === null ? 'n/a' : `${x.toFixed(0)} %`);
/**
 * CPU per query: µs of the server's CPU (all its processes) per answered query — its CPU share over the
 * steady part of the run (% of one core) over the QPS dnsperf reports for the run.
 */
const usPerQuery = (m: Measured): number | null => (m.serverCpu === null || m.perf.qps <= 0 ? null : (m.serverCpu * 1e4) / m.perf.qps);
const usText = (x: number | null): string => (x === null ? 'n/a' : x.toFixed(1));

const table = (rows: Measured[]): string => {
  const head = [
    '',
    'round',
    'QPS',
    'avg latency ms',
    'lost',
    'resp bytes',
    'server CPU',
    'server µs/query',
    'dnsperf CPU',
    'softirq',
    'other',
    `machine (of ${cpus().length * 100} %)`,
    'response codes',
  ];
  const body = rows.map((m) => [
    m.name,
    String(m.round),
    m.perf.qps.toFixed(0),
    m.perf.avgLatencyMs.toFixed(3),
    String(m.perf.lost),
    m.perf.responseBytes === null ? 'n/a' : String(m.perf.responseBytes),
    pctText(m.serverCpu) + (m.primaryCpu === null ? '' : ` (primary ${pctText(m.primaryCpu)})`),
    usText(usPerQuery(m)),
    pctText(m.dnsperfCpu),
    pctText(m.machineIrq),
    pctText(
      m.machineBusy === null || m.machineIrq === null || m.serverCpu === null || m.dnsperfCpu === null
        ? null
        : Math.max(0, m.machineBusy - m.machineIrq - m.serverCpu - m.dnsperfCpu),
    ),
    pctText(m.machineBusy),
    m.perf.rcodes.replace(/ \([\d.]+%\)/g, ''),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === 0 || i === cells.length - 1 ? pad(c, widths[i]!) : lpad(c, widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(head), ...body.map(line)].join('\n');
};

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

// ---------------------------------------------------------------------------------------------------

/** Every server of `contenders` once per round, the order turned by one each round. */
const runRounds = async (label: string, contenders: readonly Contender[], queries: string, procs: readonly Proc[]): Promise<Measured[]> => {
  // Load that comes and goes on the machine falls on every server alike, and each round gives its own ratio.
  const rows: Measured[] = [];
  for (let round = 1; round <= rounds; round++) {
    log(
      `  ${label}round ${round} of ${rounds} (load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}):\n`,
    );
    for (let i = 0; i < contenders.length; i++) {
      const c = contenders[(i + round - 1) % contenders.length]!;
      rows.push(await measure(c, round, queries));
      const crash = procs.map((p) => p.crashed()).find((x) => x !== null);
      if (crash) throw new Error(crash);
    }
  }
  return rows;
};

/** The ratios of `key`'s QPS to `knotKey`'s of the same round, round by round. */
const ratiosOf = (rows: readonly Measured[], key: ContenderKey, knotKey: ContenderKey): number[] =>
  rows.filter((m) => m.key === key).map((m) => m.perf.qps / rows.find((k) => k.key === knotKey && k.round === m.round)!.perf.qps);
const describe = (rs: number[]): string => `median ${median(rs).toFixed(3)} (rounds: ${rs.map((r) => r.toFixed(3)).join(', ')})`;
const qpsMedian = (rows: readonly Measured[], key: ContenderKey): string =>
  median(rows.filter((m) => m.key === key).map((m) => m.perf.qps)).toFixed(0);
/** Median over the rounds of the server µs per answered query, with the rounds' range. */
const cpuPerQuery = (rows: readonly Measured[], key: ContenderKey): string => {
  const us = rows.filter((m) => m.key === key).map(usPerQuery);
  if (us.some((u) => u === null) || us.length === 0) return 'n/a';
  const v = us as number[];
  return `${median(v).toFixed(1)} µs (${Math.min(...v).toFixed(1)}–${Math.max(...v).toFixed(1)})`;
};

/** The key the signed round signs with: a CSK made as the product makes one, its private key sealed by a fresh secret box. */
const benchSigning = (): { signing: ZoneSigning; dataKey: Buffer } => {
  const dataKey = randomBytes(32);
  const now = new Date();
  const key = newCsk(
    { crypto: new NodeDnssecCrypto(), box: new AesGcmSecretBox(dataKey), random: new NodeRandom() },
    DOMAIN,
    dnssecAlgorithm,
    now,
  );
  return { signing: zoneSigningOf({ keys: [key], windowStart: now }), dataKey };
};

const main = async (): Promise<number> => {
  const missing = ['dnsperf', 'knotd', 'knotc'].filter((t) => !have(t));
  if (missing.length > 0) {
    log(`dns bench: ${missing.join(', ')} missing; install them with: apt-get install -y dnsperf knot knot-dnsutils\n`);
    return 2;
  }
  log(
    `dns bench: ${recordCount} record sets, dnsperf -c ${clients}, ${rounds} rounds of ${warmupSeconds} s warm-up + ${seconds} s per server` +
      `${signedRound ? `, then the signed round (algorithm ${dnssecAlgorithm}, dnsperf -D)` : ''}; node ${process.version}, ` +
      `${cpus().length} cores, load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}\n`,
  );
  const dir = mkdtempSync(join(tmpdir(), 'domivka-dns-bench-'));
  const procs: Proc[] = [];
  const asker = new UdpAsker();
  const stopAll = async (): Promise<void> => {
    await Promise.all(procs.map((p) => p.stop()));
  };
  const onSignal = () => void stopAll().then(() => process.exit(130));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const knotLogs: Array<() => string> = [];
  const knotLog = (): string => knotLogs.map((l) => l()).join('');
  try {
    const queries = join(dir, 'queries.txt');
    const lines = queryLines();
    writeFileSync(queries, lines.map(([n, t]) => `${n} ${t}`).join('\n') + '\n');
    const nx = lines.filter(([n]) => n.startsWith('nx')).length;
    log(`  queries.txt: ${lines.length} queries (${lines.length - nx} existing name/type pairs, ${nx} NXDOMAIN names)\n`);
    const sample = lines.filter((_, i) => i % Math.max(1, Math.floor(lines.length / 200)) === 0);

    /** Ours (one process) and knotd as its secondary, the zone bootstrapped; `env` for our child (the signed round: its key). */
    const startPair = async (
      what: string,
      knotDir: string,
      env: Record<string, string>,
    ): Promise<{ ours: OurServer; oursPort: number; knot: Proc; knotPort: number }> => {
      const oursPort = await freePort();
      const knotPort = await freePort([oursPort]);
      const ours = await startOurs('single', { ...env, BENCH_DNS_PORT: String(oursPort), BENCH_DNS_SECONDARY_PORT: String(knotPort) });
      procs.push(ours);
      log(`  ours${what}: pid ${ours.info.pids.join(',')} on 127.0.0.1:${oursPort}, ${ours.info.records} record sets with the apex\n`);
      mkdirSync(knotDir, { recursive: true });
      const k = await startKnot(knotDir, knotPort, oursPort);
      procs.push(k.knot);
      knotLogs.push(k.logText);
      const bootstrap = await waitFor(async () => (await asker.soaSerial(knotPort, DOMAIN)) === BENCH_SERIAL, 30_000, 50);
      if (bootstrap === null) throw new Error(`knotd${what} never served ${DOMAIN} serial ${BENCH_SERIAL}`);
      const knotThreads =
        /udp-workers: (\d+)/.exec(readFileSync(join(knotDir, 'knot.conf'), 'utf8'))?.[1] ?? `default (${cpus().length}, one per CPU)`;
      log(
        `  knotd${what}: pid ${k.knot.proc.pid} on 127.0.0.1:${knotPort}, secondary of ours, zone bootstrapped by AXFR in ${bootstrap.toFixed(0)} ms; UDP workers: ${knotThreads}\n`,
      );
      return { ours, oursPort, knot: k.knot, knotPort };
    };
    /** Ours as a cluster of `clusterWorkers`, checked against knotd on the sample. */
    const startCluster = async (
      what: string,
      knotPort: number,
      taken: number[],
      env: Record<string, string>,
      how: Comparison,
    ): Promise<{ cl: OurServer; port: number; primaryPid: number }> => {
      const port = await freePort(taken);
      const cl = await startOurs('cluster', { ...env, BENCH_DNS_PORT: String(port), BENCH_DNS_WORKERS: String(clusterWorkers) });
      procs.push(cl);
      const same = await compareServers(asker, port, knotPort, sample, how);
      if (same.bad.length > 0) throw new Error(`the cluster${what} disagrees with knotd:\n  ${same.bad.slice(0, 10).join('\n  ')}`);
      const primaryPid = cl.pids[cl.pids.length - 1]!;
      log(
        `  ours (cluster${what}): ${clusterWorkers} workers, pids ${cl.pids.slice(0, -1).join(',')}, primary ${primaryPid}, on 127.0.0.1:${port}; same answers as knotd\n`,
      );
      return { cl, port, primaryPid };
    };
    const checkAfter = async (contenders: readonly Contender[], knotPort: number, how: (c: Contender) => Comparison): Promise<void> => {
      // Same answers after the load too (our answers by then come from the answer cache).
      const ourContenders = contenders.filter((x) => !x.key.startsWith('knot'));
      for (const c of ourContenders) {
        const after = await compareServers(asker, c.port, knotPort, sample, how(c));
        if (after.bad.length > 0)
          throw new Error(`${c.name} disagrees with knotd after the load:\n  ${after.bad.slice(0, 10).join('\n  ')}`);
      }
      log(
        `  after the load, ${ourContenders.length === 1 ? 'ours gives' : 'both of ours give'} the same answers as knotd to the ${sample.length} sampled queries\n`,
      );
    };

    const { ours, oursPort, knot, knotPort } = await startPair('', dir, {});

    // Same answers from both before any load.
    const disagree = (await compareServers(asker, oursPort, knotPort, sample)).bad;
    if (disagree.length > 0)
      throw new Error(
        `the servers disagree on ${disagree.length} of ${sample.length} sampled queries:\n  ${disagree.slice(0, 10).join('\n  ')}`,
      );
    log(`  both servers give the same answers to ${sample.length} sampled queries\n`);

    const contenders: Contender[] = [
      { key: 'ours', name: 'ours (1 process)', port: oursPort, pids: ours.pids },
      { key: 'knot', name: 'knotd', port: knotPort, pids: knot.pids },
    ];
    let cl: OurServer | null = null;
    if (clusterWorkers >= 2) {
      const c = await startCluster('', knotPort, [oursPort, knotPort], {}, PLAIN);
      cl = c.cl;
      contenders.push({
        key: 'cluster',
        name: `ours (cluster, ${clusterWorkers} workers)`,
        port: c.port,
        pids: cl.pids,
        primaryPid: c.primaryPid,
      });
    }

    const rows = await runRounds('', contenders, queries, procs);
    await checkAfter(contenders, knotPort, () => PLAIN);
    await cl?.stop();

    // Apply → Knot serves.
    log(`  apply → Knot serves: ${knotRuns} runs … `);
    const delays: number[] = [];
    const ownDelays: number[] = [];
    const publishMs: number[] = [];
    const replies = ours.lines[Symbol.asyncIterator]();
    for (let run = 1; run <= knotRuns; run++) {
      const serial = BENCH_SERIAL + run;
      const name = `knot-delay-${run}.${DOMAIN}`;
      const ip = `192.0.2.${run}`;
      if ((await asker.ask(knotPort, name, 'A'))?.rcode !== 'NXDOMAIN') throw new Error(`knotd answers ${name} before it is published`);
      const t0 = performance.now();
      ours.proc.stdin!.write(`${JSON.stringify({ cmd: 'publish', serial, name, ip })}\n`);
      const pollKnot = (async (): Promise<number | null> => {
        while (performance.now() - t0 < 10_000) {
          const a = await asker.ask(knotPort, name, 'A', 100);
          if (a && a.rcode === 'NOERROR' && a.answers.some((s) => s.includes(ip))) return performance.now() - t0;
          await sleep(1);
        }
        return null;
      })();
      const reply = await replies.next();
      const ownMs = performance.now() - t0;
      if (reply.done) throw new Error('our server closed its stdout');
      publishMs.push((JSON.parse(reply.value) as { ms: number }).ms);
      const own = await asker.ask(oursPort, name, 'A', 500);
      if (!own?.answers.some((s) => s.includes(ip))) throw new Error(`our server does not answer ${name} right after publish resolved`);
      const took = await pollKnot;
      if (took === null) throw new Error(`knotd did not serve ${name} within 10 s`);
      if (took > 250) {
        log(`\n  run ${run} took ${took.toFixed(1)} ms; Knot's log since the publish (ms after it):\n`);
        for (const l of knotLines) if (l.at >= t0) log(`    +${(l.at - t0).toFixed(1)}  ${l.line.replace(/^\S+ /, '')}\n`);
      }
      delays.push(took);
      ownDelays.push(ownMs);
      await sleep(knotGapMs);
    }
    log(`${delays.map((d) => d.toFixed(1)).join(', ')} ms\n`);
    const crash2 = procs.map((p) => p.crashed()).find((c) => c !== null);
    if (crash2) throw new Error(crash2);

    // The signed round: a new pair serving the zone signed (ours signs, Knot transfers and serves the copy), DO set.
    let signedRows: Measured[] = [];
    let signedContenders: Contender[] = [];
    let signedCheck = '';
    if (signedRound) {
      await Promise.all([ours.stop(), knot.stop()]);
      const { signing, dataKey } = benchSigning();
      const env = { BENCH_DNS_SIGNING: JSON.stringify(signing), BENCH_DNS_DATA_KEY: dataKey.toString('hex') };
      const key = signing.keys[0]!;
      log(`  signed round: a CSK, algorithm ${key.algorithm}, key tag ${key.tag}, private key sealed (AES-256-GCM secret box)\n`);
      const pair = await startPair(' (signed)', join(dir, 'signed'), env);
      const dnskey = await asker.ask(pair.knotPort, DOMAIN, 'DNSKEY', 1000, true);
      if (!dnskey?.answers.some((l) => l.includes(' DNSKEY ')) || !dnskey.answers.some((l) => l.includes(' RRSIG DNSKEY ')))
        throw new Error(`knotd (signed) does not serve a signed DNSKEY set: ${JSON.stringify(dnskey)}`);
      const exact: Comparison = { dnssecOk: true, signatures: 'exact' };
      const fields: Comparison = { dnssecOk: true, signatures: key.algorithm === 15 ? 'exact' : 'fields' };
      const agree = await compareServers(asker, pair.oursPort, pair.knotPort, sample, exact);
      if (agree.bad.length > 0)
        throw new Error(
          `with DO set, the servers disagree on ${agree.bad.length} of ${sample.length} sampled queries:\n  ${agree.bad.slice(0, 10).join('\n  ')}`,
        );
      const nxSample = sample.filter(([n]) => n.startsWith('nx')).length;
      signedCheck =
        `with DO set both servers give the same answers to ${sample.length} sampled queries (${nxSample} NXDOMAIN): rcode, AA, answer, ` +
        `authority and additional sections, RRSIGs ${agree.rrsigs} in the answers, ${agree.authorityRrsigs} in the authority and ` +
        `${agree.additionalRrsigs} in the additional sections, signatures octet for octet`;
      log(`  ${signedCheck}\n`);
      signedContenders = [
        { key: 'ours-signed', name: 'ours signed (1 process)', port: pair.oursPort, pids: pair.ours.pids, dnsperfArgs: ['-D'] },
        { key: 'knot-signed', name: 'knotd signed', port: pair.knotPort, pids: pair.knot.pids, dnsperfArgs: ['-D'] },
      ];
      let scl: OurServer | null = null;
      if (clusterWorkers >= 2) {
        const c = await startCluster(' signed', pair.knotPort, [pair.oursPort, pair.knotPort], env, fields);
        scl = c.cl;
        signedContenders.push({
          key: 'cluster-signed',
          name: `ours signed (cluster, ${clusterWorkers} workers)`,
          port: c.port,
          pids: scl.pids,
          primaryPid: c.primaryPid,
          dnsperfArgs: ['-D'],
        });
      }
      signedRows = await runRounds('signed ', signedContenders, queries, procs);
      await checkAfter(signedContenders, pair.knotPort, (c) => (c.key === 'cluster-signed' ? fields : exact));
      await Promise.all([scl?.stop(), pair.ours.stop(), pair.knot.stop()]);
    }

    const oursRatios = ratiosOf(rows, 'ours', 'knot');
    const ratio = median(oursRatios);
    // Targets: one process ≥ 0.6 of knotd; the default workers (DNS_WORKERS unset) ≥ 0.8.
    const defaultKey: 'ours' | 'cluster' | null =
      defaultWorkers === 1 ? 'ours' : cl && clusterWorkers === defaultWorkers ? 'cluster' : null;
    const defaultRatio = defaultKey ? median(ratiosOf(rows, defaultKey, 'knot')) : null;
    let ok = ratio >= TARGET_RATIO && (defaultRatio === null || defaultRatio >= GOAL_RATIO);
    let out = `\n${table(rows)}\n\n`;
    out += `median QPS: ours (1 process) ${qpsMedian(rows, 'ours')}, knotd ${qpsMedian(rows, 'knot')}${cl ? `, ours (cluster, ${clusterWorkers} workers) ${qpsMedian(rows, 'cluster')}` : ''}\n`;
    out += `ratio ours (1 process)/knot QPS, same round: ${describe(oursRatios)}  (target ≥ ${TARGET_RATIO})  ${ratio >= TARGET_RATIO ? 'PASS' : 'FAIL'}\n`;
    if (cl) {
      const cr = ratiosOf(rows, 'cluster', 'knot');
      const isDefault = defaultKey === 'cluster';
      out +=
        `ratio ours (cluster, ${clusterWorkers} workers)/knot QPS, same round: ${describe(cr)}  ` +
        (isDefault
          ? `(the default DNS_WORKERS here; target ≥ ${GOAL_RATIO})  ${median(cr) >= GOAL_RATIO ? 'PASS' : 'FAIL'}\n`
          : `(not the default ${defaultWorkers} workers: reported, not judged)\n`);
    }
    if (defaultWorkers === 1)
      out += `the default DNS_WORKERS on one core is 1: the single process is judged against ${GOAL_RATIO} too  ${ratio >= GOAL_RATIO ? 'PASS' : 'FAIL'}\n`;
    if (defaultKey === null)
      out += `the default DNS_WORKERS here (${defaultWorkers}) was not run (BENCH_DNS_WORKERS=${clusterWorkers}): not judged\n`;
    out += `server CPU per answered query (median of rounds, range): ours (1 process) ${cpuPerQuery(rows, 'ours')}, knotd ${cpuPerQuery(rows, 'knot')}${cl ? `, ours (cluster) ${cpuPerQuery(rows, 'cluster')}` : ''}\n`;
    out +=
      `apply → Knot serves (publish on ours, NOTIFY, IXFR, Knot answers; ${knotRuns} runs): median ${median(delays).toFixed(1)} ms ` +
      `(min ${Math.min(...delays).toFixed(1)}, max ${Math.max(...delays).toFixed(1)}); publish → ours serves: median ${median(ownDelays).toFixed(1)} ms ` +
      `(publish() itself, compiling the zone: median ${median(publishMs).toFixed(1)} ms)\n`;
    if (signedRound) {
      const sr = ratiosOf(signedRows, 'ours-signed', 'knot-signed');
      const scl = signedContenders.some((c) => c.key === 'cluster-signed');
      const signedDefault: ContenderKey | null = defaultKey === 'ours' ? 'ours-signed' : defaultKey === 'cluster' ? 'cluster-signed' : null;
      const signedDefaultRatio = signedDefault ? median(ratiosOf(signedRows, signedDefault, 'knot-signed')) : null;
      const verdict = (r: number): string => (r >= GOAL_RATIO ? 'PASS' : 'FAIL');
      out += `\nsigned round (algorithm ${dnssecAlgorithm}, NSEC; dnsperf -D: EDNS with DO set, the same queries.txt; knotd a plain secondary serving the signed zone it transferred):\n`;
      out += `${signedCheck}\n\n${table(signedRows)}\n\n`;
      out += `median QPS signed: ours (1 process) ${qpsMedian(signedRows, 'ours-signed')}, knotd ${qpsMedian(signedRows, 'knot-signed')}${scl ? `, ours (cluster, ${clusterWorkers} workers) ${qpsMedian(signedRows, 'cluster-signed')}` : ''}\n`;
      out +=
        `ratio signed ours (1 process)/knot QPS, same round: ${describe(sr)}  (≥ ${GOAL_RATIO}: ${verdict(median(sr))}` +
        `${signedDefault === 'ours-signed' ? '; the default DNS_WORKERS here, judged' : '; reported, the default workers are judged'})\n`;
      if (scl) {
        const cr = ratiosOf(signedRows, 'cluster-signed', 'knot-signed');
        out +=
          `ratio signed ours (cluster, ${clusterWorkers} workers)/knot QPS, same round: ${describe(cr)}  (≥ ${GOAL_RATIO}: ${verdict(median(cr))}` +
          `${signedDefault === 'cluster-signed' ? '; the default DNS_WORKERS here, judged' : '; not the default workers: reported, not judged'})\n`;
      }
      if (signedDefaultRatio === null) out += `signed: the default DNS_WORKERS here (${defaultWorkers}) was not run: not judged\n`;
      else out += `signed target (the default DNS_WORKERS ≥ ${GOAL_RATIO} of knotd): ${verdict(signedDefaultRatio)}\n`;
      out +=
        `server CPU per answered query, signed (median of rounds, range): ours (1 process) ${cpuPerQuery(signedRows, 'ours-signed')}, ` +
        `knotd ${cpuPerQuery(signedRows, 'knot-signed')}${scl ? `, ours (cluster) ${cpuPerQuery(signedRows, 'cluster-signed')}` : ''}\n`;
      ok = ok && (signedDefaultRatio === null || signedDefaultRatio >= GOAL_RATIO);
    }
    out +=
      `\nCPU: % of one core over the steady part of each run (utime+stime deltas from /proc/<pid>/stat; a cluster sums its processes, its primary also shown alone); ` +
      `server µs/query: that CPU over the run's QPS (µs of server CPU per answered query); ` +
      `machine: busy time of all ${cpus().length} cores from /proc/stat, softirq: its irq + softirq part (the loopback UDP path, charged to no process); other = machine − softirq − server − dnsperf (other processes: load from elsewhere)\n`;
    out += `overall: ${ok ? 'PASS' : 'FAIL'}  (a report: the exit code does not depend on the target)\n`;
    process.stdout.write(out);
    const lost = [...rows, ...signedRows].filter((m) => m.perf.lost > m.perf.sent * 0.001);
    for (const m of lost) log(`note: ${m.name} lost ${m.perf.lost} of ${m.perf.sent} queries\n`);
    return 0;
  } catch (err) {
    const text = knotLog();
    if (text) log(`knotd log (tail):\n${text.slice(-4000)}\n`);
    throw err;
  } finally {
    asker.close();
    await stopAll();
    if (process.env.BENCH_KEEP_DIR) {
      writeFileSync(join(dir, 'knot.log'), knotLog());
      log(`kept ${dir}\n`);
    } else rmSync(dir, { recursive: true, force: true });
  }
};

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`dns bench failed: ${(err as Error).stack ?? err}\n`);
    process.exit(1);
  },
);
