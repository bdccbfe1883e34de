import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../dns/server/tools.js';
import { reqArgs } from './openssl-req.js';

/**
 * A real Pebble (Let's Encrypt's test CA, Debian package `pebble`) for the ACME suites, validating
 * DNS-01 against the DNS server at `dnsPort`. FACTS: Pebble 2.4 asks TXT over UDP without EDNS,
 * reads the answer section only, and mints a new root per start (`/roots/0` on the management port).
 */
export interface Pebble {
  /** The ACME directory, https://127.0.0.1:<port>/dir. */
  readonly directoryUrl: string;
  /** PEM of the self-signed certificate Pebble's HTTPS listener uses: trust it to talk to Pebble. */
  readonly listenerCaPem: string;
  /** File holding listenerCaPem (for LEGO_CA_CERTIFICATES, REQUESTS_CA_BUNDLE). */
  readonly listenerCaFile: string;
  /** Pebble's issuing root of this run (PEM), the anchor issued chains verify against. */
  rootPem(): Promise<string>;
  /** Its intermediate of this run (PEM). */
  intermediatePem(): Promise<string>;
  /** What Pebble's management port says of a certificate it issued (serial in hex): Valid or Revoked. */
  certStatus(serialHex: string): Promise<string>;
  stop(): Promise<void>;
}

export const pebbleMissing = (): string | null => (spawnSync('sh', ['-c', 'command -v pebble']).status === 0 ? null : 'pebble');

/** Skips on a workstation without pebble (or the other tools named); fails in CI, which installs them. */
export const requirePebble = (ctx: Mocha.Context, ...others: string[]): void => {
  const missing = [pebbleMissing(), ...others.filter((t) => spawnSync('sh', ['-c', `command -v ${t}`]).status !== 0)].filter(Boolean);
  if (missing.length === 0) return;
  if (process.env.CI) throw new Error(`${missing.join(', ')} missing: .ci/run installs pebble, lego and certbot`);
  ctx.skip();
};

const get = (url: string, agent: Agent): Promise<{ status: number; body: string }> =>
  new Promise((resolve, reject) => {
    const req = request(url, { agent, timeout: 2000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.end();
  });

export const startPebble = async (dnsPort: number, options: { env?: Record<string, string> } = {}): Promise<Pebble> => {
  const dir = mkdtempSync(join(tmpdir(), 'pebble-'));
  const keyFile = join(dir, 'key.pem');
  const certFile = join(dir, 'cert.pem');
  const made = spawnSync(
    'openssl',
    reqArgs({
      x509: true,
      key: 'rsa:2048',
      keyout: keyFile,
      out: certFile,
      days: 7,
      subj: '/CN=localhost',
      san: 'DNS:localhost,IP:127.0.0.1',
    }),
    { encoding: 'utf8' },
  );
  if (made.status !== 0) throw new Error(`openssl failed: ${made.stderr}`);
  const port = await freePort([dnsPort]);
  const mgmt = await freePort([dnsPort, port]);
  const httpPort = await freePort([dnsPort, port, mgmt]);
  const tlsPort = await freePort([dnsPort, port, mgmt, httpPort]);
  const config = join(dir, 'pebble.json');
  writeFileSync(
    config,
    JSON.stringify({
      pebble: {
        listenAddress: `127.0.0.1:${port}`,
        managementListenAddress: `127.0.0.1:${mgmt}`,
        certificate: certFile,
        privateKey: keyFile,
        httpPort,
        tlsPort,
        ocspResponderURL: '',
        externalAccountBindingRequired: false,
      },
    }),
  );
  const child: ChildProcess = spawn('pebble', ['-config', config, '-dnsserver', `127.0.0.1:${dnsPort}`], {
    env: { ...process.env, PEBBLE_VA_NOSLEEP: '1', PEBBLE_WFE_NONCEREJECT: '0', PEBBLE_AUTHZREUSE: '0', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout!.on('data', (c: Buffer) => (log = (log + c.toString()).slice(-20_000)));
  child.stderr!.on('data', (c: Buffer) => (log = (log + c.toString()).slice(-20_000)));
  const listenerCaPem = readFileSync(certFile, 'utf8');
  const agent = new Agent({ ca: listenerCaPem, keepAlive: false });
  const directoryUrl = `https://127.0.0.1:${port}/dir`;
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`pebble exited (${child.exitCode}): ${log}`);
    const ok = await get(directoryUrl, agent).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`pebble did not answer at ${directoryUrl}: ${log}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const mgmtGet = async (path: string): Promise<string> => {
    const r = await get(`https://127.0.0.1:${mgmt}${path}`, agent);
    if (r.status !== 200) throw new Error(`pebble ${path}: ${r.status}`);
    return r.body;
  };
  return {
    directoryUrl,
    listenerCaPem,
    listenerCaFile: certFile,
    rootPem: () => mgmtGet('/roots/0'),
    intermediatePem: () => mgmtGet('/intermediates/0'),
    certStatus: async (serialHex) =>
      String((JSON.parse(await mgmtGet(`/cert-status-by-serial/${serialHex}`)) as { Status?: unknown }).Status),
    stop: async () => {
      agent.destroy();
      if (child.exitCode === null) {
        const exited = new Promise<void>((r) => child.once('exit', () => r()));
        child.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
        if (child.exitCode === null) child.kill('SIGKILL');
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
};
