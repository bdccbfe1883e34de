import { expect } from 'chai';
import type { DomainRepository } from '../../core/domains/ports/domain-repository.port.js';
import type { OperationActor } from '../../core/kernel/actor.js';
import type { EventRecorder } from '../../core/kernel/event-log.port.js';
import { encodeCursor } from '../../core/kernel/pagination.js';
import type { Random } from '../../core/kernel/random.port.js';
import type { Visibility } from '../../core/kernel/visibility.port.js';
import { CancelOperation } from '../../core/operations/cancel-operation.use-case.js';
import { ConfirmOperation } from '../../core/operations/confirm-operation.use-case.js';
import { OperationAccess } from '../../core/operations/operation-access.js';
import { OperationLog } from '../../core/operations/operation-log.js';
import type { Operation } from '../../core/operations/operation.js';
import type { OperationRepository } from '../../core/operations/ports/operation-repository.port.js';
import { GetOperation, ListOperations } from '../../core/operations/read-operations.use-case.js';
import { apiKeyFixture } from '../support/api-key.js';
import { operationFixture } from '../support/operation.js';
import { refusalText } from '../support/refusal.js';

/**
 * Confirming, cancelling and reading an operation on in-memory ports (issue 20): the races the HTTP suites
 * cannot time (resolved or taken by a worker between the read and the write), confirming twice, and who
 * may request, see and decide.
 */

const NOW = new Date('2026-11-20T12:00:00Z');
const owner2: OperationActor = { kind: 'person', personId: 'p-2', accountId: 'acc-1', role: 'owner', environment: 'test' };

const refusal = refusalText;

/** `reads`: what each find returns in turn (the last one repeats); `update`: whether the conditional write is taken. */
const setup = (reads: Operation[], update = true) => {
  let n = 0;
  const events: Array<{ type: string; data: Record<string, unknown> }> = [];
  const activated: unknown[][] = [];
  const updates: Operation[] = [];
  const operations = {
    find: async () => reads[Math.min(n++, reads.length - 1)]!,
    update: async (op: Operation) => {
      updates.push(op);
      return update;
    },
  } as unknown as OperationRepository;
  const access = new OperationAccess({ check: async () => null }, { findPerson: async () => null }, { find: async () => null }, {
    sees: () => true,
  } as unknown as Visibility);
  const log = new OperationLog(
    {
      record: async (type: string, _m: unknown, data: Record<string, unknown>) => {
        events.push({ type, data });
      },
    } as unknown as EventRecorder,
    { id: () => 'E' } as unknown as Random,
    { now: () => NOW },
  );
  const common = {
    operations,
    access,
    log,
    uow: { transaction: <T>(fn: () => Promise<T>) => fn(), afterCommit: (fn: () => void) => fn() },
    time: { now: async () => NOW, travelled: async () => [] },
    clock: { now: () => NOW },
  };
  const confirm = new ConfirmOperation({
    ...common,
    activation: {
      activate: async (op, actor) => {
        activated.push([op.id, actor]);
        return { outcome: 'activated', operation: op };
      },
    },
  });
  const cancel = new CancelOperation({
    ...common,
    domains: { find: async () => null, update: async () => {} } as unknown as DomainRepository,
  });
  return { confirm, cancel, events, activated, updates };
};

