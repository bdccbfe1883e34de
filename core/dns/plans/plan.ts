import type { Environment } from '../../kernel/environment.js';
import type { RecordSet, RecordType } from '../zone/record-set.js';

/** One change of a plan (DESIGN: Wire formats). update and delete state the exact current set. */
export interface Change {
  readonly action: 'create' | 'update' | 'delete';
  readonly name: string;
  readonly type: RecordType;
  readonly ttl?: number;
  readonly values?: readonly string[];
  readonly current?: { readonly ttl: number; readonly values: readonly string[] };
}

/** A check result (the minimum rules, each with an id that names its subject). */
export interface CheckResult {
  readonly severity: 'error' | 'warning';
  readonly rule: string;
  readonly name: string;
  readonly type: string | null;
  readonly message: { readonly uk: string; readonly en: string };
}

/** A plan is a value (octoDNS Plan): the base it was made on, the ordered changes, every check result. */
export interface Plan {
  readonly id: string;
  readonly accountId: string;
  readonly environment: Environment;
  readonly domain: string;
  readonly source: 'changes' | 'records' | 'zone_file';
  readonly baseSerial: number;
  readonly changes: readonly Change[];
  /** Every record set the plan touches, as it was when the plan was made (null: absent). */
  readonly before: ReadonlyArray<{ readonly name: string; readonly type: RecordType; readonly set: RecordSet | null }>;
  readonly checks: readonly CheckResult[];
  readonly valid: boolean;
  readonly createdAt: Date;
  readonly expiresAt: Date;
  readonly appliedAt: Date | null;
  readonly keyId: string;
}
