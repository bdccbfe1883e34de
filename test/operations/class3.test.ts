import { expect } from 'chai';
import { expectErrorShape } from '../support/error-shape.js';
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import type { EnvironmentAdapters } from '../../src/tokens.js';
import { RegistryError } from '../../core/domains/ports/registrar.port.js';
import { System } from '../../src/system.js';
import { TOKENS } from '../../src/tokens.js';
import { Worker } from '../../src/worker.js';
import { eachStore } from '../support/stores.js';
import { addPerson, bearer, startApi, testConfig, type TestApi } from '../support/system.js';

/** Registry calls seen, across every system built in this file (two workers share the counter). */
const calls: Array<{ op: string; domain: string; arg: unknown; clTRID: string }> = [];
let failNext: string | null = null;
const wrapSandbox = (a: EnvironmentAdapters): EnvironmentAdapters => ({
  ...a,
  registrar: Object.assign(Object.create(a.registrar), {
    setNameservers: async (domain: string, ns: readonly string[], clTRID: string) => {
      calls.push({ op: 'nameservers', domain, arg: ns, clTRID });
      if (failNext) {
        const reason = failNext;
        failNext = null;
        throw new RegistryError('rejected', reason);
      }
      // A slow registry widens the window in which a second worker could try the same operation.
      await new Promise((r) => setTimeout(r, 50));
      return a.registrar.setNameservers!(domain, ns, clTRID);
    },
    setTransferLock: async (domain: string, locked: boolean, clTRID: string) => {
      calls.push({ op: 'lock', domain, arg: locked, clTRID });
      return a.registrar.setTransferLock!(domain, locked, clTRID);
    },
  }),
});

const CLASS3 = { cidr: '127.0.0.0/8' };
const RIGHTS = ['domain.read', 'dns.read', 'domain.nameservers', 'domain.lock', 'domain.labels'];

