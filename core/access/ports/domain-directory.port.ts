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
}
