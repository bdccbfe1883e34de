import type { Environment } from '../../kernel/environment.js';

/**
 * A registered domain gets its zone on our nameservers, and loses it when it is released. The DNS
 * capability serves this port; domains never reach into DNS otherwise.
 */
export interface DomainZones {
  /** Creates the default zone for a new domain, inside the caller's transaction. */
  create(accountId: string, environment: Environment, domain: string): Promise<unknown>;
  /** Creates a hosted domain's zone (empty apex SOA/NS), stored but not served until verified. */
  createHosted(accountId: string, environment: Environment, domain: string): Promise<unknown>;
  /** Starts or stops serving a hosted domain's zone. */
  serve(accountId: string, environment: Environment, domain: string, served: boolean): Promise<void>;
  /** Removes the zone (and stops serving it) when the domain leaves the account. */
  remove(accountId: string, environment: Environment, domain: string): Promise<void>;
}
