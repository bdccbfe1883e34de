import type { Environment } from '../../kernel/environment.js';
import type { DnssecState } from '../dnssec-state.js';

/** Where a zone's DNSSEC state and keys are kept (the zone repository reads them back to sign the zone). */
export interface DnssecRepository {
  find(zoneId: string): Promise<DnssecState | null>;
  /** Inserts or replaces the state and its keys. */
  save(state: DnssecState): Promise<void>;
  remove(zoneId: string): Promise<void>;
  /** Signed zones whose signature window started before `before` (the worker refreshes them). */
  windowsBefore(before: Date, limit: number): Promise<Array<{ zoneId: string; domain: string }>>;
  /**
   * Zones whose next scheduled step (nextStepAt) is at or before `before`, with their account, so the
   * worker can compare with that account's time (the sandbox clock for test zones).
   */
  scheduled(
    before: Date,
    limit: number,
  ): Promise<Array<{ zoneId: string; domain: string; accountId: string; environment: Environment; at: Date }>>;
  /** Moves the signature window (in the transaction that bumps the zone's serial). */
  setWindow(zoneId: string, start: Date): Promise<void>;
}
