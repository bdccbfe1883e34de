import type { Environment } from '../../kernel/environment.js';

/**
 * A registered domain gets its zone on our nameservers, and loses it when it is released. The DNS
 * capability serves this port; domains never reach into DNS otherwise.
 */
export interface DomainZones {
  /** Creates the default zone for a new domain, inside the caller's transaction. */
  create(accountId: string, environment: Environment, domain: string): Promise<unknown>;
  /**
   * A domain transferred in joins the account: the zone the account already has for the name (prepared
   * beforehand as a hosted domain) is kept as it is, so answers continue with no gap; otherwise the
   * default zone is created. Inside the caller's transaction.
   */
  adopt(accountId: string, environment: Environment, domain: string): Promise<'kept' | 'created'>;
  /** Creates a hosted domain's zone (empty apex SOA/NS), stored but not served until verified. */
  createHosted(accountId: string, environment: Environment, domain: string): Promise<unknown>;
  /** Starts or stops serving a hosted domain's zone. */
  serve(accountId: string, environment: Environment, domain: string, served: boolean): Promise<void>;
  /** Removes the zone (and stops serving it) when the domain leaves the account. */
  remove(accountId: string, environment: Environment, domain: string): Promise<void>;
}
