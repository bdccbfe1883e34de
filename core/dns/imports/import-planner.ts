import type { ImportedPlan, ImportPlanner, ImportPlanSession, ImportPlanStart } from '../ports/zone-import.port.js';
import { buildPlan } from '../plans/plan-builder.js';
import type { Change } from '../plans/plan.js';
import { ZoneFileParser } from '../zone/zone-file.js';
import type { ZoneSets } from '../zone/zone-sets.js';
import { SkippedTally, type SkippedGroup } from './zone-import.js';

/**
 * An import's reading and planning in the caller's thread: the strict streaming parser, then the whole-zone
 * plan (every check). What the worker-thread planner (adapters/dns/import-planner) runs inside its thread.
 */
export class InlineImportSession implements ImportPlanSession {
  private parser: ZoneFileParser | null;
  private readonly tally = new SkippedTally();
  private read = 0;

  constructor(private readonly request: ImportPlanStart) {
    this.parser = new ZoneFileParser(request.origin, {
      strict: true,
      generateMax: request.generateMax,
      ...(request.generateMaxChars !== undefined ? { generateMaxChars: request.generateMaxChars } : {}),
      maxRecords: request.maxRecords,
      onSkipped: (s) => this.tally.add(s),
    });
  }

  get recordsRead(): number {
    return this.parser?.recordsRead ?? this.read;
  }

  skipped(): SkippedGroup[] {
    return this.tally.list();
  }

  /** Synchronous under the promise: a parse problem is thrown at the chunk that shows it. */
  pushNow(chunk: string): void {
    this.open().push(chunk);
  }

  push(chunk: string): Promise<void> {
    try {
      this.pushNow(chunk);
      return Promise.resolve();
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /** The plan on `current`. The parser is let go before the plan is built: its sets are the plan's input. */
  planNow(current: ZoneSets, limits: { readonly maxRecordSets?: number }): ImportedPlan & { readonly changes: readonly Change[] } {
    const parser = this.open();
    const parsed = parser.drain();
    this.read = parser.recordsRead;
    this.parser = null;
    const built = buildPlan({
      origin: this.request.origin,
      current,
      input: { parsed },
      ...(limits.maxRecordSets !== undefined ? { maxRecordSets: limits.maxRecordSets } : {}),
    });
    return { changes: built.changes, checks: built.checks, valid: built.valid };
  }

  plan(current: ZoneSets, limits: { readonly maxRecordSets?: number }): Promise<ImportedPlan> {
    try {
      return Promise.resolve(this.planNow(current, limits));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  close(): void {
    if (this.parser) this.read = this.parser.recordsRead;
    this.parser = null;
  }

  private open(): ZoneFileParser {
    if (!this.parser) throw new Error('the import session is closed');
    return this.parser;
  }
}

/** Reads and plans in the caller's thread (tests, and the worker thread's inside). */
export const inlineImportPlanner: ImportPlanner = { start: (request) => new InlineImportSession(request) };
