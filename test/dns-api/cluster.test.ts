import { expect } from 'chai';
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../dns-server/tools.js';
import { TEST_DATA_KEY_HEX, TEST_PEPPER_HEX } from '../support/system.js';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');

/**
 * DNS_WORKERS=2: npm start's DNS server as two cluster workers sharing the sockets. An apply returns
 * only once both workers serve the change, so the very next queries (whichever worker takes them) see it.
 * SQLite only: it starts the real entry point in a child process.
 */
describe('npm start with DNS_WORKERS=2', function () {
  this.timeout(90_000);
  let server: ChildProcess;
  let env: NodeJS.ProcessEnv;
  let api: string;
  let dnsPort: number;

  before(async function () {
    if (spawnSync('which', ['dig']).status !== 0) {
      if (!process.env.CI) this.skip();
      throw new Error('dig is required in CI');
    }
    const dir = mkdtempSync(join(tmpdir(), 'cluster-'));
    const port = await freePort();
    dnsPort = await freePort([port]);
    env = {
      ...process.env, DATABASE_URL: join(dir, 'db.sqlite'), VAR_DIR: dir, KEY_PEPPER: TEST_PEPPER_HEX, DATA_KEY: TEST_DATA_KEY_HEX,
      PORT: String(port), DNS_PORT: String(dnsPort), DNS_WORKERS: '2', LOG_LEVEL: 'warn', RUN_WORKER: 'false',
    };
    api = `http://127.0.0.1:${port}`;
    server = spawn(join(ROOT, 'node_modules', '.bin', 'tsx'), ['src/main/server.ts'], { cwd: ROOT, env, stdio: 'ignore' });
    for (let i = 0; i < 120; i++) {
      try {
        if ((await fetch(`${api}/healthz`)).ok) return;
      } catch {
        /* not yet */
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    throw new Error('server did not start');
  });

  after(async () => {
    if (!server) return;
    const exited = new Promise((r) => server.once('exit', r));
    server.kill('SIGTERM');
    await exited;
  });

  const dig = async (name: string, type: string) =>
    (await run('dig', ['+short', '+norecurse', '+time=2', '+tries=1', '-p', String(dnsPort), '@127.0.0.1', name, type])).stdout.trim();

  it('serves the zones, and an applied plan is seen by every following query', async () => {
    expect(await dig('domivka-demo.com.ua', 'A')).to.equal('192.0.2.10');
    const { stdout } = await run(join(ROOT, 'node_modules', '.bin', 'tsx'), ['src/main/sandbox-key.ts', '--template', 'dns_editor', '--label', 'prod', '--json'], { cwd: ROOT, env });
    const key = JSON.parse(stdout.trim()).key as string;
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const plan = await (await fetch(`${api}/v1/domains/domivka-demo.com.ua/dns/plans`, {
      method: 'POST', headers: { ...headers, 'idempotency-key': 'p1' },
      body: JSON.stringify({ changes: [{ action: 'create', name: 'cl', type: 'A', ttl: 60, values: ['192.0.2.77'] }] }),
    })).json() as { id: string };
    const applied = await fetch(`${api}/v1/domains/domivka-demo.com.ua/dns/plans/${plan.id}/apply`, { method: 'POST', headers: { ...headers, 'idempotency-key': 'a1' }, body: '{}' });
    expect(applied.status).to.equal(200);
    const answers = await Promise.all(Array.from({ length: 8 }, () => dig('cl.domivka-demo.com.ua', 'A')));
    expect(answers).to.deep.equal(Array(8).fill('192.0.2.77'));
  });
});
