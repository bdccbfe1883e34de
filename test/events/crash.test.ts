import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { Webhook as Verifier } from 'standardwebhooks';
import { System } from '../../src/system.js';
import { TOKENS } from '../../src/tokens.js';
import { ROOT } from '../support/server-process.js';
import { eachStore, type FreshStore } from '../support/stores.js';
import { TEST_DATA_KEY_HEX, TEST_PEPPER_HEX, testConfig } from '../support/system.js';
import { Receiver } from './support.js';

const WORKER_ENV = {
  WEBHOOKS_ALLOW_LOOPBACK: '1',
  WEBHOOKS_LEASE_MS: '5000',
  WEBHOOKS_TIMEOUT_MS: '2000',
  WEBHOOKS_POLL_MS: '50',
  WEBHOOKS_PER_ENDPOINT: '1',
};

const startWorker = (store: FreshStore): ChildProcess =>
  // node itself (not the tsx wrapper, which would leave its child running on SIGKILL), so kill -9 kills the worker.
  spawn(process.execPath, ['--import', 'tsx', 'src/main/worker.ts'], {
    cwd: ROOT,
    stdio: 'ignore',
    env: {
      ...process.env,
      DATABASE_URL: store.url,
      ...(store.schema ? { DATABASE_SCHEMA: store.schema } : {}),
      VAR_DIR: '/tmp',
      KEY_PEPPER: TEST_PEPPER_HEX,
      DATA_KEY: TEST_DATA_KEY_HEX,
      LOG_LEVEL: 'silent',
      SEED_DEMO: 'false',
      ...WORKER_ENV,
    },
  });

const until = async (what: string, ok: () => boolean | Promise<boolean>, ms = 60_000): Promise<void> => {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

/**
 * A crash between commit and send loses nothing. A real worker process (npm run worker) is
 * killed with SIGKILL while the receiver holds a delivery open; a new worker takes over once the lease
 * runs out; every event reaches the endpoint, and none is acknowledged (2xx) twice.
 */
eachStore('Webhooks survive kill -9 of the worker mid-delivery', (kind) => {
  let store: FreshStore;
  let system: System;
  let rx: Receiver;
  const children: ChildProcess[] = [];
  let holding = true;
  before(async () => {
    store = await kind.fresh();
    system = new System(testConfig(store, WORKER_ENV), { logger: pino({ level: 'silent' }) });
    await system.migrate();
    await system.get(TOKENS.SeedDemo).execute();
    rx = await new Receiver(() => (holding ? { status: 200, hold: true } : { status: 200, body: 'ok' })).start();
  });
  after(async () => {
    for (const c of children) {
      if (c.exitCode !== null || c.signalCode !== null) continue;
      const exited = new Promise((r) => c.once('exit', r));
      c.kill('SIGKILL');
      await exited;
    }
    await rx.stop();
    await system.close();
    await store.drop();
  });

  it('kill -9 mid-delivery, restart: every event delivered, none twice to the 2xx endpoint', async () => {
    const s = system.store;
    const accountId = (await s.knex('accounts').first('id')).id as string;
    const secret = `whsec_${Buffer.alloc(24, 9).toString('base64')}`;
    const now = new Date();
    await s.webhooks.insert({
      id: 'wh_crash',
      accountId,
      environment: 'test',
      url: rx.url('/hook'),
      description: null,
      events: ['*'],
      domains: null,
      enabled: true,
      disabledReason: null,
      secretSealed: system.get(TOKENS.SecretBox).seal(secret),
      oldSecretSealed: null,
      oldSecretExpiresAt: null,
      failingSince: null,
      createdBy: 'test',
      createdAt: now,
      updatedAt: now,
    });
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) {
      const id = randomUUID();
      ids.push(id);
      await s.uow.transaction(() =>
        s.events.append({
          id,
          accountId,
          environment: 'test',
          type: 'domain.renewed',
          subject: 'domain:domivka-demo.dev',
          actor: 'test',
          occurredAt: new Date(),
          data: { domain: 'domivka-demo.dev' },
        }),
      );
    }
    const first = startWorker(store);
    children.push(first);
    await until('the first delivery to reach the receiver', () => rx.received.length > 0);
    // The worker is inside an attempt (the receiver holds it): kill it without any chance to clean up.
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));
    const heldBeforeCrash = rx.received.length;
    expect(heldBeforeCrash).to.be.at.least(1);
    holding = false;
    const second = startWorker(store);
    children.push(second);
    const acked = () => rx.received.filter((r) => r.status >= 200 && r.status < 300);
    await until('every event acknowledged', () => new Set(acked().map((r) => r.headers['webhook-id'])).size === ids.length, 90_000);
    await new Promise((r) => setTimeout(r, 1000)); // anything extra would arrive now
    second.kill('SIGTERM');
    await new Promise((r) => (second.exitCode !== null || second.signalCode !== null ? r(null) : second.once('exit', r)));
    const twice = acked().map((r) => r.headers['webhook-id'] as string);
    expect(twice.length, 'no event acknowledged twice').to.equal(ids.length);
    expect(new Set(twice)).to.deep.equal(new Set(ids));
    // The held (unacknowledged) attempt was sent again after the lease ran out: at least once.
    const held = rx.received.slice(0, heldBeforeCrash).map((r) => r.headers['webhook-id']);
    for (const h of held) expect(twice).to.include(h);
    // Every delivery signed correctly; in event order per endpoint, except the one whose lease had to run
    // out first ("in order where possible": the others are not held back by it).
    for (const r of acked()) new Verifier(secret).verify(r.body, r.headers as Record<string, string>);
    expect(twice.filter((x) => !held.includes(x))).to.deep.equal(ids.filter((x) => !held.includes(x)));
    const rows = await s.knex('webhook_deliveries').where({ webhook_id: 'wh_crash' });
    expect(rows.every((d: any) => d.status === 'delivered')).to.equal(true);
  });
});
