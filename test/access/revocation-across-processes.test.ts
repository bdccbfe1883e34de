import { expect } from 'chai';
import { expectErrorShape } from '../support/error-shape.js';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { System } from '../../src/system.js';
import { Worker } from '../../src/worker.js';
import { TestClock } from '../support/clock.js';
import { eachStore } from '../support/stores.js';
import { bearer, startApi, testConfig, type TestApi } from '../support/system.js';

/**
 * DESIGN: revocation takes effect at once in the process that revokes and within 5 seconds
 * everywhere else. A second System over the same store stands in for another API process.
 */
eachStore('Revocation across processes', (kind) => {
  let api: TestApi;
  let other: System;
  let otherBase: string;
  let close: () => Promise<void>;
  before(async () => {
    api = await startApi(kind);
    other = new System(testConfig(api.store), { clock: new TestClock(), logger: pino({ level: 'silent' }) });
    const server = other.http().app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    other.markStarted();
    otherBase = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = async () => {
      server.close();
      server.closeAllConnections();
      await other.close();
    };
  });
  after(async () => {
    await close();
    await api.close();
  });

  it('another process refuses a revoked key within 5 seconds', async function () {
    this.timeout(15_000);
    const cookie = await api.signIn();
    const k = await api.issueKey({ environment: 'test', rights: ['domain.read'], domains: ['domivka-demo.dev'] }, cookie);
    const readThereFully = async () => {
      const r = await fetch(`${otherBase}/v1/domains/domivka-demo.dev`, { headers: bearer(k.secret) });
      return { status: r.status, headers: r.headers, body: await r.json() };
    };
    const readThere = async () => (await readThereFully()).status;
    expect(await readThere()).to.equal(200); // now cached over there
    const revokedAt = Date.now();
    await api.call(`/v1/account/keys/${k.id}`, { method: 'DELETE', headers: { cookie } });
    expectErrorShape(await api.call('/v1/domains/domivka-demo.dev', { headers: bearer(k.secret) }), 401, 'key_revoked');
    let status = await readThere();
    while (status === 200 && Date.now() - revokedAt < 6000) {
      await new Promise((r) => setTimeout(r, 250));
      status = await readThere();
    }
    expect(status).to.equal(401);
    expect(Date.now() - revokedAt).to.be.below(5000);
    expectErrorShape(await readThereFully(), 401, 'key_revoked');
  });

  it('the worker purges idempotency records older than 24 hours', async () => {
    const store = api.system.store;
    const old = new Date(Date.now() - 25 * 60 * 60 * 1000);
    await store.idempotency.claim('key:x', 'old', 'f', old, 't1');
    await store.idempotency.claim('key:x', 'new', 'f', new Date(), 't2');
    const r = await new Worker(api.system).tick(new Date());
    expect(r.idempotencyPurged).to.equal(1);
    expect(await store.knex('idempotency_keys').where({ scope: 'key:x' }).pluck('key')).to.deep.equal(['new']);
  });
});