describe('Operations: confirming and cancelling, the races and the repeats (issue 20)', () => {
  it('confirmed: activates_at moves to now, the event, then it activates at once in the confirming owner’s name', async () => {
    const t = setup([operationFixture()]);
    await t.confirm.execute(owner2, 'op-1');
    expect(t.updates).to.have.length(1);
    expect(t.updates[0]!.activatesAt).to.deep.equal(NOW);
    expect(t.updates[0]!.confirmations).to.deep.equal([{ by: { type: 'person', personId: 'p-2' }, at: NOW }]);
    expect(t.events.map((e) => e.type)).to.deep.equal(['operation.confirmed']);
    expect(t.activated).to.deep.equal([['op-1', 'person:p-2']]);
  });

  it('confirming again by the same owner: no second confirmation or event; the operation as it stands goes on to activate', async () => {
    const once = operationFixture({ confirmations: [{ by: { type: 'person', personId: 'p-2' }, at: NOW }], activatesAt: NOW });
    const t = setup([once]);
    const view = await t.confirm.execute(owner2, 'op-1');
    expect(t.updates).to.deep.equal([]);
    expect(t.events).to.deep.equal([]);
    expect(view.confirmations).to.have.length(1);
    expect(t.activated).to.deep.equal([['op-1', 'person:p-2']]);
  });

  it('confirmed by one owner already (its activation was interrupted): another owner’s confirmation is added, with its event', async () => {
    const first = { by: { type: 'person', personId: 'p-3' }, at: NOW } as const;
    const t = setup([operationFixture({ confirmations: [first], activatesAt: NOW })]);
    await t.confirm.execute(owner2, 'op-1');
    expect(t.updates.map((u) => u.confirmations)).to.deep.equal([[first, { by: { type: 'person', personId: 'p-2' }, at: NOW }]]);
    expect(t.events.map((e) => e.type)).to.deep.equal(['operation.confirmed']);
  });

  it('resolved between the read and the confirmation: operation_not_pending with the status it has now', async () => {
    const t = setup([operationFixture(), operationFixture({ status: 'cancelled' })]);
    expect(await refusal(t.confirm.execute(owner2, 'op-1'))).to.equal('operation_not_pending {"operation_id":"op-1","status":"cancelled"}');
    expect(t.activated).to.deep.equal([]);
  });

  it('its time came while confirming (a worker holds it): answered as it stands, not activated twice; resolved meanwhile: refused', async () => {
    const busy = setup([operationFixture()], false);
    const view = await busy.confirm.execute(owner2, 'op-1');
    expect(view.status).to.equal('pending');
    expect(busy.activated).to.deep.equal([]);
    expect(busy.events).to.deep.equal([]);
    const done = setup([operationFixture(), operationFixture(), operationFixture({ status: 'active' })], false);
    expect(await refusal(done.confirm.execute(owner2, 'op-1'))).to.equal('operation_not_pending {"operation_id":"op-1","status":"active"}');
  });

  it('cancelling one a worker is applying right now: operation_not_pending, status activating; for a revocation: skipped (null)', async () => {
    const t = setup([operationFixture()], false);
    expect(await refusal(t.cancel.execute(owner2, 'op-1'))).to.equal('operation_not_pending {"operation_id":"op-1","status":"activating"}');
    expect(t.events).to.deep.equal([]);
    expect(
      await t.cancel.cancelForRevocation(operationFixture(), { type: 'person', personId: 'p-2' }, 'person:p-2', 'key_revoked'),
    ).to.equal(null);
  });

  it('cancelled for a revocation: the operation, by whoever caused it, with the reason in its event', async () => {
    const t = setup([operationFixture()]);
    const by = { type: 'person', personId: 'p-2' } as const;
    const op = await t.cancel.cancelForRevocation(operationFixture(), by, 'person:p-2', 'requester_demoted');
    expect(op).to.include({ status: 'cancelled', id: 'op-1' });
    expect(op!.cancelledBy).to.deep.equal(by);
    expect(t.events.map((e) => [e.type, e.data.cancel_reason])).to.deep.equal([['operation.cancelled', 'requester_demoted']]);
    const already = setup([operationFixture({ status: 'active' })]);
    expect(await already.cancel.cancelForRevocation(operationFixture(), by, 'person:p-2', 'key_revoked')).to.equal(null);
  });
});

describe('Operations: who may request, see and list (issue 20)', () => {
  const access = new OperationAccess({ check: async () => null }, { findPerson: async () => null }, { find: async () => null }, {
    sees: () => true,
  } as unknown as Visibility);

  it('a person must be an owner to request; a member is owner_required naming the right', async () => {
    const member: OperationActor = { ...owner2, role: 'member' };
    expect(await refusal(access.mayRequest(member, 'transfer_unlock', 'x.ua'))).to.equal(
      'owner_required {"action":"request","right":"domain.lock"}',
    );
    expect(await refusal(access.mayRequest(owner2, 'transfer_unlock', 'x.ua'))).to.equal('none');
  });

  it("a key never reaches another environment's operation, whatever it sees; a person sees only the environment shown, or all without one", async () => {
    const op = operationFixture({ environment: 'live' });
    expect(await access.reaches(apiKeyFixture({ environment: 'test' }), op)).to.equal(false);
    expect(await access.reaches(apiKeyFixture({ environment: 'live' }), op)).to.equal(true);
    expect(await refusal(access.visible(owner2, op, 'op-1'))).to.equal('operation_not_found {"operation_id":"op-1"}');
    expect(await access.visible({ ...owner2, environment: 'live' }, op, 'op-1')).to.equal(op);
    const { environment: _, ...anywhere } = owner2 as Extract<OperationActor, { kind: 'person' }>;
    expect(await access.visible(anywhere as OperationActor, op, 'op-1')).to.equal(op);
    expect(
      await refusal(new GetOperation({ find: async () => op } as unknown as OperationRepository, access).execute(owner2, 'op-1')),
    ).to.equal('operation_not_found {"operation_id":"op-1"}');
  });

  it('a list: a cursor that does not name a time and an id is cursor_invalid; a person without an environment lists test', async () => {
    const asked: Array<Record<string, unknown>> = [];
    const list = new ListOperations(
      {
        list: async (q: Record<string, unknown>) => {
          asked.push(q);
          return [];
        },
      } as unknown as OperationRepository,
      {} as Visibility,
    );
    const bad = encodeCursor('no-separator');
    expect(await refusal(list.execute(owner2, { cursor: bad }))).to.equal('cursor_invalid {}');
    const { environment: _, ...anywhere } = owner2 as Extract<OperationActor, { kind: 'person' }>;
    await list.execute(anywhere as OperationActor, {});
    expect(asked[0]!.environment).to.equal('test');
  });
});
