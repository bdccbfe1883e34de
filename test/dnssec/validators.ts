import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { freePort, dig, type DigAnswer } from '../dns/server/tools.js';

const run = promisify(execFile);

/** A running unbound: a validating resolver for one zone, trusting `ds` and asking `stubPort` (FACTS.md recipe). */
export interface Unbound {
  readonly port: number;
  query(...args: string[]): Promise<DigAnswer>;
  stop(): Promise<void>;
  log(): string;
  /** `unbound-control …args` against this instance (started with `{ control: true }`). */
  control(...args: string[]): Promise<string>;
}

/**
 * unbound in the foreground with the settings every validator here shares (FACTS.md recipe) and `conf`
 * after them (trust anchors, stub zones, remote control); ready once it answers `readyName` SOA.
 */
export const runUnbound = async (
  port: number,
  conf: (dir: string) => string,
  readyName: string,
): Promise<Omit<Unbound, 'control'> & { readonly confFile: string }> => {
  const dir = mkdtempSync(join(tmpdir(), 'dmk-unbound-'));
  const confFile = join(dir, 'unbound.conf');
  writeFileSync(
    confFile,
    `server:
    interface: 127.0.0.1@${port}
    port: ${port}
    do-not-query-localhost: no
    username: ""
    chroot: ""
    directory: "${dir}"
    pidfile: "${dir}/unbound.pid"
    use-syslog: no
    logfile: ""
    verbosity: 1
    module-config: "validator iterator"
    val-log-level: 2
    qname-minimisation: no
    harden-referral-path: no
${conf(dir)}`,
  );
  let log = '';
  const p = spawn('unbound', ['-d', '-c', confFile], { stdio: ['ignore', 'pipe', 'pipe'] });
  p.stdout.on('data', (d: Buffer) => (log += d.toString()));
  p.stderr.on('data', (d: Buffer) => (log += d.toString()));
  for (let i = 0; i < 100; i++) {
    const a = await dig(port, readyName, 'SOA', '+rec');
    if (a.status !== 'NO ANSWER') break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    port,
    confFile,
    query: (...args: string[]) => dig(port, '+rec', '+dnssec', ...args),
    log: () => log,
    stop: async () => {
      if (p.exitCode !== null) return;
      const exited = new Promise((r) => p.once('exit', r));
      p.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
      if (p.exitCode === null) p.kill('SIGKILL');
    },
  };
};

export const startUnbound = async (
  zone: string,
  ds: readonly string[],
  stubPort: number,
  o: { control?: boolean } = {},
): Promise<Unbound> => {
  const port = await freePort([stubPort]);
  const controlPort = o.control ? await freePort([stubPort, port]) : 0;
  const u = await runUnbound(
    port,
    () => `${ds.map((d) => `    trust-anchor: "${zone}. DS ${d}"`).join('\n')}
stub-zone:
    name: "${zone}"
    stub-addr: 127.0.0.1@${stubPort}
${
  o.control
    ? `remote-control:
    control-enable: yes
    control-interface: 127.0.0.1
    control-port: ${controlPort}
    control-use-cert: no
`
    : ''
}`,
    zone,
  );
  return {
    ...u,
    control: async (...args: string[]) => {
      const out = await run('unbound-control', ['-c', u.confFile, ...args], { timeout: 10_000 });
      return out.stdout + out.stderr;
    },
  };
};

/**
 * A second validator, BIND's delv (bind9-dnsutils): asks `port` directly and validates the answer itself from the
 * zone's DS as its only trust anchor (`+root=<zone>` with `-a`). Async: the server may run in this process.
 */
export interface DelvAnswer {
  /** "; fully validated" or "; negative response, fully validated" was printed. */
  readonly validated: boolean;
  readonly negative: boolean;
  readonly out: string;
}

export const delvFor = (zone: string, ds: readonly string[]) => {
  const dir = mkdtempSync(join(tmpdir(), 'dmk-delv-'));
  const anchors = join(dir, 'anchors.conf');
  const entries = ds.map((d) => {
    const [tag, alg, type, hex] = d.split(' ');
    return `    "${zone}." static-ds ${tag} ${alg} ${type} "${hex}";`;
  });
  writeFileSync(anchors, `trust-anchors {\n${entries.join('\n')}\n};\n`);
  return async (port: number, name: string, type: string): Promise<DelvAnswer> => {
    const args = ['@127.0.0.1', '-p', String(port), '-a', anchors, `+root=${zone}`, name, type];
    const out = await run('delv', args, { timeout: 20_000 }).then(
      (o) => o.stdout + o.stderr,
      (e: { stdout?: string; stderr?: string; message: string }) => `${e.stdout ?? ''}${e.stderr ?? ''}${e.message}`,
    );
    return { validated: /^; (negative response, )?fully validated$/m.test(out), negative: /^; negative response/m.test(out), out };
  };
};
