import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { TOKENS } from '../../src/tokens.js';
import { eachStore } from '../support/stores.js';
import { addPerson, bearer, startApi, type TestApi } from '../support/system.js';

const CLASS3 = { cidr: '127.0.0.0/8' };
const MONEY = { cidr: '127.0.0.0/8', spend_limit: { amount: 1_000_000, currency: 'UAH' } };
const DOMAIN = 'domivka-demo.com.ua';
/** JSON columns: text on SQLite, parsed already on Postgres. */
const parsed = (v: unknown): unknown => (typeof v === 'string' ? JSON.parse(v) : v);

/**
 * A person's keys follow their role (DESIGN: classes 2 and 3 are owners' keys): demoting an owner revokes
 * their class 2 and 3 keys at once, removing a person revokes all of theirs, and a revoked key's — or a
 * demoted or removed requester's — pending class 3 operations are cancelled, never activating 24 h later.
 */
eachStore('Keys and pending operations follow the issuer’s role', (kind) => {
  let api: TestApi;
  let ownerCookie: string;
  let clock: string; // the demo owner's sandbox_clock key, to move time past 24 h
  let b: Awaited<ReturnType<typeof addPerson>>;
  let bCookie: string;
  let bMoney: { id: string; secret: string }; // class 2: top-ups and renewals
  let bLock: { id: string; secret: string }; // class 3: the transfer lock
  let bDns: { id: string; secret: string }; // class 1: within a member's powers

  beforeEach(async function () {
    this.timeout(60_000);
    api = await startApi(kind);
    ownerCookie = await api.signIn();
    clock = (await api.issueKey({ environment: 'test', template: 'sandbox_clock' }, ownerCookie)).secret;
    b = await addPerson(api, 'owner', 'second-owner@example.com');
    bCookie = await api.signIn(b);
    bMoney = await api.issueKey(
      { environment: 'test', rights: ['domain.read', 'domain.renew', 'billing.topup'], label: 'prod', conditions: MONEY },
      bCookie,
    );
    bLock = await api.issueKey({ environment: 'test', rights: ['domain.read', 'domain.lock'], label: 'prod', conditions: CLASS3 }, bCookie);
    bDns = await api.issueKey({ environment: 'test', template: 'dns_editor', label: 'prod' }, bCookie);
  });
  afterEach(async () => api?.close());

  const write = (method: string, path: string, secret: string, json?: unknown) =>
    api.call(path, { method, headers: { ...bearer(secret), 'idempotency-key': randomUUID() }, ...(json !== undefined ? { json } : {}) });
  const travel = (advance: string) => write('POST', '/v1/sandbox/clock', clock, { advance });
  const operation = async (id: string) => (await api.system.store.knex('operations').where({ id }).first()) as { status: string };
  const cancelledEvent = async (id: string) => {
    const rows = await api.system.store.knex('events').where({ type: 'operation.cancelled', subject: `operation:${id}` });
    expect(rows, 'one operation.cancelled event').to.have.length(1);
    return parsed(rows[0].data) as { cancel_reason?: string };
  };
  const noticesOf = async (kindName: string, recipient?: string) =>
    (await api.system.store.knex('notices').where({ kind: kindName, ...(recipient ? { recipient_id: recipient } : {}) })).map(
      (n: { message_en: string; data: unknown }) => ({ message: { en: n.message_en }, data: parsed(n.data) as Record<string, any> }),
    );
  const expectRevoked = async (r: { status: number; body: any }, what: string) => {
    expect(r.status, `${what}: ${JSON.stringify(r.body)}`).to.equal(401);
    expect(r.body.error.code, what).to.equal('key_revoked');
  };
  const lockedStill = async () => {
    const row = await api.system.store.domains.find(api.demo.accountId, 'test', DOMAIN);
    expect(row!.transferLock).to.equal(true);
  };

  it('demoting an owner: their class 2 key can no longer top up or renew, their class 3 key cannot lift the lock; class 1 keeps working; their pending unlock is cancelled and never activates', async () => {
    // Before: the owner's keys work, and the class 3 key asks to lift the transfer lock.
    const unlock = await write('DELETE', `/v1/domains/${DOMAIN}/transfer-lock`, bLock.secret);
    expect(unlock.status, JSON.stringify(unlock.body)).to.equal(202);
    const opId = unlock.body.id as string;
    const balanceBefore = (await api.call('/v1/billing/balance', { headers: bearer(bMoney.secret) })).body.balance.amount;

    const demote = await api.call(`/v1/account/people/${b.id}`, {
      method: 'PATCH',
      headers: { cookie: ownerCookie },
      json: { role: 'member' },
    });
    expect(demote.status, JSON.stringify(demote.body)).to.equal(200);

    await expectRevoked(await write('POST', '/v1/billing/topups', bMoney.secret, { amount: 10_000 }), 'top-up');
    await expectRevoked(await write('POST', `/v1/domains/${DOMAIN}/renewals`, bMoney.secret, { years: 1 }), 'renewal');
    await expectRevoked(await write('DELETE', `/v1/domains/${DOMAIN}/transfer-lock`, bLock.secret), 'transfer unlock');
    const dns = await api.call(`/v1/domains/${DOMAIN}/dns/records`, { headers: bearer(bDns.secret) });
    expect(dns.status, JSON.stringify(dns.body)).to.equal(200);

    // The pending unlock is cancelled, with its event and the owners' notice saying why.
    expect((await operation(opId)).status).to.equal('cancelled');
    expect((await cancelledEvent(opId)).cancel_reason).to.equal('requester_demoted');
    const opNotices = (await noticesOf('operation.cancelled')).filter((n) => n.data.operation_id === opId);
    expect(opNotices.length).to.be.at.least(1);
    expect(opNotices[0]!.message.en).to.include('no longer an owner');
    // The owners and the person hear which keys and why.
    const told = await noticesOf('person.role_changed', b.id);
    expect(told, 'the demoted person is told').to.have.length(1);
    expect(told[0]!.data.revoked_key_ids).to.have.members([bMoney.id, bLock.id]);
    expect(told[0]!.message.en).to.include(bMoney.id).and.to.include(bLock.id).and.to.include('class 0–1');
    expect(await noticesOf('person.role_changed', api.demo.personId)).to.have.length(1);
    const revokedEvents = await api.system.store.knex('events').where({ type: 'key.revoked' });
    expect(revokedEvents.map((e: { subject: string }) => e.subject).sort()).to.deep.equal([`key:${bLock.id}`, `key:${bMoney.id}`].sort());

    // 25 hours later on the sandbox clock: still cancelled, the lock still set, nothing charged.
    const moved = await travel('PT25H');
    expect(moved.status, JSON.stringify(moved.body)).to.equal(200);
    expect((await operation(opId)).status).to.equal('cancelled');
    await lockedStill();
    expect(await api.system.get(TOKENS.Accounting).balance(api.demo.accountId, 'test')).to.equal(balanceBefore);
  });

  it('revoking a key cancels its pending class 3 operation (status, event, notice); 25 h later it has not activated', async () => {
    const unlock = await write('DELETE', `/v1/domains/${DOMAIN}/transfer-lock`, bLock.secret);
    expect(unlock.status, JSON.stringify(unlock.body)).to.equal(202);
    const opId = unlock.body.id as string;
    const revoke = await api.call(`/v1/account/keys/${bLock.id}`, { method: 'DELETE', headers: { cookie: bCookie } });
    expect(revoke.status, JSON.stringify(revoke.body)).to.be.oneOf([200, 204]);
    expect((await operation(opId)).status).to.equal('cancelled');
    expect((await cancelledEvent(opId)).cancel_reason).to.equal('key_revoked');
    const opNotices = (await noticesOf('operation.cancelled')).filter((n) => n.data.operation_id === opId);
    expect(opNotices.length, 'every owner is told').to.equal(2);
    expect(opNotices[0]!.message.en).to.include('the key that requested it was revoked');
    expect((await travel('PT25H')).status).to.equal(200);
    expect((await operation(opId)).status).to.equal('cancelled');
    await lockedStill();
    // Another key of the same person is untouched.
    expect((await api.call('/v1/key', { headers: bearer(bMoney.secret) })).status).to.equal(200);
  });

  it('removing a person revokes every key of theirs at once and cancels their pending operations; they are e-mailed which keys', async () => {
    const unlock = await write('DELETE', `/v1/domains/${DOMAIN}/transfer-lock`, bLock.secret);
    expect(unlock.status, JSON.stringify(unlock.body)).to.equal(202);
    const opId = unlock.body.id as string;
    const r = await api.call(`/v1/account/people/${b.id}`, { method: 'DELETE', headers: { cookie: ownerCookie } });
    expect(r.status, JSON.stringify(r.body)).to.equal(204);
    await expectRevoked(await write('POST', '/v1/billing/topups', bMoney.secret, { amount: 10_000 }), 'top-up');
    await expectRevoked(await write('DELETE', `/v1/domains/${DOMAIN}/transfer-lock`, bLock.secret), 'transfer unlock');
    await expectRevoked(await api.call(`/v1/domains/${DOMAIN}/dns/records`, { headers: bearer(bDns.secret) }), 'dns read');
    expect((await operation(opId)).status).to.equal('cancelled');
    expect((await cancelledEvent(opId)).cancel_reason).to.equal('requester_removed');
    const mail = await api.system.store.knex('notice_deliveries').where({ address: b.email });
    expect(mail.length, 'the removed person is e-mailed').to.equal(1);
    for (const id of [bMoney.id, bLock.id, bDns.id]) expect(mail[0].body).to.include(id);
    expect((await travel('PT25H')).status).to.equal(200);
    expect((await operation(opId)).status).to.equal('cancelled');
    await lockedStill();
  });

  it('promoting a member revokes nothing; a member’s own class 1 keys survive demotion-free role changes', async () => {
    const m = await addPerson(api, 'member', 'member@example.com');
    const mKey = await api.issueKey({ environment: 'test', template: 'dns_editor', label: 'prod' }, await api.signIn(m));
    const up = await api.call(`/v1/account/people/${m.id}`, { method: 'PATCH', headers: { cookie: ownerCookie }, json: { role: 'owner' } });
    expect(up.status).to.equal(200);
    expect((await api.call('/v1/key', { headers: bearer(mKey.secret) })).status).to.equal(200);
    expect(await api.system.store.knex('events').where({ type: 'key.revoked' })).to.have.length(0);
  });
});
