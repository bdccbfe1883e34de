import { expect } from 'chai';
import { execFile, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT, startServerProcess, type ServerProcess } from '../support/server-process.js';

const run = promisify(execFile);

/**
 * DNS_WORKERS=2: npm start's DNS server as two cluster workers sharing the sockets. An apply returns
 * only once both workers serve the change, so the very next queries (whichever worker takes them) see it.
 * SQLite only: it starts the real entry point in a child process.
 */
describe('npm start with DNS_WORKERS=2', function () {
  this.timeout(90_000);
  let server: ServerProcess;
  let env: NodeJS.ProcessEnv;
  let api: string;
  let dnsPort: number;

  before(async function () {
    if (spawnSync('which', ['dig']).status !== 0) {
      if (!process.env.CI) this.skip();
      throw new Error('dig is required in CI');
    }
    server = await startServerProcess({ DNS_WORKERS: '2' });
    ({ env, api, dnsPort } = server);
  });

  after(async () => server?.stop());

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
