import { expect } from 'chai';
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../dns/server/tools.js';
import { distEntry, serverEnv } from '../support/compiled-process.js';
import { ROOT } from '../support/server-process.js';

const run = promisify(execFile);

/** One request on a connection of its own: the cluster hands each new connection to the next API process. */
const request = (port: number, method: string, path: string, headers: Record<string, string> = {}, json?: unknown) =>
  new Promise<{ status: number; body: string; pid: string }>((resolve, reject) => {
    const body = json === undefined ? undefined : JSON.stringify(json);
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        agent: false,
        headers: { ...headers, ...(body ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } : {}) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, pid: String(res.headers['request-id'] ?? '') }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });

const value = (text: string, series: string): number => {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  if (!line) throw new Error(`no ${series} in the scrape:\n${text.slice(0, 3000)}`);
  return Number(line.slice(series.length + 1));
};

/**
 * `npm run cluster` (compiled): 2 API processes on one port, a worker, the DNS process with its DNS worker.
 * The supervisor's one /metrics sums what each API process and the DNS process counted, and keeps shared
 * store figures (webhook endpoints) once instead of once per API process.
 */
describe('metrics: npm run cluster serves one /metrics for the whole group', function () {
  this.timeout(180_000);
  let child: ChildProcess | null = null;
  after(async () => {
    if (child && child.exitCode === null) {
      const gone = new Promise((r) => child!.once('exit', r));
      child.kill('SIGTERM');
      await Promise.race([gone, new Promise((r) => setTimeout(r, 15_000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });

  it('API requests summed over the API processes, DNS answers from the DNS process, a store figure not multiplied', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cluster-metrics-'));
    const port = await freePort();
    const dnsPort = await freePort([port]);
    const metricsPort = await freePort([port, dnsPort]);
    const env = serverEnv(dir, port, dnsPort, {
      METRICS_PORT: String(metricsPort),
      API_PROCESSES: '2',
      WORKERS: '1',
      DNS_WORKERS: '1',
      WEBHOOKS_ALLOW_LOOPBACK: '1',
      LOG_LEVEL: 'warn',
    });
    const c = spawn(process.execPath, [distEntry('cluster')], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    child = c;
    let out = '';
    c.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    c.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    for (let i = 0; i < 480 && !out.includes('cluster ready'); i++) {
      if (c.exitCode !== null) throw new Error(`cluster exited ${c.exitCode}:\n${out}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(out, out).to.contain('cluster ready: 2 API processes');

    const { stdout } = await run(process.execPath, [distEntry('sandbox-key'), '--rights', 'webhook.manage', '--label', 'prod', '--json'], {
      cwd: ROOT,
      env,
    });
    const key = (JSON.parse(stdout.trim()) as { key: string }).key;
    const hook = await request(
      port,
      'POST',
      '/v1/webhooks',
      { authorization: `Bearer ${key}`, 'idempotency-key': randomUUID() },
      {
        url: 'http://127.0.0.1:9/hook',
        events: ['*'],
      },
    );
    expect(hook.status, hook.body).to.equal(201);

    // 10 unauthenticated reads, each on its own connection: round-robin spreads them over both API processes.
    const N = 10;
    for (let i = 0; i < N; i++) expect((await request(port, 'GET', '/v1/domains/domivka-demo.com.ua')).status).to.equal(401);
    for (let i = 0; i < 3; i++) {
      const r = spawnSync('dig', ['+short', '+tries=1', '+time=2', '-p', String(dnsPort), '@127.0.0.1', 'domivka-demo.com.ua', 'SOA'], {
        encoding: 'utf8',
      });
      expect(r.status, r.stderr).to.equal(0);
    }

    const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    expect(
      value(text, 'domivka_http_request_duration_seconds_count{route="/v1/domains/:domain",method="GET",status_class="4xx"}'),
      'requests counted by both API processes, summed',
    ).to.equal(N);
    expect(value(text, 'domivka_dns_responses_total{opcode="query",rcode="NOERROR",transport="udp"}'), 'the DNS process').to.equal(3);
    // Every process reads the same store: one endpoint (healthy, or failing once the worker has tried to
    // deliver webhook.created to its closed port), not one per process.
    const endpoints = ['healthy', 'failing', 'disabled'].map((state) =>
      value(text, `domivka_webhook_endpoints{environment="test",state="${state}"}`),
    );
    expect(
      endpoints.reduce((a, b) => a + b, 0),
      JSON.stringify(endpoints),
    ).to.equal(1);
    expect(text).to.not.contain('domivka-demo.com.ua');
  });
});
