import { expect } from 'chai';
import type { EventOf, EventType } from '../../core/kernel/events.js';
import { cancelOnRevocation } from '../../core/operations/cancel-on-revocation.js';
import type { CancelReason } from '../../core/operations/operation-log.js';
import type { Operation, Party } from '../../core/operations/operation.js';

/**
 * The subscriber that cancels the pending class 3 operations of a requester who lost the power to ask for
 * them: which events end which requester's operations, for which reason, and who is named as cancelling.
 * (The HTTP and console suites in test/access and test/accounts run it end to end on both engines.)
 */
describe('Operations: cancelled when their requester loses the power (cancelOnRevocation)', () => {
  const ops = [{ id: 'op-1' }, { id: 'op-2' }] as unknown as Operation[];

  const run = async <T extends EventType>(type: T, subject: string, actor: string, data: unknown) => {
    const asked: unknown[][] = [];
    const cancelled: Array<{ id: string; by: Party; actor: string; reason: CancelReason }> = [];
    const subscriber = cancelOnRevocation({
      operations: {
        pendingRequestedBy: async (...args) => {
          asked.push(args);
          return ops;
        },
      },
      cancel: {
        cancelForRevocation: async (op, by, a, reason) => {
          cancelled.push({ id: op.id, by, actor: a, reason });
          return null;
        },
      },
    });
    await subscriber({
      id: 'ev-1',
      accountId: 'acc-1',
      environment: null,
      type,
      subject,
      actor,
      data,
      occurredAt: new Date('2026-11-20T10:00:00Z'),
    } as EventOf<T>);
    return { asked, cancelled };
  };

  it('a revoked key: the operations requested through that key, cancelled by the owner who revoked it (key_revoked)', async () => {
    const { asked, cancelled } = await run('key.revoked', 'key:k-7', 'person:p-1', { key_id: 'k-7' });
    expect(asked).to.deep.equal([['acc-1', { keyId: 'k-7' }]]);
    expect(cancelled).to.deep.equal([
      { id: 'op-1', by: { type: 'person', personId: 'p-1' }, actor: 'person:p-1', reason: 'key_revoked' },
      { id: 'op-2', by: { type: 'person', personId: 'p-1' }, actor: 'person:p-1', reason: 'key_revoked' },
    ]);
  });

  it('an owner made a member: the operations that person requested (requester_demoted); made an owner: none', async () => {
    const demoted = await run('person.role_changed', 'person:p-2', 'person:p-1', { email: 'b@example.com', from: 'owner', to: 'member' });
    expect(demoted.asked).to.deep.equal([['acc-1', { personId: 'p-2' }]]);
    expect(demoted.cancelled.map((c) => [c.id, c.by, c.actor, c.reason])).to.deep.equal([
      ['op-1', { type: 'person', personId: 'p-1' }, 'person:p-1', 'requester_demoted'],
      ['op-2', { type: 'person', personId: 'p-1' }, 'person:p-1', 'requester_demoted'],
    ]);
    const promoted = await run('person.role_changed', 'person:p-2', 'person:p-1', { email: 'b@example.com', from: 'member', to: 'owner' });
    expect(promoted).to.deep.equal({ asked: [], cancelled: [] });
  });

  it('a person removed, or leaving (their own act): the operations they requested (requester_removed)', async () => {
    const removed = await run('person.removed', 'person:p-2', 'person:p-1', { email: 'b@example.com', left: false, keys_revoked: 0 });
    expect(removed.asked).to.deep.equal([['acc-1', { personId: 'p-2' }]]);
    expect(removed.cancelled.map((c) => [c.id, c.by, c.reason])).to.deep.equal([
      ['op-1', { type: 'person', personId: 'p-1' }, 'requester_removed'],
      ['op-2', { type: 'person', personId: 'p-1' }, 'requester_removed'],
    ]);
    const left = await run('person.removed', 'person:p-2', 'person:p-2', { email: 'b@example.com', left: true, keys_revoked: 0 });
    expect(left.cancelled[0]).to.deep.equal({
      id: 'op-1',
      by: { type: 'person', personId: 'p-2' },
      actor: 'person:p-2',
      reason: 'requester_removed',
    });
  });

  it('an actor that is not a person is named as it stands; other events end nothing', async () => {
    const bySystem = await run('key.revoked', 'key:k-7', 'system:expiry', { key_id: 'k-7' });
    expect(bySystem.cancelled[0]).to.deep.equal({
      id: 'op-1',
      by: { type: 'person', personId: 'system:expiry' },
      actor: 'system:expiry',
      reason: 'key_revoked',
    });
    expect(await run('domain.created', 'domain:x.ua', 'person:p-1', { domain: 'x.ua' })).to.deep.equal({ asked: [], cancelled: [] });
    expect(await run('key.issued', 'key:k-8', 'person:p-1', { key_id: 'k-8' })).to.deep.equal({ asked: [], cancelled: [] });
  });
});
