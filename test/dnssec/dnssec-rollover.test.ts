import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { eachStore } from '../support/stores.js';
import { bearer, startApi, type TestApi } from '../support/system.js';
import { requireTools } from '../dns/server/tools.js';
import { TOKENS } from '../../src/tokens.js';
import { RealClock, startParent, startUnboundUnder, type Parent } from './parent.js';

/**
 * DESIGN "DNSSEC", issue "Keys that roll": an automatic timed CSK rollover and an algorithm rollover
 * (13 → 15, RFC 6781 §4.1.4) with short real-time waits (DNSSEC_TEST_WAIT_SECONDS), validated through
 * unbound from a Knot-signed parent that publishes what the sandbox registry holds, at every step: no
 * SERVFAIL, AD throughout. unbound caps every TTL below the wait (cache-max-ttl), so its caches expire as
 * real ones would over the real TTLs; it is never flushed. The DS swap goes through the registrar port.
 */
const WAIT_S = 3;

eachStore('DNSSEC: key rollovers validated at every step', (kind) => {
  let api: TestApi;
  let key: string;
  let parent: Parent;
  const zone = 'domivka-demo.com.ua';
  before(async function () {
    requireTools(this, 'dig', 'unbound', 'knotd', 'knotc');
    api = await startApi(kind, {
      dns: true,
      clock: new RealClock(),
      env: { DNSSEC_TEST_WAIT_SECONDS: String(WAIT_S), DNSSEC_CSK_LIFETIME_DAYS: '1' },
    });
    key = (
      await api.issueKey({
        environment: 'test',
        rights: ['dns.dnssec', 'dns.read', 'domain.read', 'sandbox.clock'],
        domains: [zone],
        conditions: { cidr: '127.0.0.0/8' },
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
  const registryDs = async () =>
    (await api.system.store.sandboxRegistry.dsOf(zone)).map((d) => `${d.keyTag} ${d.algorithm} ${d.digestType} ${d.digest}`);
  const mirror = async () => parent.setDs(await registryDs());

  /** Runs the worker's DNSSEC pass and probes through unbound until the rollover is over; returns what was seen. */
  const rollThrough = async (unbound: Awaited<ReturnType<typeof startUnboundUnder>>) => {
    const answers: string[] = [];
    const steps: string[] = [];
    const schedule = api.system.get(TOKENS.RunDnssecSchedule);
    const until = Date.now() + 60_000;
    let read = (await call('GET', `/v1/domains/${zone}/dnssec`)).body;
    while (Date.now() < until) {
      await schedule.run();
      await mirror(); // the registry publishes what it holds
      read = (await call('GET', `/v1/domains/${zone}/dnssec`)).body;
      if (read.rollover && steps[steps.length - 1] !== read.rollover.step) steps.push(read.rollover.step);
      for (const [name, type] of [
        [zone, 'SOA'],
        [zone, 'DNSKEY'],
        [`nothing-here.${zone}`, 'A'],
      ] as const) {
        const a = await unbound.query(name, type);
        answers.push(`${a.status}${a.flags.includes('ad') ? '+ad' : ''}`);
      }
      if (read.status !== 'rolling') break;
      await new Promise((r) => setTimeout(r, 300));
    }
    return { answers, steps, read };
  };

  it('an automatic CSK rollover: pre-publish, double signatures, DS replaced at the registry, old key retired; AD at every step', async () => {
    const on = await call('PUT', `/v1/domains/${zone}/dnssec`, { algorithm: 13 });
    expect(on.status, JSON.stringify(on.body)).to.equal(200);
    expect(Date.parse(on.body.next_rollover_at)).to.be.greaterThan(Date.now());
    expect((await call('POST', `/v1/domains/${zone}/dnssec/ds`)).status).to.equal(202);
    // 25 hours on (sandbox clock): the DS operation activates, and the 1-day key lifetime is over.
    await call('POST', '/v1/sandbox/clock', { advance: 'PT25H' });
    expect((await call('GET', `/v1/domains/${zone}/dnssec`)).body).to.include({ status: 'secure', ds_at_parent: true });
    await mirror();
    const unbound = await startUnboundUnder(parent, 'com.ua', zone, api.dnsPort!, WAIT_S - 1);
    try {
      const before = await unbound.query(zone, 'SOA');
      expect(before.flags, unbound.log()).to.include('ad');
      const { answers, steps, read } = await rollThrough(unbound);
      expect(read.status, JSON.stringify(read)).to.equal('secure');
      expect(steps).to.deep.equal(['prepublish', 'double_sign', 'ds_replaced', 'old_unsigned']);
      expect(
        answers.filter((a) => !a.endsWith('+ad')),
        `${answers.join(' ')}\n${unbound.log()}`,
      ).to.deep.equal([]);
      const oldTag = on.body.keys[0].tag;
      expect(read.keys).to.have.length(1);
      expect(read.keys[0]).to.include({ state: 'active', algorithm: 13, role: 'csk' });
      expect(read.keys[0].tag).to.not.equal(oldTag);
      expect(read.keys[0].published_at).to.be.a('string');
      expect(read.last_rollover).to.include({ kind: 'csk', old_key_tag: oldTag, new_key_tag: read.keys[0].tag });
      expect(read.last_rollover.steps.map((s: { step: string }) => s.step)).to.deep.equal([
        'started',
        'prepublish',
        'double_sign',
        'ds_replaced',
        'old_unsigned',
        'done',
      ]);
      expect(await registryDs(), 'the registry holds the new DS only').to.deep.equal(read.ds);
      const events = await api.system.store.knex('events').where({ type: 'dns.dnssec_rollover' }).orderBy('seq');
      expect(events.map((e: { data: string }) => JSON.parse(e.data).step)).to.deep.equal([
        'prepublish',
        'double_sign',
        'ds_replaced',
        'old_unsigned',
        'done',
      ]);
      const notices = await api.system.store.knex('notices').where({ kind: 'dns.dnssec_rollover' });
      expect(notices.length, 'owners told of each step').to.be.at.least(5);
    } finally {
      await unbound.stop();
    }
  });

  it('PUT with the other algorithm: an algorithm rollover 13 → 15, both algorithms signing before the new DNSKEY is relied on; AD at every step', async () => {
    const start = await call('PUT', `/v1/domains/${zone}/dnssec`, { algorithm: 15 });
    expect(start.status, JSON.stringify(start.body)).to.equal(200);
    expect(start.body).to.include({ status: 'rolling' });
    expect(start.body.rollover).to.include({ kind: 'algorithm', step: 'new_signatures' });
    const incoming = start.body.keys.find((k: { algorithm: number }) => k.algorithm === 15);
    expect(incoming.state, 'signs before it is published').to.equal('signing');
    // A second PUT of 15 while rolling changes nothing; 13 again is refused until the rollover ends.
    expect((await call('PUT', `/v1/domains/${zone}/dnssec`, { algorithm: 15 })).body.rollover.step).to.equal('new_signatures');
    const back = await call('PUT', `/v1/domains/${zone}/dnssec`, { algorithm: 13 });
    expect(back.status).to.equal(409);
    expect(back.body.error.code).to.equal('dnssec_rollover_in_progress');
    await mirror();
    const unbound = await startUnboundUnder(parent, 'com.ua', zone, api.dnsPort!, WAIT_S - 1);
    try {
      const { answers, steps, read } = await rollThrough(unbound);
      expect(read.status, JSON.stringify(read)).to.equal('secure');
      expect(steps).to.deep.equal(['new_signatures', 'new_dnskey', 'ds_replaced', 'old_dnskey_removed']);
      expect(
        answers.filter((a) => !a.endsWith('+ad')),
        `${answers.join(' ')}\n${unbound.log()}`,
      ).to.deep.equal([]);
      expect(read).to.include({ algorithm: 15 });
      expect(read.keys.map((k: { algorithm: number; state: string }) => `${k.algorithm}:${k.state}`)).to.deep.equal(['15:active']);
      expect(await registryDs()).to.deep.equal(read.ds);
      expect(read.ds[0]).to.match(/^\d+ 15 2 [0-9A-F]{64}$/);
    } finally {
      await unbound.stop();
    }
  });
});
