import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import knexFactory from 'knex';
import { startServerProcess, ROOT, type ServerProcess } from '../support/server-process.js';
import { eachStore, type FreshStore } from '../support/stores.js';
import { dig, digAxfr, requireTools } from '../dns/server/tools.js';

const run = promisify(execFile);
const ZONE = 'domivka-demo.dev';

/** One record as dig prints it, whitespace normalised: "name ttl class type data". */
const line = (l: string): string => l.trim().split(/\s+/).join(' ');

/** dig's records of a transfer over TCP (AXFR, or IXFR from `serial`). */
const transfer = async (port: number, kind: string): Promise<string[]> => {
  const { stdout } = await run(
    'dig',
    ['@127.0.0.1', '-p', String(port), '+tcp', '+time=5', '+tries=1', '+nocmd', '+nostats', '+nocomments', kind, ZONE],
    { timeout: 20_000, maxBuffer: 64 * 1024 * 1024 },
  );
  return stdout
    .split('\n')
    .filter((l) => l.trim() && !l.startsWith(';'))
    .map(line);
};

const serialOf = (soa: string): number => Number(soa.split(' ')[6]);

/**
 * An incremental IXFR (RFC 1995 §4: new SOA, then per step the old SOA, deletions, the new SOA, additions,
 * and the new SOA last) applied to the records of the older AXFR.
 */
const applyIxfr = (old: readonly string[], ixfr: readonly string[]): string[] => {
  const records = new Set(old.slice(0, -1)); // an AXFR repeats its SOA at the end
  let deleting = false;
  for (let i = 1; i < ixfr.length - 1; i++) {
    const r = ixfr[i]!;
    if (r.split(' ')[3] === 'SOA') deleting = !deleting; // an old SOA opens the deletions, the new one the additions
    if (deleting) records.delete(r);
    else records.add(r);
  }
  return [...records].sort();
};

/**
 * README "DNSSEC: one signer": with DNS_WORKERS=2 the zone is signed once, by the process that runs the
 * cluster, and every worker serves the stored signatures — the same RRSIG octets whichever worker answers
 * (algorithm 13 signatures are randomized: two signers would never agree), and an IXFR after a plan that
 * matches the AXFR of whichever worker answers it.
 */
