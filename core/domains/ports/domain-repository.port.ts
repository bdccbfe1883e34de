import type { Environment } from '../../kernel/environment.js';
import type { DomainScope } from '../../kernel/visibility.port.js';
import type { Domain, RegisteredDomain } from '../domain.js';

export type { DomainScope };

export interface DomainListQuery {
  readonly accountId: string;
  readonly environment: Environment;
  readonly scope: DomainScope;
  readonly label?: string;
  readonly registrar?: 'domivka' | 'external';
  readonly hostingStatus?: 'pending_delegation' | 'active';
  readonly after?: string;
  readonly limit: number;
}

export interface DomainRepository {
  insert(domain: Domain): Promise<void>;
  find(accountId: string, environment: Environment, name: string): Promise<Domain | null>;
  list(query: DomainListQuery): Promise<Domain[]>;
  /** Which of `names` the account holds in the environment (an indexed read of just those names). */
  held(accountId: string, environment: Environment, names: readonly string[]): Promise<string[]>;
  /** Writes status, expiry, auto-renew, transfer lock, nameservers and the auto-renew failure mark. */
  update(domain: Domain): Promise<void>;
  /** Every account's row for `name` in one environment (several may claim a hosted name; one is served). */
  holdersOf(environment: Environment, name: string): Promise<Domain[]>;
  /** How many hosted domains the account has in the environment (HOSTED_DOMAIN_LIMIT). */
  countHosted(accountId: string, environment: Environment): Promise<number>;
  /** Active hosted domains in name order after `after` (the delegation re-check walks them in pages). */
  activeHosted(after: { name: string; id: string } | null, limit: number): Promise<Domain[]>;
  /** The domain is released: it leaves the account. */
  remove(id: string): Promise<void>;
  /**
   * Domains of one environment (and, when given, one account) whose expiry is on or before `until`,
   * leased to the caller until `leaseUntil` so that no other worker takes them meanwhile
   * (Postgres: FOR UPDATE SKIP LOCKED; a lease that runs out frees the domain again).
   */
  /**
   * Leases, for a lifecycle pass, domains expiring by `until` in (expires_on, id) order after the cursor
   * `after`, skipping leased ones; or, with `ids`, those domains whatever their expiry.
   */
  claimExpiring(q: {
    environment: Environment;
    accountId?: string;
    excludeAccounts?: readonly string[];
    until: string;
    after?: { expiresOn: string; id: string };
    ids?: readonly string[];
    now: Date;
    leaseUntil: Date;
    token: string;
    limit: number;
  }): Promise<RegisteredDomain[]>;
  releaseLease(id: string, token: string): Promise<void>;
}

/**
 * Serialises money operations on one domain across processes (DESIGN: concurrent renewals of one
 * domain are serialised, not refused): a lease on the domain row, waited for, renewed by nobody.
 */
export interface DomainLocks {
  /** Runs `fn` holding the domain's lease. Reads inside see the store as it is, never a per-process cache. */
  withLock<T>(domainId: string, fn: () => Promise<T>): Promise<T>;
  /** Runs `fn` for a domain whose lease the caller already holds (a worker's claim), reading as `withLock` does. */
  whileHeld<T>(fn: () => Promise<T>): Promise<T>;
}
