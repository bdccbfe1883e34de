import type { Environment } from '../../kernel/environment.js';

/**
 * A registered domain gets its zone on our nameservers, and loses it when it is released. The DNS
 * capability serves this port; domains never reach into DNS otherwise.
 */
export interface DomainZones {
  /** Creates the default zone for a new domain, inside the caller's transaction. */
  create(accountId: string, environment: Environment, domain: string): Promise<unknown>;
  /** Removes the zone (and stops serving it) when the domain leaves the account. */
  remove(accountId: string, environment: Environment, domain: string): Promise<void>;
}
