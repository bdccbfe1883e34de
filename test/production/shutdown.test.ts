import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { distEntry, startCompiled, type CompiledProcess } from '../support/compiled-process.js';
import { ROOT } from '../support/server-process.js';
import { eachStore } from '../support/stores.js';
import { startApi, type TestApi } from '../support/system.js';

const run = promisify(execFile);

eachStore('readiness while draining', (kind) => {
  let api: TestApi;
  before(async () => {
    api = await startApi(kind);
  });
  after(async () => api?.close());

  it('/readyz answers 503 "draining" once shutdown began, while /healthz stays 200', async () => {
    expect((await api.call('/readyz')).status).to.equal(200);
    api.system.markDraining();
    const ready = await api.call('/readyz');
    expect(ready.status).to.equal(503);
    expect(ready.body).to.deep.equal({ status: 'draining' });
    expect((await api.call('/healthz')).status).to.equal(200);
  });
});

/**
 * SIGTERM under load: npm start (compiled, two DNS workers, the worker in-process) stops accepting,
 * finishes what is in flight, lets the worker finish its job, closes the store and exits 0; no request
 * is answered 5xx.
 */
describe('shutdown: SIGTERM under load', function () {
  this.timeout(180_000);
  let server: CompiledProcess | null = null;
  after(async () => {
    await server?.stop('SIGKILL');
  });

  it('no 5xx, in-flight requests answered, the worker and DNS workers stopped cleanly, exit code 0', async () => {
    server = await startCompiled({ DNS_WORKERS: '2', LOG_LEVEL: 'info', SHUTDOWN_TIMEOUT_MS: '10000' });
    const s = server;
    const { stdout } = await run(
      process.execPath,
      [distEntry('sandbox-key'), '--rights', 'domain.read,dns.read', '--label', 'prod', '--json'],
      { cwd: ROOT, env: s.env },
    );
    const key = (JSON.parse(stdout.trim()) as { key: string }).key;
    const statuses = new Map<number, number>();
    let refused = 0;
    let exited = false;
    void s.exited.then(() => (exited = true));
    const loop = async (path: string) => {
      while (!exited) {
        try {
          const res = await fetch(`${s.api}${path}`, { headers: { authorization: `Bearer ${key}` } });
          await res.arrayBuffer();
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        } catch {
          refused++; // no longer accepting: the connection is refused or closed, never a 5xx
          await new Promise((r) => setTimeout(r, 20));
        }
      }
    };
    const loops = [
      ...Array.from({ length: 12 }, () => loop('/v1/domains')),
      ...Array.from({ length: 4 }, () => loop('/v1/domains/domivka-demo.com.ua/dns/records')),
      loop('/readyz'),
    ];
    await new Promise((r) => setTimeout(r, 2000));
    const before = [...statuses.values()].reduce((a, b) => a + b, 0);
    s.child.kill('SIGTERM');
    const code = await s.exited;
    await Promise.all(loops);
    const out = s.output();
    expect(code, out.slice(-3000)).to.equal(0);
    expect(before, 'requests answered before SIGTERM').to.be.greaterThan(0);
    const fives = [...statuses.entries()].filter(([status]) => status >= 500 && status !== 503);
    expect(fives, JSON.stringify([...statuses])).to.deep.equal([]);
    // 503 only from /readyz while draining.
    expect(statuses.get(200) ?? 0).to.be.greaterThan(0);
    expect(out).to.contain('"msg":"stopped"');
    expect(out).to.not.contain('still busy at the shutdown bound');
    expect(out).to.not.contain('still in flight at the shutdown bound');
    expect(out).to.not.match(/DNS worker exited; starting another/);
    expect(refused).to.be.greaterThanOrEqual(0);
  });
});
