import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../dns/server/tools.js';
import { ROOT, serverEnv } from './server-process.js';
export { serverEnv } from './server-process.js';

/** A compiled entry point (dist/src/main/<name>.js); `npm ci` (prepare) or `npm run build` makes them. */
export const distEntry = (name: string): string => {
  const file = join(ROOT, 'dist', 'src', 'main', `${name}.js`);
  if (!existsSync(file)) throw new Error(`${file} is missing: run npm run build (npm ci runs it)`);
  return file;
};

export interface CompiledProcess {
  readonly api: string;
  readonly port: number;
  readonly dnsPort: number;
  readonly env: NodeJS.ProcessEnv;
  readonly child: ChildProcess;
  readonly dir: string;
  /** Everything written so far to stdout and stderr. */
  output(): string;
  /** The exit code, once it has exited. */
  readonly exited: Promise<number | null>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * `npm start` as npm runs it (node dist/src/main/server.js), on a fresh SQLite store (or `dir`'s) and
 * free ports; resolves once /healthz answers (or, with `waitHealthy: false`, at once).
 */
export const startCompiled = async (
  extraEnv: Record<string, string> = {},
  o: { nodeArgs?: string[]; waitHealthy?: boolean; dir?: string } = {},
): Promise<CompiledProcess> => {
  const dir = o.dir ?? mkdtempSync(join(tmpdir(), 'compiled-'));
  const port = await freePort();
  const dnsPort = await freePort([port]);
  const env = serverEnv(dir, port, dnsPort, { LOG_LEVEL: 'warn', ...extraEnv });
  const child = spawn(process.execPath, [...(o.nodeArgs ?? []), '--max-semi-space-size=64', distEntry('server')], { cwd: ROOT, env });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const api = `http://127.0.0.1:${port}`;
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    return exited;
  };
  const p: CompiledProcess = { api, port, dnsPort, env, child, dir, output: () => out, exited, stop };
  if (o.waitHealthy === false) return p;
  for (let i = 0; i < 240; i++) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}:\n${out}`);
    try {
      if ((await fetch(`${api}/healthz`)).ok) return p;
    } catch {
      /* not yet */
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  await stop('SIGKILL');
  throw new Error(`server did not start:\n${out}`);
};
