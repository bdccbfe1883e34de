import type { RecordingDeps } from '../kernel/recording-deps.js';
import { withDefaults } from '../kernel/defaults.js';
import { actorOf, type ApiKey } from '../kernel/caller.js';
import type { Checkpoints } from '../kernel/checkpoints.port.js';
import { DomainError } from '../kernel/errors.js';
import { requireOwner } from '../kernel/human-guards.js';
import type { HumanContext } from '../kernel/person.js';
import type { SandboxClocks } from './ports/sandbox-clock.port.js';
import type { AdvanceLifecycle, LifecycleReport } from '../domains/advance-lifecycle.use-case.js';

/** ISO 8601 durations in days and hours only: P30D, PT12H, P1DT6H (months and years are not fixed lengths). */
export const parseDuration = (text: string): number | null => {
  const m = /^P(?:(\d{1,4})D)?(?:T(?:(\d{1,5})H)?(?:(\d{1,6})M)?)?$/.exec(text);
  if (!m || text === 'P' || text.endsWith('T') || (m[1] === undefined && m[2] === undefined && m[3] === undefined)) return null;
  return ((Number(m[1] ?? 0) * 24 + Number(m[2] ?? 0)) * 60 + Number(m[3] ?? 0)) * 60_000;
};

export const MAX_ADVANCE_MS = 3 * 365 * 24 * 3600_000;

/** What a refused duration is told, in both languages (the API and the console show the same words). */
export const DURATION_MESSAGE = {
  uk: 'тривалість ISO 8601 у днях, годинах або хвилинах (напр. P30D), не більше 3 років',
  en: 'an ISO 8601 duration in days, hours or minutes (e.g. P30D), at most 3 years',
} as const;

export interface AdvanceReport {
  now: string;
  offset_ms: number;
  lifecycle: LifecycleReport;
  certificates?: unknown;
  operations?: unknown;
  transfers?: unknown;
}

/** What AdvanceSandboxClock is built from (one object, named, instead of positions). */
export interface AdvanceSandboxClockDeps extends RecordingDeps {
  readonly clocks: SandboxClocks;
  readonly lifecycle: AdvanceLifecycle;
  /** The certificates' pass (renewal, expiry) for the account, run right after the lifecycle. */
  readonly certificates?: { run(only: { accountId: string; environment: 'test' }): Promise<unknown> } | null;
  /** Class 3 operations whose 24 hours have passed on the moved clock activate at once. */
  readonly operations?: { run(only: { accountId: string; environment: 'test' }): Promise<unknown> } | null;
  /** Transfers whose losing side's period passed on the moved clock are answered at once. */
  readonly transfers?: { run(only: { accountId: string; environment: 'test' }): Promise<unknown> } | null;
}

/** The recovery point of a move made through the phased route: the clock has moved (its offset). */
const MOVED = 'sandbox_clock_moved';

/** POST /v1/sandbox/clock (test keys holding sandbox.clock): moves this account's sandbox time forward. */
export class AdvanceSandboxClock {
  private readonly deps: Required<AdvanceSandboxClockDeps>;

  constructor(deps: AdvanceSandboxClockDeps) {
    this.deps = withDefaults(deps, { certificates: null, operations: null, transfers: null });
  }

  /** GET /v1/sandbox/clock: this account's sandbox time (any valid test key may read it). */
  async read(key: ApiKey): Promise<{ now: string; offset_ms: number }> {
    if (key.environment !== 'test') throw new DomainError('sandbox_only');
    return this.timeOf(key.accountId);
  }

  /**
   * Moves the clock, then runs the lifecycle and the certificates for this account at once, so the effect is visible.
   * With `checkpoints` (the phased route: the passes run as under the worker, each in its own transactions),
   * the move commits with its recovery point, and a retry after a crash runs the passes without moving again.
   */
  async execute(key: ApiKey, advance: string, checkpoints: Checkpoints | null = null): Promise<AdvanceReport> {
    if (key.environment !== 'test') throw new DomainError('sandbox_only');
    return this.move(key.accountId, actorOf(key), advance, '/body/advance', checkpoints);
  }

  /** The console's read: any person of the account sees its sandbox time. */
  async readAsPerson(human: HumanContext): Promise<{ now: string; offset_ms: number }> {
    return this.timeOf(human.actor.accountId);
  }

  /** The console's path: the same move as a key's, recorded with the person as the actor; owners only. */
  async executeAsPerson(human: HumanContext, advance: string): Promise<AdvanceReport> {
    requireOwner(human.actor, 'sandbox.clock');
    return this.move(human.actor.accountId, `person:${human.actor.personId}`, advance, 'advance');
  }

  private async timeOf(accountId: string): Promise<{ now: string; offset_ms: number }> {
    const offset = await this.deps.clocks.offset(accountId);
    return { now: new Date(this.deps.clock.now().getTime() + offset).toISOString(), offset_ms: offset };
  }

  private async move(
    accountId: string,
    actor: string,
    advance: string,
    field: string,
    checkpoints: Checkpoints | null = null,
  ): Promise<AdvanceReport> {
    const ms = parseDuration(advance);
    if (ms === null || ms <= 0 || ms > MAX_ADVANCE_MS) {
      throw new DomainError('validation_failed', {}, [
        {
          field,
          rule: 'duration',
          value: advance,
          message: DURATION_MESSAGE,
        },
      ]);
    }
    const moved = checkpoints?.last?.point === MOVED ? Number(checkpoints.last.data.offset_ms) : null;
    const moveClock = async (): Promise<number> => {
      const o = await this.deps.clocks.advance(accountId, ms);
      await this.deps.events.record(
        'sandbox.clock_advanced',
        {
          accountId,
          environment: 'test',
          subject: `account:${accountId}`,
          actor,
          occurredAt: this.deps.clock.now(),
        },
        { advance, offset_ms: o },
      );
      return o;
    };
    const offset =
      moved ??
      (checkpoints
        ? (await checkpoints.reach(MOVED, async () => ({ offset_ms: await moveClock() }))).offset_ms
        : await this.deps.uow.transaction(moveClock));
    const only = { accountId, environment: 'test' as const };
    const lifecycle = await this.deps.lifecycle.run(only);
    const certificates = this.deps.certificates ? await this.deps.certificates.run(only) : undefined;
    const operations = this.deps.operations ? await this.deps.operations.run(only) : undefined;
    const transfers = this.deps.transfers ? await this.deps.transfers.run(only) : undefined;
    return {
      now: new Date(this.deps.clock.now().getTime() + offset).toISOString(),
      offset_ms: offset,
      lifecycle,
      ...(certificates ? { certificates } : {}),
      ...(operations ? { operations } : {}),
      ...(transfers ? { transfers } : {}),
    };
  }
}
