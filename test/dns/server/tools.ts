import { join } from 'node:path';
import { mkdirSync } from 'node:fs';
import { execFile, spawn, spawnSync } from 'node:child_process';
import dgram from 'node:dgram';
import dnsPacket from 'dns-packet';
import net from 'node:net';
import { EmbeddedNameserver, type EmbeddedNameserverConfig } from '../../../adapters/dns/embedded/index.js';
import type { Zone } from '../../../core/dns/zone/zone.js';

/**
 * Real DNS clients for the server suites ("test the server with dig / kdig as a client, not
 * only with our own code"). A missing tool skips the test on a workstation and fails it in CI.
 */
export const requireTools = (ctx: Mocha.Context, ...tools: string[]): void => {
  const missing = tools.filter((t) => spawnSync('sh', ['-c', `command -v ${t}`]).status !== 0);
  if (missing.length === 0) return;
  if (process.env.CI) throw new Error(`${missing.join(', ')} missing: CI installs bind9-dnsutils, knot and knot-dnsutils (.ci/run)`);
  ctx.skip();
};

export interface Rr {
  readonly name: string;
  readonly ttl: number;
  readonly class: string;
  readonly type: string;
  readonly data: string;
}

export interface DigAnswer {
  readonly status: string;
  readonly flags: readonly string[];
  readonly question: string;
  readonly answer: readonly Rr[];
  readonly authority: readonly Rr[];
  readonly additional: readonly Rr[];
  /** The UDP size in the reply's OPT record, null without one. */
  readonly ednsUdp: number | null;
  readonly ednsFlags: readonly string[];
  readonly size: number | null;
  readonly raw: string;
}

const parseRr = (line: string): Rr => {
  const [name, ttl, klass, type, ...rest] = line.trim().split(/\s+/);
  return { name: name!, ttl: Number(ttl), class: klass!, type: type!, data: rest.join(' ') };
};

/** Reads dig's and kdig's text output (their section headers and header lines differ a little). */
export const parseDig = (raw: string): DigAnswer => {
  const sections: Record<string, Rr[]> = { ANSWER: [], AUTHORITY: [], ADDITIONAL: [] };
  let current: Rr[] | null = null;
  let question = '';
  let inQuestion = false;
  for (const line of raw.split('\n')) {
    const head = /^;; (QUESTION|ANSWER|AUTHORITY|ADDITIONAL) SECTION:/.exec(line);
    if (head) {
      inQuestion = head[1] === 'QUESTION';
      current = inQuestion ? null : sections[head[1]!]!;
      continue;
    }
    if (line.trim() === '') {
      current = null;
      inQuestion = false;
      continue;
    }
    if (inQuestion && !question)
      question = line
        .replace(/^;+\s*/, '')
        .trim()
        .split(/\s+/)[0]!;
    if (current && !line.startsWith(';')) current.push(parseRr(line));
  }
  const flagsLine = /;; flags: ([^;]*);/i.exec(raw);
  const udp = /(?:EDNS: version: \d+, flags:([^;]*); udp: (\d+))|(?:Version: \d+; flags: ([^;]*); UDP size: (\d+))/i.exec(raw);
  return {
    status: /status: (\w+)/.exec(raw)?.[1] ?? 'NO ANSWER',
    flags: (flagsLine?.[1] ?? '').trim().split(/\s+/).filter(Boolean),
    question,
    answer: sections.ANSWER!,
    authority: sections.AUTHORITY!,
    additional: sections.ADDITIONAL!,
    ednsUdp: udp ? Number(udp[2] ?? udp[4]) : null,
    ednsFlags: udp ? (udp[1] ?? udp[3] ?? '').trim().split(/\s+/).filter(Boolean) : [],
    size: Number(/(?:MSG SIZE\s+rcvd:|Received) (\d+)/.exec(raw)?.[1] ?? NaN) || null,
    raw,
  };
};

