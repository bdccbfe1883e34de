import type { Environment } from '../../kernel/environment.js';
import type { ErrorCode, Param } from '../../kernel/errors.js';
import type { SkippedRecord } from '../zone/zone-file.js';

/** Where the records come from: a zone file (JSON `zone_file` or a raw `text/dns` body), or AXFR. */
export type ImportSource = 'zone_file' | 'axfr';
export type ImportStatus = 'running' | 'ready' | 'failed';

/** What an import left out, grouped by type and reason, with the first few names as examples. */
export interface SkippedGroup {
  readonly type: string;
  readonly reason: SkippedRecord['reason'];
  readonly count: number;
  readonly names: readonly string[];
}

/** Why an import failed: a stable code and the facts its message needs (the HTTP error table words it). */
export interface ImportFailure {
  readonly code: ErrorCode;
  readonly params: Readonly<Record<string, Param>>;
}

/** A TSIG key (RFC 8945) to sign the AXFR request with; only ever stored sealed, and only while the pull runs. */
export interface TsigKey {
  readonly name: string;
  readonly algorithm: string;
  readonly secret: string;
}

/** One import job as the store keeps it. */
export interface ZoneImportRecord {
  readonly id: string;
  readonly accountId: string;
  readonly environment: Environment;
  readonly domain: string;
  readonly keyId: string;
  readonly source: ImportSource;
  /** host:port of the AXFR source; null for a zone file. */
  readonly server: string | null;
  /** The TSIG key, sealed (SecretBox); null when none was given or once the pull ended. */
  readonly tsigSealed: string | null;
  readonly status: ImportStatus;
  readonly recordsRead: number;
  readonly skipped: readonly SkippedGroup[];
  readonly planId: string | null;
  readonly error: ImportFailure | null;
  readonly createdAt: Date;
  readonly finishedAt: Date | null;
}

/** How an import ends: every field the job's row gets, and the sealed secret gone. */
export interface ImportOutcome {
  readonly status: 'ready' | 'failed';
  readonly recordsRead: number;
  readonly skipped: readonly SkippedGroup[];
  readonly planId: string | null;
  readonly error: ImportFailure | null;
  readonly finishedAt: Date;
}

/** The API's view (DESIGN "Zone import"); `error` is still the code and facts, worded by the HTTP layer. */
export interface ZoneImportView {
  readonly id: string;
  readonly domain: string;
  readonly source: ImportSource;
  readonly server: string | null;
  readonly status: ImportStatus;
  readonly records_read: number;
  readonly skipped: readonly SkippedGroup[];
  readonly plan_id: string | null;
  readonly error: ImportFailure | null;
  readonly created_at: string;
  readonly finished_at: string | null;
}

export const importView = (r: ZoneImportRecord): ZoneImportView => ({
  id: r.id,
  domain: r.domain,
  source: r.source,
  server: r.server,
  status: r.status,
  records_read: r.recordsRead,
  skipped: r.skipped,
  plan_id: r.planId,
  error: r.error,
  created_at: r.createdAt.toISOString(),
  finished_at: r.finishedAt?.toISOString() ?? null,
});

/** At most this many example names per skipped group. */
const EXAMPLES = 5;

/** Counts skipped records by type and reason as they stream past (memory stays small for any zone). */
export class SkippedTally {
  private readonly groups = new Map<string, { type: string; reason: SkippedRecord['reason']; count: number; names: string[] }>();

  add(s: SkippedRecord): void {
    const key = `${s.type}\u0000${s.reason}`;
    let g = this.groups.get(key);
    if (!g) this.groups.set(key, (g = { type: s.type, reason: s.reason, count: 0, names: [] }));
    g.count++;
    if (g.names.length < EXAMPLES && !g.names.includes(s.name)) g.names.push(s.name);
  }

  list(): SkippedGroup[] {
    return [...this.groups.values()].sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
  }
}
