import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { completeAbandoned, retryDelayMs } from '../../adapters/http/completer.js';
import { runIdempotent } from '../../adapters/http/middleware/idempotency.js';
import { sealedRequest } from '../../adapters/http/middleware/sealed-fields.js';
import { AesGcmSecretBox } from '../../adapters/crypto/node/index.js';
import type { Route, RouteInput } from '../../adapters/http/route.js';
import { SqlStore } from '../../adapters/sql/index.js';
import type { ApiKey } from '../../core/kernel/caller.js';
import { TestClock } from '../support/clock.js';
import { eachStore, type FreshStore } from '../support/stores.js';

/**
 * The completer (adapters/http/completer.ts) against the store, with a phased route of its own that
 * "credits" once from 'reserved' and replays from 'credited'. The money tests (test/money/abandoned-
 * requests.test.ts) drive it through the real routes; these pin the races a review found.
 */
eachStore('The completer: takeovers, clocks and retries', (kind) => {
  let fresh: FreshStore;
  let store: SqlStore;
  const clock = new TestClock(new Date('2026-11-20T10:00:00Z'));
  const credits: string[] = [];
  const during = new Map<string, () => Promise<void>>();
  const failing = new Set<string>();
  const secretsSeen: string[] = [];
  const box = new AesGcmSecretBox(Buffer.alloc(32, 7));
  const route: Route = {
    id: 'fakeTopUp',
    method: 'POST',
    path: '/fake',
    summary: 'fake',
    tag: 'Test',
    writes: true,
    phased: true,
    access: { kind: 'key', anyKey: true },
    secretFields: ['auth_code'],
    responses: { 201: { description: 'ok' } },
    handle: async (i: RouteInput) => {
      const { name, auth_code } = i.body as { name: string; auth_code?: string };
      if (auth_code !== undefined) secretsSeen.push(auth_code);
      const cp = i.checkpoints!;
      if (cp.last?.point === 'credited') return { status: 201, body: cp.last.data };
      if (cp.last?.point !== 'reserved') await cp.reach('reserved', async () => ({ name }));
      await during.get(name)?.();
      if (failing.has(name)) throw new Error(`peer down for ${name}`);
      const out = await cp.reach('credited', async () => {
        credits.push(name);
        return { credited: name };
      });
      return { status: 201, body: out };
    },
  };
  const key = { id: 'k1' } as ApiKey;
  const deps = () => ({
    store: store.idempotency,
    uow: store.uow,
    clock,
    keys: { findById: async (id: string) => (id === 'k1' ? key : null) },
    secretBox: box,
    logger: pino({ level: 'silent' }),
  });
  const complete = () => completeAbandoned(deps(), [route], { abandonedAfterMs: 15 * 60_000 });

  /** A request that reserved, then met an unknown outcome: left unlocked at 'reserved'. */
  const leave = async (name: string, routeId = route.id, extra: Record<string, string> = {}) => {
    failing.add(name);
    const body = { name, ...extra };
    // As app.ts keeps it: the route's secret fields sealed.
    const request = sealedRequest(box, { route: routeId, keyId: 'k1', params: {}, query: {}, body, ip: '127.0.0.1' }, route.secretFields);
    await runIdempotent(
      { store: store.idempotency, uow: store.uow, clock },
      'key:k1',
      name,
      'fp',
      (cp) => route.handle({ params: {}, query: {}, body, ip: '127.0.0.1', key, ...(cp ? { checkpoints: cp } : {}) }),
      (r) => r,
      true,
      request,
    ).then(
      () => expect.fail('must fail'),
      (e: Error) => expect(e.message).to.contain('peer down'),
    );
    failing.delete(name);
    clock.advance(1000);
  };
  const row = (name: string) => store.knex('idempotency_keys').where({ scope: 'key:k1', key: name }).first();

  beforeEach(async () => {
    fresh = await kind.fresh();
    store = new SqlStore(fresh.connection);
    await store.migrate();
    credits.length = 0;
    secretsSeen.length = 0;
    during.clear();
  });
  afterEach(async () => {
    await store?.close();
    await fresh?.drop();
  });

  it("resumes from the record as it is when taken over, not as listed: another holder's later point is not done again (was: a second credit)", async () => {
    await leave('first');
    await leave('second');
    clock.advance(16 * 60_000);
    // While the completer works on "first", another holder (a retry) takes "second" over, credits it and
    // lets go without storing a response (its complete() failed).
    during.set('first', async () => {
      const other = randomUUID();
      expect(await store.idempotency.takeOver('key:k1', 'second', null, clock.now(), other)).to.not.equal(null);
      await store.idempotency.setRecoveryPoint('key:k1', 'second', other, 'credited', { credited: 'second' });
      credits.push('second');
      await store.idempotency.unlock('key:k1', 'second', other);
    });
    expect(await complete()).to.deep.equal({ completed: 2, failed: 0, skipped: 0 });
    expect(credits.sort(), 'each credited once').to.deep.equal(['first', 'second']);
    expect(JSON.parse((await row('second')).response_body)).to.deep.equal({ credited: 'second' });
  });

  it('stamps each takeover with the time it happens: a pass slowed by one peer does not leave the next record with a lock that looks dead', async () => {
    await leave('slow');
    await leave('next');
    clock.advance(16 * 60_000);
    during.set('slow', async () => clock.advance(2 * 60_000)); // the peer took two minutes
    let seen: string | null = null;
    during.set('next', async () => {
      seen = (await row('next')).locked_at;
    });
    await complete();
    expect(seen).to.equal(clock.now().toISOString());
  });

  it('a request that fails again is postponed (1, 2, 4 … minutes), so it is not retried at every pass nor ahead of the others', async () => {
    await leave('down');
    clock.advance(16 * 60_000);
    failing.add('down');
    expect(await complete()).to.deep.equal({ completed: 0, failed: 1, skipped: 0 });
    expect(await complete(), 'not before its delay').to.deep.equal({ completed: 0, failed: 0, skipped: 0 });
    clock.advance(retryDelayMs(0));
    expect(await complete()).to.deep.equal({ completed: 0, failed: 1, skipped: 0 });
    expect((await row('down')).attempts).to.equal(2);
    failing.delete('down');
    clock.advance(retryDelayMs(1) - 1);
    expect((await complete()).completed, 'the second delay is longer').to.equal(0);
    clock.advance(1);
    expect(await complete()).to.deep.equal({ completed: 1, failed: 0, skipped: 0 });
    expect(credits).to.deep.equal(['down']);
    expect(retryDelayMs(30)).to.equal(6 * 60 * 60_000);
  });

  it('a request for a route that is no longer phased, or whose key is gone, is skipped and postponed, not retried at every pass', async () => {
    await leave('orphan', 'removedRoute');
    clock.advance(16 * 60_000);
    expect(await complete()).to.deep.equal({ completed: 0, failed: 0, skipped: 1 });
    expect(await complete()).to.deep.equal({ completed: 0, failed: 0, skipped: 0 });
    expect((await row('orphan')).recovery_point).to.equal('reserved');
  });

  it('a secret field of the request is kept sealed, opened only by the completer to finish it; the finished record keeps no request', async () => {
    await leave('secretive', route.id, { auth_code: 'sandbox-auth-ok' });
    const kept = await row('secretive');
    expect(kept.request, 'never in the clear').to.not.contain('sandbox-auth-ok');
    expect(JSON.parse(kept.request).sealed).to.deep.equal(['auth_code']);
    clock.advance(16 * 60_000);
    expect(await complete()).to.deep.equal({ completed: 1, failed: 0, skipped: 0 });
    expect(secretsSeen.at(-1), 'the completer ran it with the code itself').to.equal('sandbox-auth-ok');
    const done = await row('secretive');
    expect(done.request, 'finished: nothing left to resume').to.equal(null);
    expect(JSON.stringify(done)).to.not.contain('sandbox-auth-ok');
  });

  it('a request whose sealed fields cannot be opened (another data key), or were withheld by the migration, is skipped and postponed', async () => {
    await leave('rekeyed', route.id, { auth_code: 'sandbox-auth-ok' });
    await leave('withheld');
    await store
      .knex('idempotency_keys')
      .where({ scope: 'key:k1', key: 'withheld' })
      .update({ request: JSON.stringify({ ...JSON.parse((await row('withheld')).request), withheld: ['auth_code'] }) });
    clock.advance(16 * 60_000);
    const other = { ...deps(), secretBox: new AesGcmSecretBox(Buffer.alloc(32, 8)) };
    expect(await completeAbandoned(other, [route], { abandonedAfterMs: 15 * 60_000 })).to.deep.equal({
      completed: 0,
      failed: 0,
      skipped: 2,
    });
    expect(credits).to.deep.equal([]);
    expect((await row('rekeyed')).attempts).to.equal(1);
  });
});
