import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import knexFactory, { type Knex } from 'knex';
import { freePort } from '../dns/server/tools.js';
import { ROOT } from '../support/server-process.js';
import { eachStore, type FreshStore } from '../support/stores.js';
import { TEST_DATA_KEY_HEX, TEST_PEPPER_HEX } from '../support/system.js';
import { prng } from '../support/prng.js';

/**
 * Crash safety. Registrations, renewals, top-ups, plan applies, certificate requests and transfers in (then cancelled) run
 * with Idempotency-Keys against real API and worker processes (the npm start entry points, each ONE
 * node process so SIGKILL reaches the process that holds the work), which are killed with SIGKILL at
 * random moments CRASH_KILLS times (npm test: 3; npm run test:hostile: 20), restarted, and every request
 * is retried with its key until it gets a final answer. Then the store must hold: no double charge, no
 * pending ledger entry or top-up, balance = sum of posted entries, every domain once, zone serials
 * monotonic and no half-applied plan, and an event for every committed change.
 *
 * Each life also sends client mistakes (an invalid name, zero years, a negative top-up, applying a plan whose
 * record is not valid, an apply of a plan that does not exist, a certificate for a name not in the account):
 * whatever the kills did, each must end in its 4xx and stable code, never a 5xx. Every 5xx the suite sees is
 * counted and printed with its code; a 500 (internal_error) to any request fails the run.
 */
const KILLS = Number(process.env.CRASH_KILLS ?? 3);
const OPS_PER_KIND = Number(process.env.CRASH_OPS ?? 3);
const SEED = Number(process.env.FUZZ_SEED ?? 1414);
const RENEWED = 'domivka-demo.dev';
const PLANNED = 'domivka-demo.com.ua';

interface Procs {
  api: string;
  server: ChildProcess;
  worker: ChildProcess;
}

/** The processes of the life under way: killed after the suite, whatever failed in it. */
let running: Procs | undefined;

/** Starts an entry point; its stderr goes on to the test's, and the last 4,000 characters are kept for a failed start. */
const nodeTsx = (script: string, env: NodeJS.ProcessEnv): { child: ChildProcess; err: () => string } => {
  const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (d: Buffer) => {
    process.stderr.write(d);
    err = (err + d.toString()).slice(-4000);
  });
  return { child, err: () => err };
};

