import type { Environment } from '../../kernel/environment.js';

/** What access needs of a domain: its name and the labels it carries now. */
export interface ScopedDomain {
  readonly name: string;
  readonly labels: readonly string[];
}

/**
 * Where access looks a domain up when it checks a right (the domains capability's store serves it).
 * Generic so the caller gets back the whole record it stored, not just the scoped view.
 */
export interface DomainDirectory<D extends ScopedDomain = ScopedDomain> {
  find(accountId: string, environment: Environment, name: string): Promise<D | null>;
  /**
   * What find would give, when an in-memory copy can be trusted right now (null: known to be absent);
   * undefined: ask find. Lets a request be authorised without a promise.
   */
  cached?(accountId: string, environment: Environment, name: string): D | null | undefined;
}
