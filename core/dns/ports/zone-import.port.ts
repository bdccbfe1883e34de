import type { Environment } from '../../kernel/environment.js';
import type { ImportOutcome, TsigKey, ZoneImportRecord } from '../imports/zone-import.js';

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
