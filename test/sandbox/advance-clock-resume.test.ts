import { expect } from 'chai';
import type { Checkpoint, Checkpoints } from '../../core/kernel/checkpoints.port.js';
import type { ApiKey } from '../../core/kernel/caller.js';
import { AdvanceSandboxClock, type AdvanceSandboxClockDeps } from '../../core/sandbox/advance-clock.use-case.js';
import { apiKeyFixture } from '../support/api-key.js';

/**
 * POST /v1/sandbox/clock is phased: the move commits with its recovery point, then the passes run as under
 * the worker (each in its own transactions, asking the sandbox's peers outside any). A retry of the same
 * request after a crash in a pass runs the passes again without moving the clock a second time.
 */
describe('The sandbox clock through its phased route', () => {
  const NOW = new Date('2026-11-28T10:00:00Z');
  const setup = () => {
    let offset = 0;
    const moves: number[] = [];
    const passes: string[] = [];
    const pass = (name: string) => ({
      run: async () => {
        passes.push(name);
        return {};
      },
    });
    const use = new AdvanceSandboxClock({
      clocks: {
        offset: async () => offset,
        advance: async (_account: string, ms: number) => {
          moves.push(ms);
          return (offset += ms);
        },
      },
      lifecycle: pass('lifecycle'),
      certificates: pass('certificates'),
      operations: pass('operations'),
      transfers: pass('transfers'),
      events: { record: async () => {} },
      uow: { transaction: (fn: () => Promise<unknown>) => fn(), afterCommit: (fn: () => void) => fn() },
      random: { id: () => 'ID' },
      clock: { now: () => NOW },
    } as unknown as AdvanceSandboxClockDeps);
    return { use, moves, passes };
  };
  const key: ApiKey = apiKeyFixture({ environment: 'test' });
  const phased = (last: Checkpoint | null, reached: Array<[string, unknown]>): Checkpoints => ({
    last,
    reach: async (point, fn) => {
      const data = await fn();
      reached.push([point, data]);
      return data;
    },
  });

  it('moves once in its own phase, recording the offset; the passes run after it', async () => {
    const { use, moves, passes } = setup();
    const reached: Array<[string, unknown]> = [];
    const r = await use.execute(key, 'P1D', phased(null, reached));
    expect(moves).to.deep.equal([86_400_000]);
    expect(reached).to.deep.equal([['sandbox_clock_moved', { offset_ms: 86_400_000 }]]);
    expect(passes).to.deep.equal(['lifecycle', 'certificates', 'operations', 'transfers']);
    expect(r.offset_ms).to.equal(86_400_000);
    expect(r.now).to.equal(new Date(NOW.getTime() + 86_400_000).toISOString());
  });

  it('a retry after the move committed runs the passes and does not move again', async () => {
    const { use, moves, passes } = setup();
    const reached: Array<[string, unknown]> = [];
    const r = await use.execute(key, 'P1D', phased({ point: 'sandbox_clock_moved', data: { offset_ms: 86_400_000 } }, reached));
    expect(moves, 'not moved a second time').to.deep.equal([]);
    expect(reached).to.deep.equal([]);
    expect(passes).to.deep.equal(['lifecycle', 'certificates', 'operations', 'transfers']);
    expect(r.offset_ms).to.equal(86_400_000);
  });
});
