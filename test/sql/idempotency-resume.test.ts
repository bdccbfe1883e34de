import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { runIdempotent } from '../../adapters/http/middleware/idempotency.js';
import { SqlStore } from '../../adapters/sql/index.js';
import { DomainError } from '../../core/kernel/errors.js';
import type { Checkpoints } from '../../core/kernel/checkpoints.port.js';
import { TestClock } from '../support/clock.js';
import { eachStore, type FreshStore } from '../support/stores.js';

/**
 * Found by the crash suite: a request resumed after a crash found the domain's lease still
 * held by the dead process and answered 409 operation_in_progress. That answer was stored as final, so
 * every retry replayed it and the charge reserved before the crash stayed pending for good. "Busy, retry"
 * answers are not stored (DESIGN: 409 in flight): the record keeps its recovery point and a retry resumes.
 */
eachStore('Idempotency records: resuming after a recovery point, and abandoned requests', (kind) => {
  let fresh: FreshStore;
  let store: SqlStore;
  before(async () => {
    fresh = await kind.fresh();
    store = new SqlStore(fresh.connection);
    await store.migrate();
  });
  after(async () => {
    await store?.close();
    await fresh?.drop();
  });

  it('regression: 409 operation_in_progress after "reserved" is not stored; the retry resumes from "reserved" and finishes once', async () => {
    const deps = { store: store.idempotency, uow: store.uow, clock: new TestClock() };
    const key = randomUUID();
    const reserved: string[] = [];
    let busy = true;
    const handler = async (cp: Checkpoints | null) => {
      const at =
        cp!.last?.point === 'reserved'
          ? (cp!.last.data as { id: string })
          : await cp!.reach('reserved', async () => {
              const id = randomUUID();
              reserved.push(id);
              return { id };
            });
      if (busy) throw new DomainError('operation_in_progress', { domain_id: 'd1' });
      return { status: 201, body: { reserved: at.id } };
    };
    const run = () => runIdempotent(deps, 'key:k1', key, 'fp', handler, (r) => r, true);

    await run().then(
      () => expect.fail('busy must surface'),
      (e) => expect((e as DomainError).code).to.equal('operation_in_progress'),
    );
    busy = false;
    const retry = await run();
    expect(retry.status, 'the retry ran again instead of replaying the 409').to.equal(201);
    expect(reserved, 'it resumed from the recovery point: one reservation, not two').to.have.length(1);
    expect(retry.body).to.deep.equal({ reserved: reserved[0] });
    const replay = await run();
    expect(replay.replayed).to.equal(true);
    expect(replay.body).to.deep.equal({ reserved: reserved[0] });
  });

  it('abandoned(): only unfinished requests past a recovery point that holds something, old enough, kept with their request, and not held by a live process; purge() keeps them', async () => {
    const s = store.idempotency;
    const t0 = new Date('2026-11-20T10:00:00Z');
    const at = (min: number) => new Date(t0.getTime() + min * 60_000);
    const request = {
      route: 'registerDomain',
      keyId: 'k9',
      params: {},
      query: {},
      body: { domain: 'x.com.ua', years: 1 },
      ip: '127.0.0.1',
    };
    const make = async (name: string, o: { at: Date; point?: string; request?: boolean; unlock?: boolean; finish?: boolean }) => {
      const token = randomUUID();
      await s.claim('key:k9', name, 'fp', o.at, token, o.request === false ? undefined : request);
      if (o.point) await s.setRecoveryPoint('key:k9', name, token, o.point, { entryId: 'e1' });
      if (o.finish) await s.complete('key:k9', name, token, { status: 201, body: {}, headers: {} });
      else if (o.unlock) await s.unlock('key:k9', name, token);
    };
    await make('unlocked', { at: at(0), point: 'reserved', unlock: true });
    await make('dead-lock', { at: at(0), point: 'reserved' }); // its process died holding it
    await make('live-lock', { at: at(29), point: 'reserved' }); // created just now: a live request
    await make('voided', { at: at(0), point: 'voided', unlock: true });
    await make('started', { at: at(0), unlock: true });
    await make('no-request', { at: at(0), point: 'reserved', request: false, unlock: true });
    await make('finished', { at: at(0), point: 'reserved', finish: true });
    // A live process re-locked an old record (a retry resuming it right now).
    await make('retrying', { at: at(0), point: 'reserved' });
    expect(await s.takeOver('key:k9', 'retrying', at(0), at(29), randomUUID())).to.not.equal(null);

    const query = (now: Date, limit = 50) =>
      s.abandoned({ createdBefore: new Date(now.getTime() - 15 * 60_000), lockedBefore: new Date(now.getTime() - 60_000), now, limit });
    const found = await query(at(30));
    expect(found.map((r) => r.key).sort()).to.deep.equal(['dead-lock', 'unlocked']);
    expect(found[0]!.request).to.deep.equal(request);
    expect(found[0]!.attempts).to.equal(0);
    expect(await query(at(30), 1)).to.have.length(1);
    // Postponed after a failed try: left out until then, so it cannot hold up the others; attempts counted.
    await s.postpone('key:k9', 'unlocked', at(45));
    expect((await query(at(30))).map((r) => r.key)).to.deep.equal(['dead-lock']);
    const back = await query(at(45));
    // By then the locks taken at minute 29 have run out too: their processes are presumed dead.
    expect(back.map((r) => r.key).sort()).to.deep.equal(['dead-lock', 'live-lock', 'retrying', 'unlocked']);
    expect(back.find((r) => r.key === 'unlocked')!.attempts).to.equal(1);

    // A day on, housekeeping forgets what holds nothing and keeps what still holds a charge.
    expect(await s.purge(at(24 * 60 + 30))).to.equal(3); // voided, started, finished
    const left = (await store.knex('idempotency_keys').where({ scope: 'key:k9' }).pluck('key')).sort();
    expect(left).to.deep.equal(['dead-lock', 'live-lock', 'no-request', 'retrying', 'unlocked']);
  });

  it('takeOver() returns the record as it is after the takeover, not as the taker last read it; a lost race returns null', async () => {
    const s = store.idempotency;
    const t = new Date('2026-11-20T10:00:00Z');
    const first = randomUUID();
    await s.claim('key:k8', 'r1', 'fp', t, first);
    await s.setRecoveryPoint('key:k8', 'r1', first, 'reserved', { step: 1 });
    await s.unlock('key:k8', 'r1', first);
    const listed = (await s.claim('key:k8', 'r1', 'fp', t, randomUUID())).record; // a completer's early read: 'reserved'
    // Meanwhile another holder takes it, reaches 'credited', and lets go without a response (its complete() failed).
    const other = randomUUID();
    expect(await s.takeOver('key:k8', 'r1', null, new Date(t.getTime() + 1000), other)).to.not.equal(null);
    await s.setRecoveryPoint('key:k8', 'r1', other, 'credited', { step: 2 });
    await s.unlock('key:k8', 'r1', other);
    expect(listed.recoveryPoint).to.equal('reserved');
    const taken = await s.takeOver('key:k8', 'r1', listed.lockedAt, new Date(t.getTime() + 2000), randomUUID());
    expect(taken?.recoveryPoint, 'resumes from the later point').to.equal('credited');
    expect(taken?.recoveryData).to.deep.equal({ step: 2 });
    expect(await s.takeOver('key:k8', 'r1', null, new Date(t.getTime() + 3000), randomUUID()), 'held now: a second taker loses').to.equal(
      null,
    );
  });
});
