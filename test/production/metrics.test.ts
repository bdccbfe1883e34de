import { expect } from 'chai';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../dns/server/tools.js';
import { startCompiled, type CompiledProcess } from '../support/compiled-process.js';
import { ROOT } from '../support/server-process.js';

const dig = (port: number, name: string): void => {
  const r = spawnSync('dig', ['+short', '+tries=1', '+time=2', '-p', String(port), '@127.0.0.1', name, 'SOA'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`dig failed: ${r.stderr}`);
};

/**
 * One /metrics for npm start's process group (the API process with its DNS workers' counters summed
 * in), scraped by a real Prometheus and read back through its HTTP API; the sample alert rules pass
 * promtool.
 */
describe('metrics: Prometheus scrapes npm start and queries a series', function () {
  this.timeout(120_000);
  let server: CompiledProcess | null = null;
  let prometheus: ChildProcess | null = null;

  after(async () => {
    prometheus?.kill('SIGTERM');
    await server?.stop();
  });

  it('the sample alert rules pass promtool check rules', () => {
    const r = spawnSync('promtool', ['check', 'rules', join(ROOT, 'examples/prometheus/alerts.yml')], { encoding: 'utf8' });
    expect(r.status, r.stdout + r.stderr).to.equal(0);
  });

  it('DNS queries answered by the DNS workers, API requests by route template, the process defaults: one scrape, queried through Prometheus', async () => {
    const metricsPort = await freePort();
    server = await startCompiled({ METRICS_PORT: String(metricsPort), DNS_WORKERS: '2', RUN_WORKER: 'false' });
    for (let i = 0; i < 5; i++) dig(server.dnsPort, 'domivka-demo.com.ua');
    await fetch(`${server.api}/v1/domains/domivka-demo.com.ua`); // 401: no key; the route template, not the path
    const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    const line = (re: RegExp) => text.split('\n').find((l) => re.test(l)) ?? '';
    // The DNS workers' counters reach the one /metrics (DNS_WORKERS=2: the API process answers no query itself).
    expect(Number(line(/^domivka_dns_responses_total\{opcode="query",rcode="NOERROR",transport="udp"\}/).split(' ')[1])).to.equal(5);
    expect(line(/^domivka_http_request_duration_seconds_count\{route="\/v1\/domains\/:domain"/)).to.contain('status_class="4xx"');
    expect(text).to.not.contain('domivka-demo.com.ua');
    expect(text).to.match(/^process_resident_memory_bytes \d/m);

    const dir = mkdtempSync(join(tmpdir(), 'prometheus-'));
    const webPort = await freePort([metricsPort]);
    writeFileSync(
      join(dir, 'prometheus.yml'),
      `global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: domivka\n    static_configs:\n      - targets: ['127.0.0.1:${metricsPort}']\n`,
    );
    prometheus = spawn(
      'prometheus',
      [
        `--config.file=${join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${webPort}`,
      ],
      { stdio: 'ignore' },
    );
    const query = encodeURIComponent('sum(domivka_dns_responses_total{rcode="NOERROR"})');
    let value: string | null = null;
    for (let i = 0; i < 120 && value === null; i++) {
      await new Promise((r) => setTimeout(r, 500));
      try {
        const body = (await (await fetch(`http://127.0.0.1:${webPort}/api/v1/query?query=${query}`)).json()) as {
          data?: { result?: Array<{ value: [number, string] }> };
        };
        value = body.data?.result?.[0]?.value[1] ?? null;
      } catch {
        /* not up yet */
      }
    }
    expect(value).to.equal('5');
  });
});
