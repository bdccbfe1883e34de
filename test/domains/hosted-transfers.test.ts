import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { requireTools, udpQuestion } from '../dns/server/tools.js';
import { expectErrorShape } from '../support/error-shape.js';
import { eachStore } from '../support/stores.js';
import { bearer, startApi, type TestApi } from '../support/system.js';

const run = promisify(execFile);
const LIMITS = { cidr: '127.0.0.0/8', spend_limit: { amount: 5_000_000, currency: 'UAH' } };
const NAMES = [
  'transfer-hosted.com.ua',
  'transfer-unverified.com.ua',
  'transfer-leaving.com.ua',
  'transfer-dropped.com.ua',
  'race-hosted.com',
];

/** One UDP question to our server: the rcode and the A values answered. */
const ask = async (port: number, name: string): Promise<{ rcode: string; values: string[] }> => {
  const p = await udpQuestion(port, name, 'A');
  return {
    rcode: p.rcode ?? '',
    values: (p.answers ?? []).filter((a) => a.type === 'A').map((a) => String((a as { data: unknown }).data)),
  };
};

/** Asks until `done` holds or 3 s pass; returns the last answer. */
const settled = async <T>(ask: () => Promise<T>, done: (v: T) => boolean): Promise<T> => {
  const until = Date.now() + 3000;
  for (;;) {
    const v = await ask();
    if (done(v) || Date.now() > until) return v;
    await new Promise((r) => setTimeout(r, 20));
  }
};

/**
 * Where hosted domains and transfers meet (DESIGN: domains born elsewhere; issue 22 items 4 and 5): a name
 * hosted here moves its registration in with its zone answering throughout; a name leaving keeps its zone
 * as a hosted domain only when an owner asked; two creates of one hosted name at once are one 201 and 409s.
 */
