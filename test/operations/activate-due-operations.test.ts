import { expect } from 'chai';
import type { Random } from '../../core/kernel/random.port.js';
import type { ActivationOutcome } from '../../core/operations/activate-operation.js';
import { ActivateDueOperations } from '../../core/operations/activate-due-operations.use-case.js';
import type { Operation } from '../../core/operations/operation.js';
import type { OperationRepository } from '../../core/operations/ports/operation-repository.port.js';
import { operationFixture } from '../support/operation.js';

/**
 * The worker's pass on in-memory ports (issue 20): which groups it claims from (live on real time, test on
 * real time but for accounts that travelled, each of those on its own clock), in pages, with a lease each,
 * and the count of each outcome.
 */

const REAL = new Date('2026-11-20T10:00:00Z');

const setup = (
  pages: Operation[][],
  outcomes: Record<string, ActivationOutcome> = {},
  travelled = [{ accountId: 'acc-2', offsetMs: 3_600_000 }],
) => {
  const claims: unknown[] = [];
  const applied: unknown[][] = [];
  let page = 0;
  let ids = 0;
  const use = new ActivateDueOperations({
    operations: {
      claimDue: async (q: unknown) => {
        claims.push(q);
        return pages[page++] ?? [];
      },
    } as unknown as OperationRepository,
    accountClock: { now: async () => new Date('2026-12-01T00:00:00Z'), travelled: async () => travelled },
    activation: {
      activate: async (op, actor, held) => {
        applied.push([op.id, actor, held]);
        return { outcome: outcomes[op.id] ?? 'activated', operation: op };
      },
    },
    clock: { now: () => REAL },
    random: { id: () => `tok-${++ids}` } as unknown as Random,
  });
  return { use, claims, applied };
};

const claim = (over: Record<string, unknown>) => ({
  due: REAL,
  now: REAL,
  leaseUntil: new Date(REAL.getTime() + 120_000),
  limit: 20,
  ...over,
});

describe('ActivateDueOperations: the worker pass (issue 20)', () => {
  it('claims live on real time, test on real time without the accounts that travelled, then each of those on its own clock', async () => {
    const { use, claims } = setup([]);
    expect(await use.run()).to.deep.equal({ activated: 0, failed: 0, retry: 0 });
    expect(claims).to.deep.equal([
      claim({ environment: 'live', token: 'tok-1' }),
      claim({ environment: 'test', excludeAccounts: ['acc-2'], token: 'tok-2' }),
      claim({ environment: 'test', accountId: 'acc-2', due: new Date(REAL.getTime() + 3_600_000), token: 'tok-3' }),
    ]);
  });

  it("one account's pass (sandbox time travel) claims only its test operations, due on its clock", async () => {
    const { use, claims } = setup([]);
    await use.run({ accountId: 'acc-1', environment: 'test' });
    expect(claims).to.deep.equal([
      claim({ environment: 'test', accountId: 'acc-1', due: new Date('2026-12-01T00:00:00Z'), token: 'tok-1' }),
    ]);
  });

  it('applies each claimed operation under its claim token and counts the outcomes (busy is not counted)', async () => {
    const ops = ['a', 'f', 'r', 'r2', 'b'].map((id) => operationFixture({ id }));
    const { use, applied } = setup([ops], { f: 'failed', r: 'retry', r2: 'retry', b: 'busy' });
    expect(await use.run({ accountId: 'acc-1', environment: 'test' })).to.deep.equal({ activated: 1, failed: 1, retry: 2 });
    expect(applied).to.deep.equal([
      ['a', 'system:activation', 'tok-1'],
      ['f', 'system:activation', 'tok-1'],
      ['r', 'system:activation', 'tok-1'],
      ['r2', 'system:activation', 'tok-1'],
      ['b', 'system:activation', 'tok-1'],
    ]);
  });

  it('a full page of 20 asks for the next one (a new token); at most 100 pages per group', async () => {
    const full = Array.from({ length: 20 }, (_, i) => operationFixture({ id: `op-${i}` }));
    const two = setup([full, [operationFixture({ id: 'last' })]]);
    expect(await two.use.run({ accountId: 'acc-1', environment: 'test' })).to.deep.equal({ activated: 21, failed: 0, retry: 0 });
    expect(two.claims.map((c) => (c as { token: string }).token)).to.deep.equal(['tok-1', 'tok-2']);
    const endless = setup(Array.from({ length: 200 }, () => full));
    expect((await endless.use.run({ accountId: 'acc-1', environment: 'test' })).activated).to.equal(2000);
    expect(endless.claims.length).to.equal(100);
  });
});