const run = (cmd: string, args: readonly string[], timeoutMs = 15_000): Promise<string> =>
  new Promise((resolve) => {
    execFile(cmd, args, { timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (_err, stdout, stderr) => resolve(`${stdout}${stderr}`));
  });

/** `dig @127.0.0.1 -p PORT +norec +time=2 +tries=1 …args`, parsed. */
export const dig = async (port: number, ...args: string[]): Promise<DigAnswer> =>
  parseDig(await run('dig', ['@127.0.0.1', '-p', String(port), '+norec', '+time=2', '+tries=1', ...args]));

/** `kdig @127.0.0.1 -p PORT +norec +time=2 +retry=0 …args`, parsed. */
export const kdig = async (port: number, ...args: string[]): Promise<DigAnswer> =>
  parseDig(await run('kdig', ['@127.0.0.1', '-p', String(port), '+norec', '+time=2', '+retry=0', ...args]));

/** `dig axfr`: the records received and dig's summary line. */
export const digAxfr = async (
  port: number,
  zone: string,
  ...args: string[]
): Promise<{ records: Rr[]; messages: number | null; raw: string }> => {
  const raw = await run('dig', ['@127.0.0.1', '-p', String(port), '+time=2', '+tries=1', ...args, 'axfr', zone]);
  const records = raw
    .split('\n')
    .filter((l) => l.trim() && !l.startsWith(';'))
    .map(parseRr);
  return { records, messages: Number(/messages (\d+)/.exec(raw)?.[1] ?? NaN) || null, raw };
};

export const rdata = (rrs: readonly Rr[], type?: string): string[] => rrs.filter((r) => !type || r.type === type).map((r) => r.data);

/** A port free for both UDP and TCP on 127.0.0.1 right now (and not in `avoid`). */
export const freePort = async (avoid: readonly number[] = []): Promise<number> => {
  for (;;) {
    const udp = dgram.createSocket('udp4');
    const port = await new Promise<number>((ok) => udp.bind(0, '127.0.0.1', () => ok(udp.address().port)));
    const tcp = net.createServer();
    const free = await new Promise<boolean>((ok) => {
      tcp.once('error', () => ok(false));
      tcp.listen(port, '127.0.0.1', () => ok(true));
    });
    await new Promise<void>((ok) => (free ? tcp.close(() => ok()) : ok()));
    await new Promise<void>((ok) => udp.close(() => ok()));
    if (free && !avoid.includes(port)) return port;
  }
};

/** Our server on 127.0.0.1 and a random port, serving `zones`. */
export const startServer = async (
  zones: readonly Zone[],
  config: Partial<EmbeddedNameserverConfig> = {},
): Promise<{ ns: EmbeddedNameserver; port: number }> => {
  const ns = new EmbeddedNameserver({ host: '127.0.0.1', port: 0, axfrAllow: ['127.0.0.1'], secondaries: [], ...config });
  for (const z of zones) await ns.publish(z);
  await ns.start();
  return { ns, port: ns.address().port };
};

/** Sends raw octets over UDP; resolves with the reply, or null after `waitMs` of silence. */
export const rawUdp = (port: number, packet: Buffer, waitMs = 300): Promise<Buffer | null> =>
  new Promise((resolve) => {
    const s = dgram.createSocket('udp4');
    const done = (v: Buffer | null): void => {
      clearTimeout(timer);
      s.close();
      resolve(v);
    };
    const timer = setTimeout(() => done(null), waitMs);
    s.on('message', (m) => done(m));
    s.send(packet, port, '127.0.0.1');
  });

/** One question over UDP to 127.0.0.1, its answer decoded (with the rcode's name); rejects after `timeoutMs`. */
export const udpQuestion = (
  port: number,
  name: string,
  type: dnsPacket.RecordType,
  timeoutMs = 2000,
): Promise<dnsPacket.Packet & { rcode?: string }> =>
  new Promise((resolve, reject) => {
    const sock = dgram.createSocket('udp4');
    const timer = setTimeout(() => {
      sock.close();
      reject(new Error(`no answer to ${name}/${type} in ${timeoutMs} ms`));
    }, timeoutMs);
    sock.on('message', (m) => {
      clearTimeout(timer);
      sock.close();
      resolve(dnsPacket.decode(m) as dnsPacket.Packet & { rcode?: string });
    });
    sock.send(dnsPacket.encode({ type: 'query', id: 7, questions: [{ name, type }] }), port, '127.0.0.1');
  });

/** An OPT record (RFC 6891) with a 1232-octet payload: the client speaks EDNS, so refusals can carry an EDE. */
export const EDNS_OPT = {
  type: 'OPT',
  name: '.',
  udpPayloadSize: 1232,
  extendedRcode: 0,
  ednsVersion: 0,
  flags: 0,
  flag_do: false,
  options: [],
} as dnsPacket.Answer;

/** One DNS message over TCP (RFC 7766 length prefix) to 127.0.0.1, its one answer back. */
export const tcpAsk = (port: number, msg: Buffer): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    let buf = Buffer.alloc(0);
    const sock = net.connect(port, '127.0.0.1', () => {
      const len = Buffer.alloc(2);
      len.writeUInt16BE(msg.length);
      sock.write(Buffer.concat([len, msg]));
    });
    sock.on('error', reject);
    sock.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      if (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) {
        sock.destroy();
        resolve(buf.subarray(2, 2 + buf.readUInt16BE(0)));
      }
    });
  });