eachStore('DNSSEC with DNS_WORKERS=2: one signer, the same signatures from every worker', (kind) => {
  let server: ServerProcess;
  let store: FreshStore;
  let key: string;

  before(async function () {
    this.timeout(180_000);
    requireTools(this, 'dig');
    store = await kind.fresh();
    server = await startServerProcess({
      DNS_WORKERS: '2',
      ...(store.engine === 'postgres' ? { DATABASE_URL: store.url, DATABASE_SCHEMA: store.schema! } : {}),
    });
    const issued = await run(
      join(ROOT, 'node_modules', '.bin', 'tsx'),
      ['src/main/sandbox-key.ts', '--rights', 'dns.dnssec,dns.edit,dns.read', '--domains', ZONE, '--cidr', '127.0.0.0/8', '--json'],
      { cwd: ROOT, env: server.env, timeout: 60_000 },
    );
    key = (JSON.parse(issued.stdout.trim()) as { key: string }).key;
  });
  after(async () => {
    await server?.stop();
    await store?.drop();
  });

  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${server.api}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'idempotency-key': randomUUID(), 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  const storedSignature = async (rrset: string): Promise<string[]> => {
    const db =
      store.engine === 'postgres'
        ? knexFactory({ client: 'pg', connection: store.url, searchPath: [store.schema!], pool: { min: 0, max: 1 } })
        : knexFactory({ client: 'better-sqlite3', connection: { filename: server.env.DATABASE_URL! }, useNullAsDefault: true });
    try {
      const rows: Array<{ rdata: string }> = await db('dnssec_signatures').where({ rrset });
      return rows.map((r) =>
        Buffer.from(r.rdata, 'base64')
          .subarray(18 + ZONE.length + 2)
          .toString('base64'),
      );
    } finally {
      await db.destroy();
    }
  };

  it('every answer carries the one stored signature, over UDP from both workers and over TCP', async function () {
    this.timeout(120_000);
    const on = await call('PUT', `/v1/domains/${ZONE}/dnssec`, { algorithm: 13 });
    expect(on.status, JSON.stringify(on.body)).to.equal(200);
    // Every worker serves the signed version within a few seconds (as DNS UPDATE's cluster test allows).
    const deadline = Date.now() + 10_000;
    for (;;) {
      const probes = await Promise.all(Array.from({ length: 8 }, () => dig(server.dnsPort, ZONE, 'SOA', '+dnssec')));
      if (probes.every((a) => a.answer.some((r) => r.type === 'RRSIG')) || Date.now() > deadline) break;
      await new Promise((res) => setTimeout(res, 200));
    }
    const sigs = new Set<string>();
    const serials = new Set<string>();
    // Each dig asks from a new source port: SO_REUSEPORT spreads them over both workers' sockets.
    for (let i = 0; i < 40; i++) {
      const a = await dig(server.dnsPort, ZONE, 'SOA', '+dnssec', ...(i % 4 === 3 ? ['+tcp'] : []));
      const rrsig = a.answer.find((r) => r.type === 'RRSIG');
      expect(rrsig, JSON.stringify(a)).to.not.equal(undefined);
      sigs.add(rrsig!.data.split(' ').slice(8).join(''));
      serials.add(a.answer.find((r) => r.type === 'SOA')!.data.split(' ')[2]!);
    }
    expect(serials.size).to.equal(1);
    expect([...sigs]).to.have.length(1);
    // The served signature is the stored one: the workers serve what the signer stored.
    expect(await storedSignature(`${ZONE}/6`)).to.deep.equal([...sigs]);
  });

  it('after a plan, an IXFR from the last serial matches an AXFR, from whichever worker answers', async function () {
    this.timeout(120_000);
    const before = await transfer(server.dnsPort, 'axfr');
    const oldSerial = serialOf(before[0]!);
    const plan = await call('POST', `/v1/domains/${ZONE}/dns/plans`, {
      changes: [{ action: 'create', name: 'signed-ixfr', type: 'A', ttl: 300, values: ['192.0.2.77'] }],
    });
    expect(plan.body.valid, JSON.stringify(plan.body)).to.equal(true);
    expect((await call('POST', `/v1/domains/${ZONE}/dns/plans/${String(plan.body.id)}/apply`, {})).status).to.equal(200);

    const axfrs = new Set<string>();
    let after: string[] = [];
    for (let i = 0; i < 6; i++) {
      after = await transfer(server.dnsPort, 'axfr');
      axfrs.add(JSON.stringify([...after].sort()));
    }
    expect(axfrs.size, 'every worker transfers the same signed zone').to.equal(1);
    expect(serialOf(after[0]!)).to.not.equal(oldSerial);
    expect(after.some((r) => r.startsWith(`signed-ixfr.${ZONE}.`) && r.includes(' RRSIG A '))).to.equal(true);

    for (let i = 0; i < 6; i++) {
      const ixfr = await transfer(server.dnsPort, `ixfr=${oldSerial}`);
      // Incremental (the old SOA second), not an AXFR-style answer.
      expect(serialOf(ixfr[1]!), ixfr.slice(0, 3).join('\n')).to.equal(oldSerial);
      expect(applyIxfr(before, ixfr)).to.deep.equal([...new Set(after.slice(0, -1))].sort());
    }
    // The signatures of the RRsets the plan did not touch were kept, not made again.
    const www = (await digAxfr(server.dnsPort, ZONE)).records.filter((r) => r.type === 'RRSIG' && r.data.startsWith('NS '));
    expect(before.filter((r) => r.includes(' RRSIG NS ')).map((r) => r.split(' ').slice(12).join(''))).to.deep.equal(
      www.map((r) => r.data.split(' ').slice(8).join('')),
    );
  });
});