const startProcs = async (baseEnv: NodeJS.ProcessEnv): Promise<Procs> => {
  const port = await freePort();
  const dnsPort = await freePort([port]);
  const env = { ...baseEnv, PORT: String(port), DNS_PORT: String(dnsPort), RUN_WORKER: 'false', DNS_WORKERS: '1' };
  const server = nodeTsx('src/main/server.ts', env);
  const worker = nodeTsx('src/main/worker.ts', env);
  const api = `http://127.0.0.1:${port}`;
  // A start that fails takes both processes down: one left running would hold the test run's output open.
  const fail = async (why: string): Promise<never> => {
    await kill9({ api, server: server.child, worker: worker.child });
    throw new Error(`${why}\nthe server's stderr:\n${server.err()}\nthe worker's stderr:\n${worker.err()}`);
  };
  // Up to 120 s: a start through tsx on a loaded 2-core CI machine once took over the 60 s this waited.
  for (let i = 0; i < 480; i++) {
    if (server.child.exitCode !== null) return fail(`server exited with ${server.child.exitCode}`);
    if (worker.child.exitCode !== null) return fail(`worker exited with ${worker.child.exitCode}`);
    try {
      if ((await fetch(`${api}/healthz`)).ok) return (running = { api, server: server.child, worker: worker.child });
    } catch {
      /* not yet */
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return fail('server did not start');
};

const kill9 = async (p: Procs): Promise<void> => {
  for (const c of [p.server, p.worker]) {
    if (c.exitCode !== null || c.signalCode !== null) continue;
    const gone = new Promise((r) => c.once('exit', r));
    c.kill('SIGKILL');
    await gone;
  }
};

/** One logical operation: a sequence of steps, each a request with its own fixed Idempotency-Key. */
interface Step {
  method: string;
  path: (prev: any) => string;
  body: (prev: any) => unknown;
  idem: string;
}
interface Op {
  name: string;
  kind: 'register' | 'renew' | 'topup' | 'plan' | 'cert' | 'transfer' | 'mistake';
  /** For a client mistake: the status and code it must end with. */
  expect?: { status: number; code: string };
  nr: number;
  steps: Step[];
  at: number;
  prev: any;
  answers: Array<{ status: number; body: any }>;
  done: boolean;
}

const step = (method: string, path: string | ((p: any) => string), body: unknown | ((p: any) => unknown)): Step => ({
  method,
  idem: randomUUID(),
  path: typeof path === 'function' ? path : () => path,
  body: typeof body === 'function' ? (body as (p: any) => unknown) : () => body,
});

/** One life's batch: n of each kind, numbered from `from` (a plan's record name carries its number). */
const makeOps = (n: number, from: number): Op[] => {
  const ops: Op[] = [];
  const op = (name: string, kind: Op['kind'], steps: Step[], nr = 0, expected?: Op['expect']) =>
    ops.push({ name, kind, nr, steps, at: 0, prev: null, answers: [], done: false, ...(expected ? { expect: expected } : {}) });
  const mistake = (name: string, s: Step | Step[], status: number, code: string) =>
    op(name, 'mistake', Array.isArray(s) ? s : [s], 0, { status, code });
  for (let i = from; i < from + n; i++) {
    op(`register crash-${i}`, 'register', [
      step('POST', '/v1/domains', { domain: `crash-${i}-${randomUUID().slice(0, 8)}.com.ua`, years: 1 }),
    ]);
    op(`renew #${i}`, 'renew', [step('POST', `/v1/domains/${RENEWED}/renewals`, { years: 1 })]);
    op(`top-up #${i}`, 'topup', [step('POST', '/v1/billing/topups', { amount: 10_000 + i })]);
    op(
      `plan #${i}`,
      'plan',
      [
        step('POST', `/v1/domains/${PLANNED}/dns/plans`, {
          changes: [{ action: 'create', name: `crash-${i}`, type: 'A', ttl: 300, values: [`192.0.2.${(i % 250) + 1}`] }],
        }),
        step('POST', (p) => `/v1/domains/${PLANNED}/dns/plans/${p.id}/apply`, {}),
      ],
      i,
    );
    op(`certificate #${i}`, 'cert', [step('POST', '/v1/certificates', { domains: [i % 2 ? `crash-${i}.${PLANNED}` : `www.${PLANNED}`] })]);
    // A transfer in (money reserved at the request), then its cancellation (the reservation voided): once each.
    const transferred = `transfer-crash-${i}-${randomUUID().slice(0, 8)}.com.ua`;
    op(`transfer ${transferred}`, 'transfer', [
      step('POST', `/v1/domains/${transferred}/transfers`, { auth_code: 'sandbox-auth-ok' }),
      step('POST', (p) => `/v1/domains/${transferred}/transfers/${p.id}/cancel`, {}),
    ]);
  }
  // Client mistakes, one of each per life.
  mistake(
    `mistake: invalid name #${from}`,
    step('POST', '/v1/domains', { domain: `not a name ${from}!`, years: 1 }),
    422,
    'domain_invalid',
  );
  mistake(`mistake: zero years #${from}`, step('POST', `/v1/domains/${RENEWED}/renewals`, { years: 0 }), 422, 'validation_failed');
  mistake(`mistake: negative top-up #${from}`, step('POST', '/v1/billing/topups', { amount: -500 }), 422, 'validation_failed');
  mistake(
    `mistake: apply an invalid plan #${from}`,
    [
      step('POST', `/v1/domains/${PLANNED}/dns/plans`, {
        changes: [{ action: 'create', name: `bad-${from}`, type: 'A', ttl: 300, values: ['not-an-address'] }],
      }),
      step('POST', (p) => `/v1/domains/${PLANNED}/dns/plans/${p.id}/apply`, {}),
    ],
    422,
    'plan_invalid',
  );
  mistake(
    `mistake: unknown plan #${from}`,
    step('POST', `/v1/domains/${PLANNED}/dns/plans/${randomUUID()}/apply`, {}),
    404,
    'plan_not_found',
  );
  mistake(`mistake: foreign certificate #${from}`, step('POST', '/v1/certificates', { domains: ['example.org'] }), 403, 'right_missing');
  return ops;
};

/** A final answer: anything but a transport failure, a 5xx or "busy, retry" (409 idempotency_key_in_use: the
 * key is still locked to a cut-off attempt; 409 operation_in_progress: the domain is leased, perhaps by a
 * dead process whose lease has yet to run out; 409 zone_busy: other writes of the zone won every attempt). */
const RETRY_409 = new Set(['idempotency_key_in_use', 'operation_in_progress', 'zone_busy']);
const isFinal = (status: number, body: any) => status < 500 && !(status === 409 && RETRY_409.has(body?.error?.code));

/** Drives every unfinished op until it is done or the processes die under it. */
const seenFailures = { transport: 0, retried409: 0, fiveXX: [] as string[] };
const drive = async (
  ops: Op[],
  api: string,
  token: string,
  stop: { dead: boolean },
  onAnswer: () => void = () => undefined,
): Promise<void> => {
  await Promise.all(
    ops
      .filter((o) => !o.done)
      .map(async (o) => {
        while (!o.done && !stop.dead) {
          const s = o.steps[o.at]!;
          let status: number;
          let body: any;
          try {
            const res = await fetch(api + s.path(o.prev), {
              method: s.method,
              headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': s.idem },
              body: JSON.stringify(s.body(o.prev)),
            });
            status = res.status;
            const text = await res.text();
            body = text ? JSON.parse(text) : undefined;
          } catch {
            seenFailures.transport++;
            if (stop.dead) return;
            await new Promise((r) => setTimeout(r, 50));
            continue;
          }
          if (status >= 500) {
            seenFailures.fiveXX.push(`${o.name}: ${status} ${body?.error?.code ?? '(no code)'}`);
            // A client mistake is final at its first 5xx: the assertions below name it.
            if (o.kind === 'mistake' && !stop.dead) {
              o.answers[o.at] = { status, body };
              o.done = true;
              continue;
            }
          } else if (!isFinal(status, body)) seenFailures.retried409++;
          if (!isFinal(status, body)) {
            await new Promise((r) => setTimeout(r, 100));
            continue;
          }
          if (stop.dead) return; // answered as the processes died: the next life retries it with its key
          o.answers[o.at] = { status, body };
          o.prev = body;
          onAnswer();
          if (status >= 300 || o.at === o.steps.length - 1) o.done = true;
          else o.at++;
        }
      }),
  );
};

const count = async (db: Knex, table: string, where: Record<string, unknown> = {}): Promise<number> =>
  Number((await db(table).where(where).count({ n: '*' }).first())!.n);

eachStore('Hostile: crash safety (kill -9 of API and worker, retries with Idempotency-Keys)', (kind) => {
  let store: FreshStore;
  let baseEnv: NodeJS.ProcessEnv;
  let db: Knex;

  before(async function () {
    this.timeout(180_000);
    store = await kind.fresh();
    const dir = mkdtempSync(join(tmpdir(), 'crash-'));
    baseEnv = {
      ...process.env,
      DATABASE_URL: store.url,
      ...(store.schema ? { DATABASE_SCHEMA: store.schema } : {}),
      VAR_DIR: dir,
      KEY_PEPPER: TEST_PEPPER_HEX,
      DATA_KEY: TEST_DATA_KEY_HEX,
      LOG_LEVEL: 'error',
      RATE_LIMIT_BURST: '100000',
      RATE_LIMIT_ANON_BURST: '100000',
      ARGON2_MEMORY_KIB: '1024',
      ARGON2_TIME_COST: '1',
      // A request cut by a kill keeps its key locked this long; the retries then take it over (and resume).
      IDEMPOTENCY_LOCK_SECONDS: '3',
    };
    db = knexFactory(
      store.engine === 'sqlite'
        ? { client: 'better-sqlite3', connection: { filename: store.url }, useNullAsDefault: true }
        : { client: 'pg', connection: store.url, searchPath: [store.schema!], pool: { min: 0, max: 2 } },
    );
  });
  after(async () => {
    if (running) await kill9(running);
    await db?.destroy();
    await store?.drop();
  });

  it(`${OPS_PER_KIND * 5} operations per life through ${KILLS} SIGKILLs: no double charge, nothing pending, every domain once, no half plan, every change has its event`, async function () {
    this.timeout(1_800_000);
    const rand = prng(SEED);
    seenFailures.transport = 0;
    seenFailures.retried409 = 0;
    seenFailures.fiveXX = [];
    let procs = await startProcs(baseEnv);
    // The key, through the same issuance a human uses (npm run sandbox:key).
    const issued = await new Promise<string>((resolve, reject) => {
      const c = spawn(
        process.execPath,
        [
          '--import',
          'tsx',
          'src/main/sandbox-key.ts',
          '--rights',
          'domain.read,domain.register,domain.renew,billing.read,billing.topup,dns.edit,cert.issue',
          '--label',
          'prod',
          '--cidr',
          '127.0.0.0/8',
          '--spend-limit',
          '100000',
          '--json',
        ],
        { cwd: ROOT, env: baseEnv, stdio: ['ignore', 'pipe', 'inherit'] },
      );
      let out = '';
      c.stdout!.on('data', (d) => (out += d));
      c.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`sandbox:key exited ${code}`))));
    });
    const token = JSON.parse(issued.trim().split('\n').at(-1)!).key as string;
    const ops: Op[] = [];
    const serialsBefore = await db('dns_zones').where({ domain: PLANNED }).first();

    // Each life gets a new batch on top of what is still open, and dies after a random number of
    // answers (or a random moment, whichever is first): requests are in flight when SIGKILL lands.
    for (let k = 0; k < KILLS; k++) {
      ops.push(...makeOps(OPS_PER_KIND, k * OPS_PER_KIND));
      const open = ops.filter((o) => !o.done).length;
      const target = 1 + Math.floor(rand() * Math.max(1, open - 1));
      let answered = 0;
      let reached!: () => void;
      const enough = new Promise<void>((r) => (reached = r));
      const stop = { dead: false };
      const run = drive(ops, procs.api, token, stop, () => {
        if (++answered >= target) reached();
      });
      await Promise.race([enough, new Promise((r) => setTimeout(r, 200 + Math.floor(rand() * 3000)))]);
      stop.dead = true;
      await kill9(procs);
      await run;
      procs = await startProcs(baseEnv);
    }
    // The last life: everything gets its final answer; then the worker finishes what it holds.
    await drive(ops, procs.api, token, { dead: false });
    const until = Date.now() + 60_000;
    while (
      Date.now() < until &&
      ((await count(db, 'certificates', { status: 'pending' })) > 0 || (await count(db, 'topups', { status: 'pending' })) > 0)
    )
      await new Promise((r) => setTimeout(r, 250));
    await kill9(procs);

    // The kills landed on requests in flight (else this suite would prove nothing about crashes).
    if (KILLS > 0) expect(seenFailures.transport, 'requests cut by a kill').to.be.greaterThan(0);
    const summary = ops.map(
      (o) => `${o.name}: ${o.answers.map((a) => `${a.status}${a.body?.error ? ` ${a.body.error.code}` : ''}`).join(' → ')}`,
    );
    const ok = (o: Op) => o.answers.length === o.steps.length && o.answers.every((a) => a.status >= 200 && a.status < 300);
    // Every op got a final answer.
    expect(
      ops.every((o) => o.done),
      summary.join('\n'),
    ).to.equal(true);
    // Client mistakes: their 4xx and code, whatever the kills did; no 5xx to them; no 500 to anything.
    const mistakes = ops.filter((o) => o.kind === 'mistake');
    expect(mistakes.length).to.equal(6 * KILLS);
    expect(
      mistakes.map((o) => `${o.name}: ${o.answers.at(-1)?.status} ${o.answers.at(-1)?.body?.error?.code}`),
      `client mistakes (5xx seen: ${seenFailures.fiveXX.join('; ') || 'none'})`,
    ).to.deep.equal(mistakes.map((o) => `${o.name}: ${o.expect!.status} ${o.expect!.code}`));
    expect(
      seenFailures.fiveXX.filter((f) => f.startsWith('mistake')),
      'a client mistake got a 5xx',
    ).to.deep.equal([]);
    expect(
      seenFailures.fiveXX.filter((f) => / 500 /.test(f)),
      'a 500 (internal_error) answered a request',
    ).to.deep.equal([]);

    // Ledger: nothing pending; balance = sum of posted entries; one charge per successful op.
    const env = { environment: 'test' };
    expect(await count(db, 'ledger_entries', { ...env, status: 'pending' }), 'pending ledger entries').to.equal(0);
    expect(await count(db, 'topups', { ...env, status: 'pending' }), 'pending top-ups').to.equal(0);
    const wallets = await db('wallets').where(env);
    for (const w of wallets) {
      const posted = Number(
        (await db('ledger_entries')
          .where({ account_id: w.account_id, environment: w.environment, status: 'posted' })
          .sum({ s: 'amount' })
          .first())!.s ?? 0,
      );
      expect(Number(w.balance), 'balance = sum of posted entries').to.equal(posted);
    }
    for (const o of ops.filter((x) => x.kind === 'register')) {
      const name = (o.steps[0]!.body(null) as { domain: string }).domain;
      const charges = await count(db, 'ledger_entries', { domain: name, kind: 'registration' });
      const rows = await count(db, 'domains', { name });
      expect(charges, `${o.name} charges (${summary.join('; ')})`).to.equal(ok(o) ? 1 : 0);
      expect(rows, `${o.name} domain rows`).to.equal(ok(o) ? 1 : 0);
      expect(await count(db, 'events', { type: 'domain.registered', subject: `domain:${name}` }), `${o.name} event`).to.equal(
        ok(o) ? 1 : 0,
      );
    }
    // Transfers: one reservation per accepted request, voided by its cancellation; one event of each; no domain.
    for (const o of ops.filter((x) => x.kind === 'transfer')) {
      const name = o.name.slice('transfer '.length);
      const accepted = o.answers[0]?.status === 202;
      const entries = await db('ledger_entries').where({ domain: name, kind: 'transfer' });
      expect(
        entries.map((e: { status: string }) => e.status),
        `${o.name} (${summary.join('; ')})`,
      ).to.deep.equal(accepted ? ['voided'] : []);
      expect(
        await count(db, 'events', { type: 'domain.transfer_in_requested', subject: `domain:${name}` }),
        `${o.name} requested`,
      ).to.equal(accepted ? 1 : 0);
      expect(
        await count(db, 'events', { type: 'domain.transfer_in_cancelled', subject: `domain:${name}` }),
        `${o.name} cancelled`,
      ).to.equal(ok(o) ? 1 : 0);
      expect(await count(db, 'domains', { name }), `${o.name} domain rows`).to.equal(0);
      expect(await count(db, 'domain_transfers', { domain: name }), `${o.name} transfers`).to.equal(accepted ? 1 : 0);
    }
    const renewals = ops.filter((o) => o.kind === 'renew' && ok(o)).length;
    const renewCharges = (
      await db('ledger_entries')
        .where({ domain: RENEWED, ...env, status: 'posted' })
        .whereNot({ kind: 'registration' })
        .where('amount', '<', 0)
    ).length;
    expect(renewCharges, `one charge per renewal (${summary.filter((x) => x.startsWith('renew')).join('; ')})`).to.equal(renewals);
    expect(await count(db, 'events', { type: 'domain.renewed', subject: `domain:${RENEWED}` }), 'renewal events').to.equal(renewals);
    const topups = ops.filter((o) => o.kind === 'topup' && ok(o)).length;
    expect(await count(db, 'ledger_entries', { kind: 'topup', ...env, status: 'posted' }), 'one credit per top-up').to.equal(topups);
    expect(await count(db, 'events', { type: 'billing.topup_succeeded' }), 'top-up events').to.equal(topups);

    // Zones: each applied plan's record is there (and no other's); the serial only grew; one event per apply.
    const zone = await db('dns_zones').where({ domain: PLANNED }).first();
    expect(Number(zone.serial)).to.be.at.least(Number(serialsBefore.serial));
    let applied = 0;
    for (const o of ops.filter((x) => x.kind === 'plan')) {
      const name = `crash-${o.nr}.${PLANNED}`;
      const present = await count(db, 'dns_record_sets', { zone_id: zone.id, name, type: 'A' });
      if (ok(o)) applied++;
      expect(present, `${o.name} (${summary.join('; ')})`).to.equal(ok(o) ? 1 : 0);
      if (ok(o)) expect(Number(o.answers[1]!.body.serial)).to.be.at.most(Number(zone.serial));
    }
    expect(
      await count(db, 'dns_plans', { domain: PLANNED }).then(async () =>
        Number((await db('dns_plans').whereNotNull('applied_at').count({ n: '*' }).first())!.n),
      ),
      'applied plans',
    ).to.equal(applied);
    expect(await count(db, 'events', { type: 'dns.plan_applied', subject: `domain:${PLANNED}` }), 'plan events').to.equal(applied);
    // Certificates: one row and one certificate.requested event per accepted request.
    const certs = ops.filter((o) => o.kind === 'cert' && ok(o));
    for (const o of certs) {
      expect(await count(db, 'certificates', { id: o.answers[0]!.body.id }), o.name).to.equal(1);
      expect(
        await count(db, 'events', { type: 'certificate.requested', subject: `certificate:${o.answers[0]!.body.id}` }),
        `${o.name} event`,
      ).to.equal(1);
    }
    expect(await count(db, 'certificates', env), 'no certificate without its request').to.equal(certs.length);
    console.log(
      `      crash safety [${kind.engine}]: ${KILLS} SIGKILLs, ${ops.length} operations (${ops.filter(ok).length} succeeded), ${seenFailures.transport} requests cut by a kill, ${seenFailures.retried409} retried after a busy 409, ${seenFailures.fiveXX.length} 5xx answers (${seenFailures.fiveXX.join('; ') || 'none'}); ${summary.filter((s) => !/: 2\d\d( → 2\d\d)?$/.test(s)).join('; ') || 'all 2xx'}`,
    );
  });
});
