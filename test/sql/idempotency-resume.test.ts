import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { runIdempotent } from '../../adapters/http/middleware/idempotency.js';
import { SqlStore } from '../../adapters/sql/index.js';
import { DomainError } from '../../core/shared/errors.js';
import type { Checkpoints } from '../../core/shared/checkpoints.port.js';
import { TestClock } from '../support/clock.js';
import { eachStore, type FreshStore } from '../support/stores.js';

/**
 * Issue 14, found by the crash suite: a request resumed after a crash found the domain's lease still
 * held by the dead process and answered 409 operation_in_progress. That answer was stored as final, so
 * every retry replayed it and the charge reserved before the crash stayed pending for good. "Busy, retry"
 * answers are not stored (DESIGN: 409 in flight): the record keeps its recovery point and a retry resumes.
 */
eachStore('Idempotency: a busy answer after a recovery point is not final (regression)', (kind) => {
  let fresh: FreshStore;
  let store: SqlStore;
  before(async () => {
    fresh = await kind.fresh();
    store = new SqlStore({ url: fresh.url, ...(fresh.schema ? { schema: fresh.schema } : {}) });
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
      const at = cp!.last?.point === 'reserved' ? (cp!.last.data as { id: string }) : await cp!.reach('reserved', async () => {
        const id = randomUUID();
        reserved.push(id);
        return { id };
      });
      if (busy) throw new DomainError('operation_in_progress', { domain_id: 'd1' });
      return { status: 201, body: { reserved: at.id } };
    };
    const run = () => runIdempotent(deps, 'key:k1', key, 'fp', handler, (r) => r, true);

    await run().then(() => expect.fail('busy must surface'), (e) => expect((e as DomainError).code).to.equal('operation_in_progress'));
    busy = false;
    const retry = await run();
    expect(retry.status, 'the retry ran again instead of replaying the 409').to.equal(201);
    expect(reserved, 'it resumed from the recovery point: one reservation, not two').to.have.length(1);
    expect(retry.body).to.deep.equal({ reserved: reserved[0] });
    const replay = await run();
    expect(replay.replayed).to.equal(true);
    expect(replay.body).to.deep.equal({ reserved: reserved[0] });
  });
});
