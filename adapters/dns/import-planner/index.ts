import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { InlineImportSession } from '../../../core/dns/imports/import-planner.js';
import type { SkippedGroup } from '../../../core/dns/imports/zone-import.js';
import type { ChangesJson, CheckResult } from '../../../core/dns/plans/plan.js';
import type { ImportedPlan, ImportPlanner, ImportPlanSession, ImportPlanStart } from '../../../core/dns/ports/zone-import.port.js';
import type { RecordSet } from '../../../core/dns/zone/record-set.js';
import type { ZoneSets } from '../../../core/dns/zone/zone-sets.js';
import { DomainError, type ErrorCode } from '../../../core/kernel/errors.js';
import type { FromThread, ThreadData, ToThread } from './protocol.js';

/**
 * The thread's module beside this one: .js once built. From the sources (tests and benches run under tsx,
 * whose loader a new thread does not inherit) a small script registers tsx in the thread first.
 */
const FROM_SOURCES = import.meta.url.endsWith('.ts');
const THREAD_URL = new URL(`./thread${FROM_SOURCES ? '.ts' : '.js'}`, import.meta.url);
/** tsx's ESM API (its package's "./esm/api" import entry), found from here whether this module runs as ESM or CJS. */
const tsxApi = (): string =>
  pathToFileURL(join(dirname(createRequire(import.meta.url).resolve('tsx/package.json')), 'dist/esm/api/index.mjs')).href;
const threadEntry = (): { entry: URL | string; eval: boolean } =>
  FROM_SOURCES
    ? {
        entry: `import(${JSON.stringify(tsxApi())}).then((tsx) => { tsx.register(); return import(${JSON.stringify(THREAD_URL.href)}); });`,
        eval: true,
      }
    : { entry: THREAD_URL, eval: false };

export interface ThreadImportPlannerOptions {
  /**
   * The planning thread's young generation (V8 resourceLimits.maxYoungGenerationSizeMb). The API process
   * runs with large semi-spaces (fast for requests); a thread that builds a plan of a million sets keeps
   * more of its memory when its short-lived garbage is collected more often.
   */
  readonly youngGenerationMb?: number;
  /**
   * The planning thread's heap (V8 resourceLimits.maxOldGenerationSizeMb). Without it V8 lets a thread's heap
   * grow to about twice what it holds before collecting; with it the thread collects as it nears the cap
   * (at some CPU cost). A plan that needs more than the cap fails (the thread is stopped; the import fails,
   * the API goes on).
   */
  readonly oldGenerationMb?: number;
  /** Text up to this many characters is read and planned in the calling thread (default INLINE_BELOW_CHARS). */
  readonly inlineBelowChars?: number;
  /**
   * Planning threads at once in this process (default MAX_PLANNING_THREADS): each may hold up to its heap
   * cap, so imports of many zones at once wait for a thread rather than add up past the machine's memory.
   */
  readonly maxThreads?: number;
}

/** Planning threads one process runs at once, unless configured. */
export const MAX_PLANNING_THREADS = 2;

/** A counting semaphore: `acquire` resolves when one of `size` places is free; `release` frees it. */
class Places {
  private free: number;
  private readonly queue: Array<() => void> = [];

  constructor(size: number) {
    this.free = Math.max(1, size);
  }

  acquire(): Promise<void> {
    if (this.free > 0) {
      this.free--;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.queue.push(resolve));
  }

  release(): void {
    const next = this.queue.shift();
    if (next) next();
    else this.free++;
  }
}

/**
 * Zone imports read and planned on a worker thread, one per import (DESIGN "Zone import"): parsing a file
 * of a million records and checking its plan takes tens of seconds of CPU, which on the API's event loop
 * would stop every other request meanwhile. The text goes to the thread chunk by chunk as it is read; the
 * plan comes back in slices of changes, each taken in a moment; the thread's memory goes with it.
 */
export class ThreadImportPlanner implements ImportPlanner {
  private readonly places: Places;

  constructor(private readonly options: ThreadImportPlannerOptions = {}) {
    this.places = new Places(options.maxThreads ?? MAX_PLANNING_THREADS);
  }

  start(request: ImportPlanStart): ImportPlanSession {
    return new SmallFirstSession(request, this.options, this.places);
  }
}

/** Text up to this many characters is read and planned in the API's thread (see SmallFirstSession). */
export const INLINE_BELOW_CHARS = 256 * 1024;

/**
 * A small zone file (most imports: a few hundred records) is read and planned in the calling thread, as
 * fast as a plan of the same size: a thread would cost more to start than the work. Once the text passes
 * `inlineBelowChars`, a planning thread takes over: the text so far is sent to it (kept meanwhile: at most
 * that many characters) and everything after.
 */
class SmallFirstSession implements ImportPlanSession {
  private inline: InlineImportSession | null;
  private thread: ThreadSession | null = null;
  private kept: string[] = [];
  private keptChars = 0;
  private closed = false;

  constructor(
    private readonly request: ImportPlanStart,
    private readonly options: ThreadImportPlannerOptions,
    private readonly places: Places,
  ) {
    this.inline = new InlineImportSession(request);
  }

