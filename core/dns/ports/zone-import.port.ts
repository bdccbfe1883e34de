import type { Environment } from '../../kernel/environment.js';
import type { ImportOutcome, SkippedGroup, TsigKey, ZoneImportRecord } from '../imports/zone-import.js';
import type { Change, ChangesJson, CheckResult } from '../plans/plan.js';
import type { ZoneSets } from '../zone/zone-sets.js';

export interface ZoneImportRepository {
  insert(record: ZoneImportRecord): Promise<void>;
  find(accountId: string, environment: Environment, id: string): Promise<ZoneImportRecord | null>;
  /** The newest import of the zone still running, if any. */
  running(accountId: string, environment: Environment, domain: string): Promise<ZoneImportRecord | null>;
  /** The import ended: its outcome written and its sealed TSIG secret erased, in one update. */
  finish(id: string, outcome: ImportOutcome): Promise<void>;
  /** The pull ended: the sealed TSIG secret is erased at once (the plan is built after). */
  discardSecret(id: string): Promise<void>;
}

export interface AxfrRequest {
  readonly host: string;
  readonly port: number;
  /** The zone asked for (A-labels, no trailing dot). */
  readonly zone: string;
  readonly tsig: TsigKey | null;
  /** The whole pull, connect included. */
  readonly timeoutMs: number;
  /** Bytes read from the server at most (import_too_large past it). */
  readonly maxBytes: number;
}

/**
 * A zone transfer client (RFC 5936 AXFR over TCP): the records come back as master-file text, one record
 * per line with absolute names, so one zone-file parser reads both sources. It throws DomainErrors with
 * the axfr_* codes (refused, timeout, an rcode, no closing SOA, a bad TSIG) and never reaches an address
 * its guard refuses (axfr_server_not_allowed).
 */
export interface ZoneTransferClient {
  pull(request: AxfrRequest): AsyncIterable<string>;
}

/** What reading a zone file into a plan needs to know before the first chunk (the import's caps). */
export interface ImportPlanStart {
  /** The zone (A-labels, no trailing dot). */
  readonly origin: string;
  /** Records read (skipped ones included) at most: past it the read fails with import_too_many_records. */
  readonly maxRecords: number;
  /** Records one `$GENERATE` may make at most. */
  readonly generateMax: number;
  /** Characters all `$GENERATE`s of the file may write together (the import's byte limit); unset: the parser's own bound. */
  readonly generateMaxChars?: number;
}

/** The plan an import built: what DnsPlans stores as an ordinary whole-zone plan. */
export interface ImportedPlan {
  /** The changes, or (from a planning thread) their JSON text, stored as it is. */
  readonly changes: readonly Change[] | ChangesJson;
  readonly checks: readonly CheckResult[];
  readonly valid: boolean;
}

/**
 * One import's reading and planning: zone-file text pushed in chunks (the strict import parser), then the
 * whole-zone plan against the zone as it is then. `push` and `plan` fail with the parser's DomainErrors
 * (zone_file_* codes, import_too_many_records) — `push` perhaps only at a later chunk, or at `plan`, when
 * the reading runs elsewhere. `recordsRead` and `skipped` are the figures so far (on a failure, up to it).
 * `close` frees what the session holds; it may be called at any time, also twice.
 */
export interface ImportPlanSession {
  push(chunk: string): Promise<void>;
  plan(current: ZoneSets, limits: { readonly maxRecordSets?: number }): Promise<ImportedPlan>;
  readonly recordsRead: number;
  skipped(): SkippedGroup[];
  close(): void;
}

/**
 * Reads zone files into plans. For a large zone this is seconds of CPU and hundreds of megabytes: an
 * adapter runs it off the API's event loop (a worker thread, adapters/dns/import-planner), so other
 * requests are answered meanwhile. `inlineImportPlanner` (core/dns/imports) does it in the caller's thread.
 */
export interface ImportPlanner {
  start(request: ImportPlanStart): ImportPlanSession;
}
