import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../dns/server/tools.js';
import { TEST_DATA_KEY_HEX, TEST_PEPPER_HEX } from './system.js';

export const ROOT = join(import.meta.dirname, '..', '..');

/**
 * The environment of a server started from a test or a bench: this process's, plus a SQLite store and
 * VAR_DIR in `dir`, the test secrets, the given ports and no metrics listener (`extra` overrides any).
 * The test runner's own loader (NODE_OPTIONS) does not leak into the child.
 */
export const serverEnv = (dir: string, port: number, dnsPort: number, extra: Record<string, string> = {}): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: join(dir, 'db.sqlite'),
    VAR_DIR: dir,
    KEY_PEPPER: TEST_PEPPER_HEX,
    DATA_KEY: TEST_DATA_KEY_HEX,
    PORT: String(port),
    DNS_PORT: String(dnsPort),
    METRICS_PORT: '0',
    ...extra,
  };
  delete env.NODE_OPTIONS;
  return env;
};

/** `npm run sandbox:key -- <args> --json` on a running server's store (its env): the key string and its TSIG credential. */
export const sandboxKey = async (
  env: NodeJS.ProcessEnv,
  args: readonly string[],
): Promise<{ key: string; tsig: { name: string; algorithm: string; secret: string } | null }> => {
  const { stdout } = await promisify(execFile)(join(ROOT, 'node_modules', '.bin', 'tsx'), ['src/main/sandbox-key.ts', ...args, '--json'], {
    cwd: ROOT,
    env,
  });
  return JSON.parse(stdout.trim().split('\n').pop()!) as { key: string; tsig: { name: string; algorithm: string; secret: string } | null };
};

/** Plans the changes on a domain's zone with the key and applies the plan; the apply's answer. */
export const planAndApply = async (api: string, key: string, domain: string, changes: readonly object[]): Promise<Response> => {
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const plan = (await (
    await fetch(`${api}/v1/domains/${domain}/dns/plans`, {
      method: 'POST',
      headers: { ...headers, 'idempotency-key': `p-${Math.random()}` },
      body: JSON.stringify({ changes }),
    })
  ).json()) as { id: string };
  return fetch(`${api}/v1/domains/${domain}/dns/plans/${plan.id}/apply`, {
    method: 'POST',
    headers: { ...headers, 'idempotency-key': `a-${Math.random()}` },
    body: '{}',
  });
};

export interface ServerProcess {
  readonly api: string;
  readonly dnsPort: number;
  /** The environment it runs with (for CLI calls on the same store). */
  readonly env: NodeJS.ProcessEnv;
  readonly child: ChildProcess;
  stop(): Promise<void>;
}

/** `npm start` as its own process on a fresh SQLite store and free ports; resolves once /healthz answers. */
export const startServerProcess = async (extraEnv: Record<string, string> = {}): Promise<ServerProcess> => {
  const dir = mkdtempSync(join(tmpdir(), 'server-'));
  const port = await freePort();
  const dnsPort = await freePort([port]);
  const env = serverEnv(dir, port, dnsPort, { LOG_LEVEL: 'warn', RUN_WORKER: 'false', ...extraEnv });
  const api = `http://127.0.0.1:${port}`;
  const child = spawn(join(ROOT, 'node_modules', '.bin', 'tsx'), ['src/main/server.ts'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // The last of what it wrote (warnings and errors: LOG_LEVEL is warn), told when it does not start.
  let tail = '';
  const keep = (d: Buffer): void => void (tail = (tail + d.toString()).slice(-8000));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  };
  // Up to 110 s (within a test's 120 s): a loaded 2-core machine compiling under tsx took 53 s to bring up two
  // DNS workers. A server that exits is told at once, with what it wrote.
  for (let i = 0; i < 440; i++) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`server exited with ${child.exitCode ?? child.signalCode} before it answered:\n${tail}`);
    try {
      if ((await fetch(`${api}/healthz`)).ok) return { api, dnsPort, env, child, stop };
    } catch {
      /* not yet */
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  await stop();
  throw new Error(`server did not start within 110 s:\n${tail}`);
};
