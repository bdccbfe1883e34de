import type { Environment } from '../../kernel/environment.js';
import type { DomainTransfer, TransferPhase } from '../transfer.js';

export interface TransferRepository {
  /** Inserts a new active transfer; false when another transfer of the name is under way in the environment. */
  insertActive(t: DomainTransfer): Promise<boolean>;
  find(accountId: string, environment: Environment, id: string): Promise<DomainTransfer | null>;
  /** The transfers of one name in an account, newest first. */
  listFor(accountId: string, environment: Environment, domain: string, limit: number): Promise<DomainTransfer[]>;
  /** The transfers of an account, either direction, newest first; `before` is the last page's
   * "created_at|id" sort key; `active` keeps only those under way. */
  listRecent(
    accountId: string,
    environment: Environment,
    q: { readonly before?: string; readonly limit: number; readonly active?: boolean },
  ): Promise<DomainTransfer[]>;
  /** The active transfer of a name, in any account of the environment. */
  activeFor(environment: Environment, domain: string): Promise<DomainTransfer | null>;
  /** Active transfers to look at (oldest first), of one environment and, when given, one account. */
  listActive(q: {
    environment: Environment;
    accountId?: string;
    excludeAccounts?: readonly string[];
    limit: number;
  }): Promise<DomainTransfer[]>;
  /**
   * Moves a transfer from one of `from` to `to` with the fields given, only if it is still in one of
   * `from` (compare and set): true for the one caller that moved it. An ended transfer loses its authInfo
   * and its `active` mark here.
   */
  /** Sets a transfer out's keep-zone choice while it is under way; false when it already ended. */
  setKeepZone(id: string, keep: boolean): Promise<boolean>;
  advance(
    id: string,
    from: readonly TransferPhase[],
    to: TransferPhase,
    fields: Partial<Pick<DomainTransfer, 'registryStatus' | 'actionAt' | 'registeredUntil' | 'error' | 'finishedAt'>>,
  ): Promise<boolean>;
}
