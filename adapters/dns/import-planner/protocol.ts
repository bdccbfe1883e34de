import type { SkippedGroup } from '../../../core/dns/imports/zone-import.js';
import type { ChangesJson, CheckResult } from '../../../core/dns/plans/plan.js';
import type { RecordSet } from '../../../core/dns/zone/record-set.js';
import type { ImportPlanStart } from '../../../core/dns/ports/zone-import.port.js';

/** The messages between the API's thread and an import's planning thread (plain data: structured clone). */
export type ToThread =
  | { readonly kind: 'chunk'; readonly text: string }
  | { readonly kind: 'plan'; readonly current: readonly RecordSet[]; readonly maxRecordSets?: number };

export type FromThread =
  /**
   * A slice of the plan's changes, in order, as JSON text (JSON.stringify of the slice without its brackets):
   * many small messages, so the API's thread takes each in a moment, and strings, not objects, so that a
   * million changes cost it their text only.
   */
  | { readonly kind: 'changes'; readonly json: string }
  | {
      readonly kind: 'done';
      readonly counts: ChangesJson['counts'];
      readonly checks: readonly CheckResult[];
      readonly valid: boolean;
      readonly recordsRead: number;
      readonly skipped: readonly SkippedGroup[];
    }
  | {
      readonly kind: 'failed';
      /** A DomainError's code and facts, or (anything else) a message. */
      readonly error: { readonly code: string; readonly params: Record<string, unknown> } | { readonly message: string };
      readonly recordsRead: number;
      readonly skipped: readonly SkippedGroup[];
    };

export type ThreadData = ImportPlanStart;

/** Changes per `changes` message. */
export const CHANGES_PER_MESSAGE = 5000;
