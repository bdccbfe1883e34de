import type { Environment } from '../../kernel/environment.js';
import type { Operation, OperationStatus } from '../operation.js';

export interface OperationListQuery {
  readonly accountId: string;
  readonly environment: Environment;
  /** Only operations on these domains (by name) or on domains carrying one of these labels; all: no filter. */
  readonly scope: { readonly all: boolean; readonly names: readonly string[]; readonly labels: readonly string[] };
  readonly domain?: string;
  readonly status?: OperationStatus;
  /** Newest first: strictly before this (created_at ISO, id) position. */
  readonly before?: { readonly createdAt: string; readonly id: string };
  readonly limit: number;
}

export interface OperationRepository {
  /** Inserts a pending operation; false when another operation on the domain is already pending
   * (the unique pending_domain column decides, so concurrent requests cannot both win). */
  insert(op: Operation): Promise<boolean>;
  find(accountId: string, id: string): Promise<Operation | null>;
  pendingOn(domainId: string): Promise<Operation | null>;
  /** Pending operations of the account requested through this key, or by this person (through any of
   * their keys or in the console). */
  pendingRequestedBy(accountId: string, by: { readonly keyId: string } | { readonly personId: string }): Promise<Operation[]>;
  list(q: OperationListQuery): Promise<Operation[]>;
  /** Writes status, confirmations, activates_at, resolution fields — only while the row is still
   * `pending`, and with `token` only while leased by that token, with `unleasedAt` only while nobody
   * holds a lease at that (real) time. False: someone else changed or holds it. Resolving frees the domain. */
  update(op: Operation, expect: { token?: string; unleasedAt?: Date }): Promise<boolean>;
  /** Takes the activation lease of one pending operation (conditional update); false if held or resolved. */
  lease(id: string, token: string, now: Date, until: Date): Promise<boolean>;
  /**
   * Pending operations of one environment (and, when given, one account) due at `due`, leased to the
   * caller until `leaseUntil` (Postgres: FOR UPDATE SKIP LOCKED; a lease that runs out frees them).
   */
  claimDue(q: {
    environment: Environment;
    accountId?: string;
    excludeAccounts?: readonly string[];
    due: Date;
    now: Date;
    leaseUntil: Date;
    token: string;
    limit: number;
  }): Promise<Operation[]>;
  releaseLease(id: string, token: string): Promise<void>;
}

/** Labels are our own data: the labels operation writes them here (no registrar call). */
export interface DomainLabelWriter {
  setLabels(domainId: string, labels: readonly string[]): Promise<void>;
}