/** Issue 10 / DESIGN "Decisions": class 3 operations wait for a second owner or 24 hours. */
eachStore('Class 3 operations', (kind) => {
  let api: TestApi;
  let ownerA: string; // the demo owner's key
  let ownerAId: string;
  let ownerA2: string; // another key of the same owner
  let ownerB: string; // a second owner's key
  let ownerBPerson: string;
  let member: string; // a member's key (class ≤ 1, all a member may issue)
  let reader: string; // reaches only domivka-blog.kyiv.ua

  before(async () => {
    calls.length = 0;
    api = await startApi(kind, { wrapSandbox });
    const a = await api.issueKey({
      environment: 'test',
      // ownerA also moves the sandbox clock (its own right: it activates waiting operations).
      rights: [...RIGHTS, 'sandbox.clock'],
      domains: ['domivka-demo.com.ua', 'domivka-demo.dev', 'domivka-blog.kyiv.ua'],
      conditions: CLASS3,
    });
    ownerA = a.secret;
    ownerAId = a.id;
    ownerA2 = (await api.issueKey({ environment: 'test', rights: RIGHTS, label: 'prod', conditions: CLASS3 })).secret;
    const b = await addPerson(api, 'owner', 'second-owner@example.com');
    ownerBPerson = b.id;
    const bCookie = await api.signIn(b);
    ownerB = (await api.issueKey({ environment: 'test', rights: RIGHTS, label: 'prod', conditions: CLASS3 }, bCookie)).secret;
    const m = await addPerson(api, 'member', 'member@example.com');
    member = (await api.issueKey({ environment: 'test', rights: ['domain.read', 'dns.edit'], label: 'prod' }, await api.signIn(m))).secret;
    reader = (await api.issueKey({ environment: 'test', rights: ['domain.read'], domains: ['domivka-blog.kyiv.ua'] })).secret;
  });
  after(async () => api.close());

  const write = (method: string, path: string, secret: string, json?: unknown, idem = randomUUID()) =>
    api.call(path, { method, headers: { ...bearer(secret), 'idempotency-key': idem }, ...(json !== undefined ? { json } : {}) });
  const get = (path: string, secret = ownerA) => api.call(path, { headers: bearer(secret) });
  const events = async (type: string, subject: string) => (await api.system.store.knex('events').where({ type, subject })).length;
  const ownerNotices = async (kindName: string, operationId: string) => {
    const rows = await api.system.store.knex('notices').where({ kind: kindName });
    return rows.filter((r: any) => String(r.data).includes(operationId));
  };
  const travel = (advance: string) => write('POST', '/v1/sandbox/clock', ownerA, { advance });

  it('PUT nameservers answers 202 with a pending operation; the domain shows pendingUpdate', async () => {
    const r = await write('PUT', '/v1/domains/domivka-demo.dev/nameservers', ownerA, {
      nameservers: ['ns1.domivka.net', 'ns2.domivka.net', 'ns3.example.net'],
    });
    expect(r.status, JSON.stringify(r.body)).to.equal(202);
    const op = r.body;
    expect(op).to.include({ kind: 'nameservers', domain: 'domivka-demo.dev', status: 'pending' });
    expect(op.id).to.be.a('string');
    expect(op.requested_by).to.deep.equal({ type: 'key', key_id: ownerAId, person_id: api.demo.personId });
    expect(op.confirmations).to.deep.equal([]);
    expect(new Date(op.activates_at).getTime() - new Date(op.created_at).getTime()).to.equal(24 * 3600_000);
    expect(op.links).to.deep.equal({
      self: `/v1/operations/${op.id}`,
      confirm: `/v1/operations/${op.id}/confirm`,
      cancel: `/v1/operations/${op.id}/cancel`,
      domain: '/v1/domains/domivka-demo.dev',
    });
    expect(r.headers.get('location')).to.equal(`/v1/operations/${op.id}`);
    expect(op.warnings.map((w: any) => w.code)).to.deep.equal(['nameservers_mixed']);
    expect((await get('/v1/domains/domivka-demo.dev')).body.status).to.include('pendingUpdate');
    const list = (await get('/v1/domains')).body.data.find((d: any) => d.domain === 'domivka-demo.dev');
    expect(list.status).to.include('pendingUpdate');
    expect((await get(`/v1/operations/${op.id}`)).body.status).to.equal('pending');
    // Nothing at the registry yet.
    expect(calls.filter((c) => c.domain === 'domivka-demo.dev')).to.have.length(0);
    expect(await events('operation.pending', `operation:${op.id}`)).to.equal(1);
    expect((await ownerNotices('operation.pending', op.id)).length).to.equal(2); // both owners
  });

  it('a second conflicting operation on the same domain is 409 operation_pending with a link to the pending one', async () => {
    const pending = (await get('/v1/operations?domain=domivka-demo.dev&status=pending')).body.data[0];
    const r = await write('PUT', '/v1/domains/domivka-demo.dev/labels', ownerA, { labels: ['prod', 'eu'] });
    expect(r.status).to.equal(409);
    expect(r.body.error.code).to.equal('operation_pending');
    expect(r.body.error.actions).to.deep.include({ type: 'view_operation', href: `/v1/operations/${pending.id}` });
    expect(r.body.error.message.uk).to.include(pending.id);
  });

  it('confirmation by the issuing owner (any of their keys) or by a member is refused with a clear code', async () => {
    const op = (await get('/v1/operations?domain=domivka-demo.dev&status=pending')).body.data[0];
    const own = await write('POST', `/v1/operations/${op.id}/confirm`, ownerA);
    expect(own.status).to.equal(403);
    expect(own.body.error.code).to.equal('confirmation_by_requester');
    const own2 = await write('POST', `/v1/operations/${op.id}/confirm`, ownerA2);
    expect(own2.body.error.code).to.equal('confirmation_by_requester');
    const mem = await write('POST', `/v1/operations/${op.id}/confirm`, member);
    expect(mem.status).to.equal(403);
    expect(mem.body.error.code).to.equal('owner_required');
    expect((await get(`/v1/operations/${op.id}`)).body.status).to.equal('pending');
  });

  it("a second owner's key confirms: it activates at once, the registrar shows it, apex NS follows, pendingUpdate is gone", async () => {
    const op = (await get('/v1/operations?domain=domivka-demo.dev&status=pending')).body.data[0];
    const r = await write('POST', `/v1/operations/${op.id}/confirm`, ownerB);
    expect(r.status, JSON.stringify(r.body)).to.equal(200);
    expect(r.body.status).to.equal('active');
    expect(r.body.confirmations).to.have.length(1);
    expect(r.body.confirmations[0].by.person_id).to.equal(ownerBPerson);
    const reg = await api.system.get(TOKENS.TestAdapters).registrar.info('domivka-demo.dev');
    expect(reg!.nameservers).to.deep.equal(['ns1.domivka.net', 'ns2.domivka.net', 'ns3.example.net']);
    expect(calls.filter((c) => c.domain === 'domivka-demo.dev' && c.op === 'nameservers').map((c) => c.clTRID)).to.deep.equal([
      `${op.id}-apply`,
    ]);
    const d = (await get('/v1/domains/domivka-demo.dev')).body;
    expect(d.status).not.to.include('pendingUpdate');
    expect(d.nameservers).to.deep.equal(['ns1.domivka.net', 'ns2.domivka.net', 'ns3.example.net']);
    const zone = (await get('/v1/domains/domivka-demo.dev/dns/records?type=NS')).body;
    expect(zone.data.find((s: any) => s.name === 'domivka-demo.dev').values).to.deep.equal([
      'ns1.domivka.net.',
      'ns2.domivka.net.',
      'ns3.example.net.',
    ]);
    expect(zone.served_by_us).to.equal(true);
    for (const t of ['operation.pending', 'operation.confirmed', 'operation.activated'])
      expect(await events(t, `operation:${op.id}`), t).to.equal(1);
    expect((await ownerNotices('operation.confirmed', op.id)).length).to.equal(2);
    expect((await ownerNotices('operation.activated', op.id)).length).to.equal(2);
    // Resolved: no second confirmation or cancellation.
    const again = await write('POST', `/v1/operations/${op.id}/cancel`, ownerB);
    expect(again.status).to.equal(409);
    expect(again.body.error.code).to.equal('operation_not_pending');
  });

  it('moving to nameservers outside ours says so in the operation and in the zone read; our zone is kept', async () => {
    const r = await write('PUT', '/v1/domains/domivka-demo.dev/nameservers', ownerA, {
      nameservers: ['ns1.elsewhere.example', 'NS2.elsewhere.example.'],
    });
    expect(r.status, JSON.stringify(r.body)).to.equal(202);
    expect(r.body.nameservers).to.deep.equal(['ns1.elsewhere.example', 'ns2.elsewhere.example']);
    const w = r.body.warnings.find((x: any) => x.code === 'nameservers_outside');
    expect(w.message.en).to.match(/outside Domivka/);
    expect(w.message.uk).to.match(/поза Domivka/);
    expect((await write('POST', `/v1/operations/${r.body.id}/confirm`, ownerB)).body.status).to.equal('active');
    const zone = (await get('/v1/domains/domivka-demo.dev/dns/records')).body;
    expect(zone.served_by_us).to.equal(false);
    expect(zone.nameservers).to.deep.equal(['ns1.elsewhere.example', 'ns2.elsewhere.example']);
    expect(zone.data.map((s: any) => s.type)).to.include.members(['SOA', 'A', 'MX']); // kept
  });

  it('nameserver input is checked (hostnames, duplicates, glue inside the domain) and an unchanged list is 422', async () => {
    const bad = await write('PUT', '/v1/domains/domivka-demo.com.ua/nameservers', ownerA, {
      nameservers: ['ns1.example.net', 'not a host'],
    });
    expect(bad.status).to.equal(422);
    expect(bad.body.error.code).to.equal('nameservers_invalid');
    const glue = await write('PUT', '/v1/domains/domivka-demo.com.ua/nameservers', ownerA, {
      nameservers: ['ns1.domivka-demo.com.ua', 'ns1.example.net'],
    });
    expect(glue.body.error.code).to.equal('nameservers_invalid');
    const same = await write('PUT', '/v1/domains/domivka-demo.com.ua/nameservers', ownerA, {
      nameservers: ['ns2.domivka.net', 'ns1.domivka.net'],
    });
    expect(same.status).to.equal(422);
    expect(same.body.error.code).to.equal('operation_no_change');
    expect((await get('/v1/domains/domivka-demo.com.ua')).body.status).not.to.include('pendingUpdate');
  });

  it('any owner may cancel before activation; pendingUpdate goes; events and notices are written', async () => {
    const r = await write('PUT', '/v1/domains/domivka-demo.com.ua/labels', ownerA, { labels: ['prod', 'shop', 'eu'] });
    expect(r.status).to.equal(202);
    const mem = await write('POST', `/v1/operations/${r.body.id}/cancel`, member);
    expect(mem.body.error.code).to.equal('owner_required');
    const c = await write('POST', `/v1/operations/${r.body.id}/cancel`, ownerA2); // the requester may withdraw it too
    expect(c.status, JSON.stringify(c.body)).to.equal(200);
    expect(c.body.status).to.equal('cancelled');
    expect(c.body.links).not.to.have.property('confirm');
    expect((await get('/v1/domains/domivka-demo.com.ua')).body.labels).to.deep.equal(['prod', 'shop']);
    expect((await get('/v1/domains/domivka-demo.com.ua')).body.status).not.to.include('pendingUpdate');
    expect(await events('operation.cancelled', `operation:${r.body.id}`)).to.equal(1);
    expect((await ownerNotices('operation.cancelled', r.body.id)).length).to.equal(2);
  });

  it('lifting the transfer lock waits 24 h on the sandbox clock, then activates; it never yields the transfer code', async () => {
    const r = await write('DELETE', '/v1/domains/domivka-demo.com.ua/transfer-lock', ownerA);
    expect(r.status).to.equal(202);
    const code = await api.system.get(TOKENS.TestAdapters).registrar.transferCode!('domivka-demo.com.ua');
    expect(JSON.stringify(r.body)).not.to.include(code);
    // A minute short of 24 h it still waits; at 24 h exactly it takes effect (a rule early by minutes fails).
    const early = await travel('PT23H59M');
    expect(early.status).to.equal(200);
    expect(early.body.operations?.activated ?? 0).to.equal(0);
    expect((await get(`/v1/operations/${r.body.id}`)).body.status).to.equal('pending');
    const late = await travel('PT1M');
    expect(late.body.operations.activated).to.equal(1);
    const op = (await get(`/v1/operations/${r.body.id}`)).body;
    expect(op.status).to.equal('active');
    expect(JSON.stringify(op)).not.to.include(code);
    const d = (await get('/v1/domains/domivka-demo.com.ua')).body;
    expect(d.transfer_lock).to.equal(false);
    expect(d.status).not.to.include('clientTransferProhibited');
    expect(d.status).not.to.include('pendingUpdate');
    const reg = await api.system.get(TOKENS.TestAdapters).registrar.info('domivka-demo.com.ua');
    expect(reg!.status).not.to.include('clientTransferProhibited');
    const rows = await api.system.store.knex('events').where('subject', `operation:${r.body.id}`);
    expect(rows.map((e: any) => e.type).sort()).to.deep.equal(['operation.activated', 'operation.pending']);
    for (const e of rows) expect(String(e.data)).not.to.include(code);
    const notes = await api.system.store.knex('notices').where('domain', 'domivka-demo.com.ua');
    for (const n of notes) expect(JSON.stringify(n)).not.to.include(code);
  });

  it('PUT transfer-lock sets the lock again at once (200) and cancels a pending request to lift it', async () => {
    const lock = await write('PUT', '/v1/domains/domivka-demo.com.ua/transfer-lock', ownerA);
    expect(lock.status, JSON.stringify(lock.body)).to.equal(200);
    expect(lock.body.transfer_lock).to.equal(true);
    expect(lock.body.status).to.include('clientTransferProhibited');
    expect((await api.system.get(TOKENS.TestAdapters).registrar.info('domivka-demo.com.ua'))!.status).to.include(
      'clientTransferProhibited',
    );
    const lift = await write('DELETE', '/v1/domains/domivka-demo.com.ua/transfer-lock', ownerA);
    expect(lift.status).to.equal(202);
    const again = await write('PUT', '/v1/domains/domivka-demo.com.ua/transfer-lock', ownerA);
    expect(again.status).to.equal(200);
    expect(again.body.cancelled_operation.id).to.equal(lift.body.id);
    expect((await get(`/v1/operations/${lift.body.id}`)).body.status).to.equal('cancelled');
    expect(again.body.status).not.to.include('pendingUpdate');
  });

  it('the 24 h path through a worker pass; two workers racing apply one operation exactly once', async () => {
    const r = await write('PUT', '/v1/domains/domivka-demo.com.ua/nameservers', ownerA, {
      nameservers: ['ns1.domivka.net', 'ns2.domivka.net', 'ns9.example.org'],
    });
    expect(r.status).to.equal(202);
    // Move the sandbox clock without the API's own pass, so only the workers see the due operation.
    await api.system.store.sandboxClocks.advance(api.demo.accountId, 24 * 3600_000 + 1000);
    // Postgres: a second system with its own pool, as a second worker process. SQLite: a second Worker over
    // the same system (better-sqlite3 is synchronous; a second connection in one process would block the
    // event loop the first needs) — the two passes still interleave at every await.
    const second =
      kind.engine === 'postgres'
        ? new System(testConfig(api.store), { clock: api.clock, logger: pino({ level: 'silent' }), wrapSandbox })
        : api.system;
    try {
      const before = calls.length;
      const [t1, t2] = await Promise.all([new Worker(api.system).tick(), new Worker(second).tick()]);
      const reports = [t1.operations, t2.operations] as Array<{ activated: number } | null>;
      expect(reports[0], 'both passes ran without error').not.to.equal(null);
      expect(reports[1], 'both passes ran without error').not.to.equal(null);
      expect(reports[0]!.activated + reports[1]!.activated).to.equal(1);
      expect(calls.slice(before).filter((c) => c.domain === 'domivka-demo.com.ua')).to.have.length(1);
      expect(await events('operation.activated', `operation:${r.body.id}`)).to.equal(1);
      expect((await get(`/v1/operations/${r.body.id}`)).body.status).to.equal('active');
      // A later pass finds nothing left.
      expect(((await new Worker(second).tick()).operations as { activated: number }).activated).to.equal(0);
    } finally {
      if (second !== api.system) await second.close();
    }
  });

  it("a registry refusal makes the operation failed with the registry's reason; owners hear it", async () => {
    const r = await write('PUT', '/v1/domains/domivka-demo.com.ua/nameservers', ownerA, {
      nameservers: ['ns1.domivka.net', 'ns2.domivka.net'],
    });
    expect(r.status, JSON.stringify(r.body)).to.equal(202);
    failNext = 'host ns1.domivka.net unknown to the registry';
    const c = await write('POST', `/v1/operations/${r.body.id}/confirm`, ownerB);
    expect(c.status).to.equal(200);
    expect(c.body.status).to.equal('failed');
    expect(c.body.failure_reason).to.include('unknown to the registry');
    expect((await get('/v1/domains/domivka-demo.com.ua')).body.status).not.to.include('pendingUpdate');
    expect(await events('operation.failed', `operation:${r.body.id}`)).to.equal(1);
    expect((await ownerNotices('operation.failed', r.body.id)).length).to.equal(2);
  });

  it('labels: a confirmed change widens what label-scoped keys reach at once', async () => {
    const r = await write('PUT', '/v1/domains/domivka-blog.kyiv.ua/labels', ownerA, { labels: ['blog', 'prod'] });
    expect(r.status).to.equal(202);
    expectErrorShape(await get('/v1/domains/domivka-blog.kyiv.ua', ownerB), 403, 'right_missing'); // B's key is prod-scoped
    const c = await write('POST', `/v1/operations/${r.body.id}/confirm`, ownerB);
    expect(c.status).to.equal(404); // B's key does not reach the blog yet: it cannot even see the operation
    expect(c.body.error.code).to.equal('operation_not_found');
    // The console path: a signed-in second owner confirms with the same use case.
    const done = await api.system
      .get(TOKENS.ConfirmOperation)
      .execute({ kind: 'person', personId: ownerBPerson, accountId: api.demo.accountId, role: 'owner' }, r.body.id);
    expect(done.status).to.equal('active');
    expect((await get('/v1/domains/domivka-blog.kyiv.ua', ownerB)).body.labels).to.deep.equal(['blog', 'prod']);
    // The lists read the new label from the label index at once: B's prod-scoped key lists the blog, by label too.
    const names = async (path: string) => (await get(path, ownerB)).body.data.map((d: { domain: string }) => d.domain);
    expect(await names('/v1/domains')).to.include('domivka-blog.kyiv.ua');
    expect(await names('/v1/domains?label=prod')).to.include('domivka-blog.kyiv.ua');
    expect(await names('/v1/domains?label=blog')).to.deep.equal(['domivka-blog.kyiv.ua']);
  });

  it('console rules: the requesting person cannot confirm, a member cannot cancel', async () => {
    const r = await write('PUT', '/v1/domains/domivka-blog.kyiv.ua/labels', ownerA, { labels: ['blog'] });
    const confirm = api.system.get(TOKENS.ConfirmOperation);
    const cancel = api.system.get(TOKENS.CancelOperation);
    const requester = r.body.requested_by.person_id as string;
    let code = '';
    await confirm
      .execute({ kind: 'person', personId: requester, accountId: api.demo.accountId, role: 'owner' }, r.body.id)
      .catch((e) => (code = e.code));
    expect(code).to.equal('confirmation_by_requester');
    await cancel
      .execute({ kind: 'person', personId: 'p-member@example.com', accountId: api.demo.accountId, role: 'member' }, r.body.id)
      .catch((e) => (code = e.code));
    expect(code).to.equal('owner_required');
    const done = await cancel.execute({ kind: 'person', personId: requester, accountId: api.demo.accountId, role: 'owner' }, r.body.id);
    expect(done.status).to.equal('cancelled');
    expect(done.cancelled_by).to.deep.equal({ type: 'person', person_id: requester });
  });

  it('GET /v1/operations lists only operations on domains the key reaches, filters by status, pages by cursor', async () => {
    const mine = (await get('/v1/operations?limit=200', reader)).body.data;
    expect(mine.length).to.be.greaterThan(0);
    expect(mine.every((o: any) => o.domain === 'domivka-blog.kyiv.ua')).to.equal(true);
    const other = (await get('/v1/operations?domain=domivka-demo.dev', ownerA)).body.data[0];
    expectErrorShape(await get(`/v1/operations/${other.id}`, reader), 404, 'operation_not_found');
    const all = (await get('/v1/operations?limit=200', ownerA)).body.data;
    const paged: any[] = [];
    let cursor: string | null = null;
    do {
      const p: any = (await get(`/v1/operations?limit=2${cursor ? `&cursor=${cursor}` : ''}`, ownerA)).body;
      paged.push(...p.data);
      cursor = p.next_cursor;
    } while (cursor);
    expect(paged.map((o) => o.id)).to.deep.equal(all.map((o: any) => o.id));
    const active = (await get('/v1/operations?status=active', ownerA)).body.data;
    expect(active.length).to.be.greaterThan(0);
    expect(active.every((o: any) => o.status === 'active')).to.equal(true);
  });

  it('two concurrent requests on one domain: exactly one 202, the other 409 operation_pending', async () => {
    const results = await Promise.all([
      write('PUT', '/v1/domains/domivka-demo.com.ua/labels', ownerA, { labels: ['prod', 'shop', 'one'] }),
      write('PUT', '/v1/domains/domivka-demo.com.ua/labels', ownerA2, { labels: ['prod', 'shop', 'two'] }),
      write('DELETE', '/v1/domains/domivka-demo.com.ua/transfer-lock', ownerA),
    ]);
    const statuses = results.map((r) => r.status).sort();
    expect(statuses, JSON.stringify(results.map((r) => r.body))).to.deep.equal([202, 409, 409]);
    const won = results.find((r) => r.status === 202)!.body;
    for (const r of results.filter((x) => x.status === 409)) expect(r.body.error.code).to.equal('operation_pending');
    const pending = (await get('/v1/operations?domain=domivka-demo.com.ua&status=pending')).body.data;
    expect(pending.map((o: any) => o.id)).to.deep.equal([won.id]);
    expect((await write('POST', `/v1/operations/${won.id}/cancel`, ownerB)).body.status).to.equal('cancelled');
  });

  it('Idempotency-Key: a replayed request returns the same operation, not a second one', async () => {
    const idem = randomUUID();
    const a = await write('PUT', '/v1/domains/domivka-blog.kyiv.ua/labels', ownerA, { labels: ['blog', 'news'] }, idem);
    const b = await write('PUT', '/v1/domains/domivka-blog.kyiv.ua/labels', ownerA, { labels: ['blog', 'news'] }, idem);
    expect(a.status).to.equal(202);
    expect(b.status).to.equal(202);
    expect(b.headers.get('idempotent-replayed')).to.equal('true');
    expect(b.body.id).to.equal(a.body.id);
    const missing = await api.call('/v1/domains/domivka-blog.kyiv.ua/labels', {
      method: 'PUT',
      headers: bearer(ownerA),
      json: { labels: ['x1'] },
    });
    expect(missing.body.error.code).to.equal('idempotency_key_required');
  });
});