/** Polls until `check` returns true or `timeoutMs` passes; returns the elapsed milliseconds or null. */
export const waitFor = async (check: () => Promise<boolean>, timeoutMs: number, everyMs = 50): Promise<number | null> => {
  const t0 = Date.now();
  while (Date.now() - t0 < timeoutMs) {
    if (await check()) return Date.now() - t0;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  return null;
};

/**
 * The Knot 3.2 configuration of adapters/dns/embedded/README.md: a secondary of our server that takes
 * NOTIFY from it (Knot 3.2 spells the primary `master:`; 3.3+ also takes `primary:`). Used by the
 * Knot test and by bench:dns.
 */
/** A Knot 3.2 secondary of `primaryPort` (FACTS.md). `nsid` names it (RFC 5001); `transferToLocal` lets
 * 127.0.0.1 transfer from it too, so a test can ask it AXFR/IXFR beside our server. */
export const knotSecondaryConf = (o: {
  dir: string;
  knotPort: number;
  primaryPort: number;
  zones: readonly string[];
  udpWorkers?: number;
  nsid?: string;
  transferToLocal?: boolean;
}): string => {
  // knotd does not create its database directory: without it every journal write fails ("not exists"),
  // and an incremental IXFR falls back to AXFR.
  mkdirSync(join(o.dir, 'db'), { recursive: true });
  return knotSecondaryText(o);
};

const knotSecondaryText = (o: Parameters<typeof knotSecondaryConf>[0]): string => `
server:
    rundir: "${o.dir}"
    listen: 127.0.0.1@${o.knotPort}
${o.udpWorkers ? `    udp-workers: ${o.udpWorkers}\n` : ''}${o.nsid ? `    nsid: "${o.nsid}"\n` : ''}
database:
    storage: "${o.dir}/db"

log:
  - target: stderr
    any: info

remote:
  - id: primary
    address: 127.0.0.1@${o.primaryPort}

acl:
  - id: notify_from_primary
    address: 127.0.0.1
    action: notify
${o.transferToLocal ? '  - id: transfer_to_local\n    address: 127.0.0.1\n    action: transfer\n' : ''}
template:
  - id: default
    storage: "${o.dir}/zones"
    file: "%s.zone"

zone:
${o.zones.map((z) => `  - domain: ${z}\n    master: primary\n    acl: ${o.transferToLocal ? '[notify_from_primary, transfer_to_local]' : 'notify_from_primary'}`).join('\n')}
`;

/** A running knotd: what it has logged so far, and how to stop it (SIGTERM, then SIGKILL after 5 s). */
export interface Knotd {
  log(): string;
  stop(): Promise<void>;
}

/** Checks a knot.conf with `knotc conf-check` (throws with Knot's words if it fails), then runs knotd on it. */
export const runKnotd = (conf: string): Knotd => {
  const check = spawnSync('knotc', ['-c', conf, 'conf-check'], { encoding: 'utf8' });
  if (check.status !== 0) throw new Error(`knotc conf-check: ${check.stdout}${check.stderr}`);
  let log = '';
  const knotd = spawn('knotd', ['-c', conf], { stdio: ['ignore', 'pipe', 'pipe'] });
  knotd.stdout.on('data', (d: Buffer) => (log += d.toString()));
  knotd.stderr.on('data', (d: Buffer) => (log += d.toString()));
  return {
    log: () => log,
    stop: async () => {
      if (knotd.exitCode !== null) return;
      const exited = new Promise((r) => knotd.once('exit', r));
      knotd.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      if (knotd.exitCode === null) knotd.kill('SIGKILL');
    },
  };
};
