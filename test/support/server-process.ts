import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../dns/server/tools.js';
import { TEST_DATA_KEY_HEX, TEST_PEPPER_HEX } from './system.js';

export const ROOT = join(import.meta.dirname, '..', '..');

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
  const env = {
    ...process.env,
    DATABASE_URL: join(dir, 'db.sqlite'),
    VAR_DIR: dir,
    KEY_PEPPER: TEST_PEPPER_HEX,
    DATA_KEY: TEST_DATA_KEY_HEX,
    PORT: String(port),
    DNS_PORT: String(dnsPort),
    LOG_LEVEL: 'warn',
    RUN_WORKER: 'false',
    METRICS_PORT: '0',
    ...extraEnv,
  };
  const api = `http://127.0.0.1:${port}`;
  const child = spawn(join(ROOT, 'node_modules', '.bin', 'tsx'), ['src/main/server.ts'], { cwd: ROOT, env, stdio: 'ignore' });
  const stop = async () => {
    if (child.exitCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  };
  // Up to 60 s: a loaded 2-core machine compiling under tsx takes half of that.
  for (let i = 0; i < 240; i++) {
    try {
      if ((await fetch(`${api}/healthz`)).ok) return { api, dnsPort, env, child, stop };
    } catch {
      /* not yet */
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  await stop();
  throw new Error('server did not start');
};
