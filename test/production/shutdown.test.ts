import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import knexFactory from 'knex';
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

/**
 * A write in flight at SIGTERM. The request's headers arrive before the signal and its body trickles in
 * after it (a slow client uploading a plan apply), so the handler runs, and writes, while the process is
 * shutting down. It must be answered and committed whole, or refused cleanly (an error-shaped 503 and
 * nothing written); never a cut connection, a 500, or an answer whose write is not in the store. A shutdown
 * that exits at once, or closes the store before the requests in flight are done, fails here.
 */
describe('shutdown: a slow write in flight at SIGTERM', function () {
  this.timeout(120_000);
  let server: CompiledProcess | null = null;
  after(async () => {
    await server?.stop('SIGKILL');
  });

  it('is answered and committed whole (or cleanly refused), never cut mid-write; then exit 0', async () => {
    server = await startCompiled({ DNS_WORKERS: '1', LOG_LEVEL: 'info', SHUTDOWN_TIMEOUT_MS: '10000' });
    const s = server;
    const { stdout } = await run(
      process.execPath,
      [distEntry('sandbox-key'), '--rights', 'dns.read,dns.edit', '--label', 'prod', '--json'],
      { cwd: ROOT, env: s.env },
    );
    const key = (JSON.parse(stdout.trim()) as { key: string }).key;
    const zone = 'domivka-demo.com.ua';
    const name = `sigterm-${randomUUID().slice(0, 8)}`;
    const planned = await fetch(`${s.api}/v1/domains/${zone}/dns/plans`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
      body: JSON.stringify({ changes: [{ action: 'create', name, type: 'A', ttl: 300, values: ['192.0.2.77'] }] }),
    });
    const plan = (await planned.json()) as { id: string; valid: boolean };
    expect(planned.status, JSON.stringify(plan)).to.equal(201);
    expect(plan.valid).to.equal(true);

    // The apply: headers and the first byte now, the rest one byte every 40 ms (about 1.6 s) after SIGTERM.
    const body = `{${' '.repeat(40)}}`;
    const socket = connect(s.port, '127.0.0.1');
    let raw = '';
    let cut: string | null = null;
    socket.on('data', (d: Buffer) => (raw += d.toString('utf8')));
    socket.on('error', (e) => (cut = e.message));
    const closed = new Promise<void>((r) => socket.once('close', () => r()));
    await new Promise<void>((r) => socket.once('connect', () => r()));
    socket.write(
      `POST /v1/domains/${zone}/dns/plans/${plan.id}/apply HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\n` +
        `Content-Type: application/json\r\nIdempotency-Key: ${randomUUID()}\r\nContent-Length: ${body.length}\r\n\r\n${body[0]}`,
    );
    await new Promise((r) => setTimeout(r, 300));
    s.child.kill('SIGTERM');
    for (const ch of body.slice(1)) {
      await new Promise((r) => setTimeout(r, 40));
      if (socket.destroyed) break;
      socket.write(ch);
    }
    await Promise.race([closed, new Promise((r) => setTimeout(r, 15_000))]);
    const code = await s.exited;
    const out = s.output();

    const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1] ?? 0);
    expect(cut, `the connection was cut: ${raw || '(no answer)'}\n${out.slice(-2000)}`).to.equal(null);
    expect(status, `answer: ${raw || '(none)'}\n${out.slice(-2000)}`).to.be.oneOf([200, 503]);
    // Answered during the drain: the connection is not kept alive (else it holds the shutdown to its bound).
    expect(raw, 'Connection: close while draining').to.match(/\r\nConnection: close\r\n/i);
    const answer = JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4)) as { serial?: number; error?: { code: string } };
    expect(code, out.slice(-3000)).to.equal(0);

    const db = knexFactory({ client: 'better-sqlite3', connection: { filename: join(s.dir, 'db.sqlite') }, useNullAsDefault: true });
    try {
      const z = await db('dns_zones').where({ domain: zone }).first();
      const records = await db('dns_record_sets').where({ zone_id: z.id, name: `${name}.${zone}`, type: 'A' });
      const applied = await db('dns_plans').where({ id: plan.id }).whereNotNull('applied_at');
      if (status === 200) {
        // Answered: the whole write is there, at the serial the answer gave.
        expect(records, 'the applied record').to.have.length(1);
        expect(applied, 'the plan marked applied').to.have.length(1);
        expect(Number(z.serial)).to.equal(Number(answer.serial));
        expect(
          await db('events')
            .where({ type: 'dns.plan_applied', subject: `domain:${zone}` })
            .andWhere('data', 'like', `%${plan.id}%`),
        ).to.have.length(1);
      } else {
        // Refused cleanly: the error shape, and nothing written.
        expect(answer.error?.code, raw).to.be.a('string');
        expect(records).to.have.length(0);
        expect(applied).to.have.length(0);
      }
    } finally {
      await db.destroy();
    }
    expect(out).to.contain('"msg":"stopped"');
    expect(out).to.not.contain('still in flight at the shutdown bound');
  });
});
