import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { eachStore } from '../support/stores.js';
import { bearer, startApi, type TestApi } from '../support/system.js';
import { expectErrorShape } from '../support/error-shape.js';
import { requireTools } from '../dns/server/tools.js';
import { TOKENS } from '../../src/tokens.js';
import { startParent, startUnboundUnder, RealClock, type Parent } from './parent.js';

/**
 * DESIGN "DNSSEC": DELETE …/dnssec while the parent holds our DS is the class 3 operation `dnssec_disable`:
 * the registry removes the DS, the zone stays signed ("disabling") until the DS TTL has passed, then it is
 * served unsigned. Checked through unbound validating from a real signed parent (Knot) that publishes what
 * the sandbox registry holds: no SERVFAIL across the switch-off. A registry that refuses the removal fails
 * the operation with the zone still signed; a hosted zone whose parent holds the DS gets 409.
 */
const WAIT_S = 3;

eachStore('DNSSEC: switching off with the DS at the parent (dnssec_disable)', (kind) => {
  let api: TestApi;
  let key: string;
  let parent: Parent;
  const zone = 'domivka-demo.com.ua';
  const keeping = `dskeep-${randomUUID().slice(0, 8)}.com.ua`;
  const hosted = `hosted-${randomUUID().slice(0, 8)}.com.ua`;
  before(async function () {
    requireTools(this, 'dig', 'unbound', 'knotd', 'knotc');
    // Real time: the schedule's waits are real seconds, as validators' caches count them.
    api = await startApi(kind, { dns: true, clock: new RealClock(), env: { DNSSEC_TEST_WAIT_SECONDS: String(WAIT_S) } });
    key = (
      await api.issueKey({
        environment: 'test',
        rights: ['dns.dnssec', 'dns.read', 'domain.register', 'domain.read', 'domain.host', 'sandbox.clock'],
        domains: [zone, keeping, hosted],
        conditions: { cidr: '127.0.0.0/8', spend_limit: { amount: 10_000_000, currency: 'UAH' } },
      })
    ).secret;
    parent = await startParent('com.ua', zone);
  });
  after(async () => {
    await parent?.stop();
    await api?.close();
  });

  const call = (method: string, path: string, json?: unknown) =>
    api.call(path, { method, headers: { ...bearer(key), 'idempotency-key': randomUUID() }, ...(json === undefined ? {} : { json }) });
  const travel = (advance: string) => call('POST', '/v1/sandbox/clock', { advance });
  const registryDs = async (domain: string) =>
    (await api.system.store.sandboxRegistry.dsOf(domain)).map((d) => `${d.keyTag} ${d.algorithm} ${d.digestType} ${d.digest}`);
  /** The registry publishes its zone: the parent serves the DS set the sandbox registry holds. */
  const mirror = async () => parent.setDs(await registryDs(zone));
  const notices = async (kind: string) =>
    (await api.system.store.knex('notices').where({ kind })).filter((n: { data: unknown; domain?: string }) =>
      JSON.stringify(n).includes(zone),
    ).length;

  it('202 dnssec_disable; the DS leaves the registry, signing goes on until its TTL passed, then stops: unbound never answers SERVFAIL', async () => {
    const on = await call('PUT', `/v1/domains/${zone}/dnssec`, { algorithm: 13 });
    expect(on.status, JSON.stringify(on.body)).to.equal(200);
    expect((await call('POST', `/v1/domains/${zone}/dnssec/ds`)).status).to.equal(202);
    await travel('PT25H');
    expect((await call('GET', `/v1/domains/${zone}/dnssec`)).body).to.include({ status: 'secure', ds_at_parent: true });
    await mirror();
    const unbound = await startUnboundUnder(parent, 'com.ua', zone, api.dnsPort!, 1);
    const seen: string[] = [];
    const probe = async () => {
      for (const [name, type] of [
        [zone, 'SOA'],
        [`nothing-here.${zone}`, 'A'],
      ] as const) {
        const a = await unbound.query(name, type);
        seen.push(`${a.status}${a.flags.includes('ad') ? '+ad' : ''}`);
      }
    };
    try {
      await probe();
      expect(seen, unbound.log()).to.deep.equal(['NOERROR+ad', 'NXDOMAIN+ad']);

      const off = await call('DELETE', `/v1/domains/${zone}/dnssec`);
      expect(off.status, JSON.stringify(off.body)).to.equal(202);
      expect(off.body).to.include({ kind: 'dnssec_disable', status: 'pending', right: 'dns.dnssec', domain: zone });
      expect(off.body.ds).to.deep.equal(on.body.ds);
      expect(off.headers.get('location')).to.equal(`/v1/operations/${off.body.id}`);
      // Nothing changes until it takes effect.
      expect((await call('GET', `/v1/domains/${zone}/dnssec`)).body).to.include({ status: 'secure', ds_at_parent: true });
      expect(await registryDs(zone)).to.deep.equal(on.body.ds);
      expectErrorShape(await call('DELETE', `/v1/domains/${zone}/dnssec`), 409, 'operation_pending');

      await travel('PT25H');
      const op = (await call('GET', `/v1/operations/${off.body.id}`)).body;
      expect(op.status, JSON.stringify(op)).to.equal('active');
      expect(await registryDs(zone), 'the registry removed the DS').to.deep.equal([]);
      const disabling = (await call('GET', `/v1/domains/${zone}/dnssec`)).body;
      expect(disabling).to.include({ enabled: true, status: 'disabling', ds_at_parent: false });
      expect(Date.parse(disabling.stop_signing_at)).to.be.greaterThan(Date.now());
      // A second DELETE while waiting answers the state as it is; it does not cut the wait short.
      const again = await call('DELETE', `/v1/domains/${zone}/dnssec`);
      expect(again.status).to.equal(200);
      expect(again.body).to.include({ enabled: true, status: 'disabling' });
      expect(await notices('dns.dnssec_disabling'), 'owners told the DS left').to.be.at.least(1);
      await mirror();

      // The worker's passes while the DS TTL runs out and after: the zone is served signed, then unsigned.
      const schedule = api.system.get(TOKENS.RunDnssecSchedule);
      let disabled = 0;
      const until = Date.now() + (WAIT_S + 3) * 1000;
      while (Date.now() < until) {
        disabled += (await schedule.run()).disabled;
        await probe();
        await new Promise((r) => setTimeout(r, 200));
      }
      expect(disabled).to.equal(1);
      expect(
        seen.filter((s) => s.startsWith('SERVFAIL')),
        `${seen.join(' ')}\n${unbound.log()}`,
      ).to.deep.equal([]);
      expect(seen.slice(-2), 'insecure at the end: answers without AD').to.deep.equal(['NOERROR', 'NXDOMAIN']);
      const read = (await call('GET', `/v1/domains/${zone}/dnssec`)).body;
      expect(read).to.include({ enabled: false, status: null });
      const events = await api.system.store.knex('events').where({ type: 'dns.dnssec_disabled' });
      expect(events.map((e: { actor: string }) => e.actor)).to.deep.equal(['system:dnssec']);
      expect(await notices('dns.dnssec_disabled'), 'owners told signing stopped').to.be.at.least(1);
    } finally {
      await unbound.stop();
    }
  });

  it('a registry that refuses to remove the DS fails the operation (dnssec_ds_removal_refused); the zone stays signed and secure; owners told', async () => {
    const reg = await call('POST', '/v1/domains', { domain: keeping, years: 1 });
    expect(reg.status, JSON.stringify(reg.body)).to.be.oneOf([200, 201, 202]);
    expect((await call('PUT', `/v1/domains/${keeping}/dnssec`, { algorithm: 15 })).status).to.equal(200);
    expect((await call('POST', `/v1/domains/${keeping}/dnssec/ds`)).status).to.equal(202);
    await travel('PT25H');
    const held = await registryDs(keeping);
    expect(held).to.have.length(1);
    const off = await call('DELETE', `/v1/domains/${keeping}/dnssec`);
    expect(off.status, JSON.stringify(off.body)).to.equal(202);
    await travel('PT25H');
    const op = (await call('GET', `/v1/operations/${off.body.id}`)).body;
    expect(op.status).to.equal('failed');
    expect(op.failure_reason).to.match(/^dnssec_ds_removal_refused: the registry of .* removes DS records only on request/);
    expect((await call('GET', `/v1/domains/${keeping}/dnssec`)).body).to.include({ enabled: true, status: 'secure', ds_at_parent: true });
    expect(await registryDs(keeping)).to.deep.equal(held);
    const told = (await api.system.store.knex('notices').where({ kind: 'operation.failed' })).filter((n: { data: unknown }) =>
      String(n.data).includes(op.id),
    );
    expect(told.length, 'every owner is told').to.be.at.least(1);
    // The worker does not stop signing a zone whose DS is still at the parent.
    expect((await api.system.get(TOKENS.RunDnssecSchedule).run()).disabled).to.equal(0);
  });

  it('a hosted zone whose parent holds our DS: 409 dnssec_ds_at_parent (we cannot remove it for them)', async () => {
    const h = await call('POST', '/v1/hosted-domains', { domain: hosted });
    expect(h.status, JSON.stringify(h.body)).to.equal(201);
    expect((await call('PUT', `/v1/domains/${hosted}/dnssec`, { algorithm: 13 })).status).to.equal(200);
    // The owner gave our DS to their registrar (recorded as the parent holding it).
    await api.system.store.knex('dnssec_zones').where({ domain: hosted }).update({ ds_at_parent: true, status: 'secure' });
    expectErrorShape(await call('DELETE', `/v1/domains/${hosted}/dnssec`), 409, 'dnssec_ds_at_parent');
    expect((await call('GET', `/v1/domains/${hosted}/dnssec`)).body).to.include({ enabled: true, status: 'secure' });
  });
});