  get recordsRead(): number {
    return this.thread ? this.thread.recordsRead : (this.inline?.recordsRead ?? 0);
  }

  skipped(): SkippedGroup[] {
    return this.thread ? this.thread.skipped() : (this.inline?.skipped() ?? []);
  }

  async push(chunk: string): Promise<void> {
    if (this.thread) return this.thread.push(chunk);
    // Read here as well, so a problem in the first part of a file is named at once.
    this.inline!.pushNow(chunk);
    this.kept.push(chunk);
    this.keptChars += chunk.length;
    if (this.keptChars <= (this.options.inlineBelowChars ?? INLINE_BELOW_CHARS)) return;
    // A place among the process's planning threads first (the import's time limit runs meanwhile).
    await this.places.acquire();
    if (this.closed) {
      this.places.release();
      throw new Error('the import session is closed');
    }
    try {
      this.thread = new ThreadSession(this.request, this.options, () => this.places.release());
    } catch (err) {
      this.places.release();
      throw err;
    }
    for (const c of this.kept) await this.thread.push(c);
    this.kept = [];
    this.inline!.close();
    this.inline = null;
  }

  plan(current: ZoneSets, limits: { readonly maxRecordSets?: number }): Promise<ImportedPlan> {
    return this.thread ? this.thread.plan(current, limits) : this.inline!.plan(current, limits);
  }

  close(): void {
    this.closed = true;
    this.thread?.close();
    this.inline?.close();
    this.kept = [];
  }
}

class ThreadSession implements ImportPlanSession {
  private worker: Worker | null;
  private failure: unknown = null;
  private read = 0;
  private skippedList: readonly SkippedGroup[] = [];
  /** The plan's changes as they come, JSON text slices in order. */
  private parts: string[] = [];
  private waiting: { resolve: (p: ImportedPlan) => void; reject: (e: unknown) => void } | null = null;

  /** `released` runs once, when the thread is stopped (done, failed or closed): its place is free again. */
  constructor(
    request: ImportPlanStart,
    options: ThreadImportPlannerOptions,
    private released: (() => void) | null,
  ) {
    const data: ThreadData = {
      origin: request.origin,
      maxRecords: request.maxRecords,
      generateMax: request.generateMax,
      ...(request.generateMaxChars !== undefined ? { generateMaxChars: request.generateMaxChars } : {}),
    };
    const { entry, eval: asScript } = threadEntry();
    this.worker = new Worker(entry, {
      eval: asScript,
      workerData: data,
      resourceLimits: {
        ...(options.youngGenerationMb !== undefined ? { maxYoungGenerationSizeMb: options.youngGenerationMb } : {}),
        ...(options.oldGenerationMb !== undefined ? { maxOldGenerationSizeMb: options.oldGenerationMb } : {}),
      },
    });
    this.worker.on('message', (m: FromThread) => this.received(m));
    this.worker.on('error', (err) => this.fail(err));
    this.worker.on('exit', (code) => {
      if (this.worker) this.fail(new Error(`the import planning thread exited (code ${code})`));
    });
  }

  get recordsRead(): number {
    return this.read;
  }

  skipped(): SkippedGroup[] {
    return [...this.skippedList];
  }

  push(chunk: string): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    this.send({ kind: 'chunk', text: chunk });
    return Promise.resolve();
  }

  plan(current: ZoneSets, limits: { readonly maxRecordSets?: number }): Promise<ImportedPlan> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise<ImportedPlan>((resolve, reject) => {
      this.waiting = { resolve, reject };
      const list: RecordSet[] = [];
      current.forEach((s) => list.push(s));
      this.send({ kind: 'plan', current: list, ...(limits.maxRecordSets !== undefined ? { maxRecordSets: limits.maxRecordSets } : {}) });
    });
  }

  /** Stops the thread; the promise is settled once it has exited. */
  close(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    const exited = w
      ? w.terminate().then(
          () => undefined,
          () => undefined,
        )
      : Promise.resolve();
    const released = this.released;
    this.released = null;
    released?.();
    return exited;
  }

  private send(m: ToThread): void {
    if (!this.worker) throw new Error('the import session is closed');
    this.worker.postMessage(m);
  }

  private received(m: FromThread): void {
    if (m.kind === 'changes') {
      this.parts.push(m.json);
      return;
    }
    this.read = m.recordsRead;
    this.skippedList = m.skipped;
    if (m.kind === 'failed') {
      const e = m.error;
      this.fail('code' in e ? new DomainError(e.code as ErrorCode, e.params as never) : new Error(e.message));
      return;
    }
    const changes: ChangesJson = { json: `[${this.parts.join(',')}]`, counts: m.counts };
    this.parts = [];
    const plan: ImportedPlan = { changes, checks: m.checks as CheckResult[], valid: m.valid };
    const waiting = this.waiting;
    this.waiting = null;
    // The plan is answered once the thread is gone: its heap is given back before the plan is stored.
    const exited = this.close();
    void exited.then(() => waiting?.resolve(plan));
  }

  private fail(err: unknown): void {
    if (this.failure) return;
    this.failure = err;
    const waiting = this.waiting;
    this.waiting = null;
    this.close();
    waiting?.reject(err);
  }
}