eachStore('Hosted domains meet transfers (sandbox, time travel, our DNS server)', (kind) => {
  let api: TestApi;
  let key: string;
  let clockKey: string;

  before(async function () {
    requireTools(this, 'dig');
    api = await startApi(kind, { dns: true });
    key = (
      await api.issueKey({
        environment: 'test',
        rights: ['domain.register', 'domain.read', 'domain.host', 'dns.edit', 'dns.read'],
        domains: NAMES,
        conditions: LIMITS,
      })
    ).secret;
    clockKey = (await api.issueKey({ environment: 'test', rights: ['sandbox.clock'] })).secret;
  });
  after(async () => api?.close());

  const post = (path: string, json: unknown, secret = key) =>
    api.call(path, { method: 'POST', headers: { ...bearer(secret), 'idempotency-key': randomUUID() }, json });
  const get = (path: string) => api.call(path, { headers: bearer(key) });
  const travel = async (advance: string) => {
    const r = await post('/v1/sandbox/clock', { advance }, clockKey);
    expect(r.status, JSON.stringify(r.body)).to.equal(200);
  };
  const dig = async (name: string): Promise<string> =>
    (await run('dig', ['@127.0.0.1', '-p', String(api.dnsPort), '+short', '+tries=1', '+time=2', name, 'A'])).stdout.trim();
  const addRecord = async (domain: string, ip: string) => {
    const plan = await post(`/v1/domains/${domain}/dns/plans`, {
      changes: [{ action: 'create', name: 'www', type: 'A', ttl: 300, values: [ip] }],
    });
    expect(plan.status, JSON.stringify(plan.body)).to.equal(201);
    const applied = await post(`/v1/domains/${domain}/dns/plans/${plan.body.id}/apply`, {});
    expect(applied.status, JSON.stringify(applied.body)).to.equal(200);
  };
  const charges = async (domain: string) =>
    (
      (await api.system.store.knex('ledger_entries').where({ domain, account_id: api.demo.accountId })) as Array<{
        kind: string;
        status: string;
      }>
    ).map((e) => [e.kind, e.status]);
  const zoneId = async (domain: string) => (await api.system.store.zones.find(api.demo.accountId, 'test', domain))?.id ?? null;

  it('transfer in of a hosted domain: let through, completed after 5 days as a registered domain, one charge, the same records answered with no gap', async () => {
    const domain = 'transfer-hosted.com.ua';
    const hosted = await post('/v1/hosted-domains', { domain });
    expect([hosted.status, hosted.body.hosting?.status]).to.deep.equal([201, 'active']);
    await addRecord(domain, '192.0.2.44');
    expect(await dig(`www.${domain}`)).to.equal('192.0.2.44');
    const zoneBefore = await zoneId(domain);

    const t = await post(`/v1/domains/${domain}/transfers`, { auth_code: 'sandbox-auth-ok' });
    expect(t.status, JSON.stringify(t.body)).to.equal(202);
    expect(t.body).to.include({ domain, direction: 'in', status: 'pending' });
    expect((await get(`/v1/domains/${domain}`)).body.registrar, 'hosted while pending').to.equal('external');

    // Our server is asked all through the completion: every answer carries the record.
    const answers: Array<{ rcode: string; values: string[] }> = [];
    let polling = true;
    const poller = (async () => {
      while (polling) {
        answers.push(await ask(api.dnsPort!, `www.${domain}`));
        await new Promise((r) => setTimeout(r, 10));
      }
    })();
    await travel('P5D');
    await new Promise((r) => setTimeout(r, 100));
    polling = false;
    await poller;
    expect(answers.length).to.be.greaterThan(2);
    expect(answers.filter((a) => a.rcode !== 'NOERROR' || a.values.join() !== '192.0.2.44')).to.deep.equal([]);

    expect((await get(`/v1/domains/${domain}/transfers/${t.body.id}`)).body.status).to.equal('completed');
    const d = (await get(`/v1/domains/${domain}`)).body;
    expect(d).to.include({ domain, registrar: 'domivka', expires_at: '2032-03-14', auto_renew: true });
    expect(d.status).to.deep.equal(['ok']);
    expect(d).not.to.have.property('hosting');
    expect(await zoneId(domain), 'the same zone, kept').to.equal(zoneBefore);
    expect(await dig(`www.${domain}`)).to.equal('192.0.2.44');
    expect(await charges(domain)).to.deep.equal([['transfer', 'posted']]);
    const rows = await api.system.store.knex('domains').where({ name: domain });
    expect(rows.map((r: { registrar: string; hosting_status: string | null }) => [r.registrar, r.hosting_status])).to.deep.equal([
      ['domivka', null],
    ]);
    // Now registered here: a second transfer or a hosted create is refused with the one code.
    expectErrorShape(await post(`/v1/domains/${domain}/transfers`, { auth_code: 'sandbox-auth-ok' }), 409, 'domain_already_yours');
    expectErrorShape(await post('/v1/hosted-domains', { domain }), 409, 'domain_already_yours');
  });

  it('an unverified hosted zone (never answered) is served once the domain is registered through us', async () => {
    const domain = 'transfer-unverified.com.ua';
    await api.system.store.simulatedParents.set(api.demo.accountId, domain, false);
    const hosted = await post('/v1/hosted-domains', { domain });
    expect([hosted.status, hosted.body.hosting?.status]).to.deep.equal([201, 'pending_delegation']);
    await addRecord(domain, '192.0.2.45');
    expect((await ask(api.dnsPort!, `www.${domain}`)).rcode, 'unverified: not answered').to.equal('REFUSED');
    const t = await post(`/v1/domains/${domain}/transfers`, { auth_code: 'sandbox-auth-ok' });
    expect(t.status, JSON.stringify(t.body)).to.equal(202);
    await travel('P5D');
    expect((await get(`/v1/domains/${domain}`)).body).to.include({ registrar: 'domivka' });
    // Published once the completion commits (after the commit, not inside it).
    expect(
      await settled(
        () => dig(`www.${domain}`),
        (v) => v === '192.0.2.45',
      ),
    ).to.equal('192.0.2.45');
    expect(await charges(domain)).to.deep.equal([['transfer', 'posted']]);
  });

  it('transfer out: the zone stays as an active hosted domain, answering with no gap, only when an owner asked; else it goes', async () => {
    const kept = 'transfer-hosted.com.ua'; // registered above (transferred in), unlocked
    const dropped = 'transfer-unverified.com.ua';
    expectErrorShape(await post(`/v1/domains/${kept}/transfer-out/keep-zone`, { keep: true }), 409, 'transfer_out_not_pending');
    for (const domain of [kept, dropped]) expect((await post('/v1/sandbox/transfer-out', { domain })).status).to.equal(202);
    const choice = await post(`/v1/domains/${kept}/transfer-out/keep-zone`, { keep: true });
    expect(choice.status, JSON.stringify(choice.body)).to.equal(200);
    expect(choice.body).to.include({ direction: 'out', status: 'pending', keep_zone: true });
    // Asked, then undone: the default (the zone goes) stands.
    expect((await post(`/v1/domains/${dropped}/transfer-out/keep-zone`, { keep: true })).body.keep_zone).to.equal(true);
    expect((await post(`/v1/domains/${dropped}/transfer-out/keep-zone`, { keep: false })).body.keep_zone).to.equal(false);
    const zoneBefore = await zoneId(kept);

    const answers: Array<{ rcode: string; values: string[] }> = [];
    let polling = true;
    const poller = (async () => {
      while (polling) {
        answers.push(await ask(api.dnsPort!, `www.${kept}`));
        await new Promise((r) => setTimeout(r, 10));
      }
    })();
    await travel('P5D');
    await new Promise((r) => setTimeout(r, 100));
    polling = false;
    await poller;
    expect(answers.length).to.be.greaterThan(2);
    expect(answers.filter((a) => a.rcode !== 'NOERROR' || a.values.join() !== '192.0.2.44')).to.deep.equal([]);

    const d = (await get(`/v1/domains/${kept}`)).body;
    expect(d).to.include({ domain: kept, registrar: 'external', expires_at: null, auto_renew: false, transfer_lock: false });
    expect(d.status).to.deep.equal([]);
    expect([d.hosting.status, d.hosting.problem]).to.deep.equal(['active', null]);
    expect(await zoneId(kept), 'the same zone, kept').to.equal(zoneBefore);
    expect(await dig(`www.${kept}`)).to.equal('192.0.2.44');
    const listed = (await get(`/v1/domains/${kept}/transfers`)).body.items as Array<{
      direction: string;
      status: string;
      keep_zone?: boolean;
    }>;
    expect(listed.filter((t) => t.direction === 'out').map((t) => [t.status, t.keep_zone])).to.deep.equal([['completed', true]]);

    expect((await get(`/v1/domains/${dropped}`)).status).to.equal(404);
    expect(await zoneId(dropped)).to.equal(null);
    // Withdrawn from the server once the completion commits (after the commit, not inside it).
    expect(
      await settled(
        () => ask(api.dnsPort!, `www.${dropped}`),
        (r) => r.rcode === 'REFUSED',
      ),
    ).to.include({ rcode: 'REFUSED' });
    // Hosted now, it may be transferred in again: the request is let through.
    expect((await post(`/v1/domains/${kept}/transfers`, { auth_code: 'sandbox-auth-ok' })).status).to.equal(202);
  });

  it('two creates of one hosted name at once: one 201, the others 409 domain_already_yours, never a 500', async () => {
    const replies = await Promise.all([1, 2, 3, 4].map(() => post('/v1/hosted-domains', { domain: 'race-hosted.com' })));
    const statuses = replies.map((r) => r.status).sort();
    expect(statuses, JSON.stringify(replies.map((r) => r.body))).to.deep.equal([201, 409, 409, 409]);
    for (const r of replies.filter((x) => x.status === 409)) expectErrorShape(r, 409, 'domain_already_yours');
    expect(await api.system.store.knex('domains').where({ name: 'race-hosted.com' })).to.have.length(1);
  });
});
