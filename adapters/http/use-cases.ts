import type { ApiKey } from '../../core/kernel/caller.js';
import type { RightName } from '../../core/kernel/rights.js';
import type { HumanReads } from '../../core/console/human-reads.use-case.js';
import type { Passwords } from '../../core/accounts/passwords.use-case.js';
import type { AccountUseCases } from './routes/account.routes.js';
import type { BillingUseCases } from './routes/billing.routes.js';
import type { CertificatesUseCases } from './routes/certificates.routes.js';
import type { DnsUseCases } from './routes/dns.routes.js';
import type { DnssecUseCases } from './routes/dnssec.routes.js';
import type { DomainsUseCases } from './routes/domains.routes.js';
import type { HostedDomainsUseCases } from './routes/hosted-domains.routes.js';
import type { EventsUseCases } from './routes/events.routes.js';
import type { KeysUseCases } from './routes/keys.routes.js';
import type { MonitorsUseCases } from './routes/monitors.routes.js';
import type { NoticesUseCases } from './routes/notices.routes.js';
import type { OperationsUseCases } from './routes/operations.routes.js';
import type { SandboxUseCases } from './routes/sandbox.routes.js';
import type { WebhooksUseCases } from './routes/webhooks.routes.js';
import type { TransfersUseCases } from './routes/transfers.routes.js';

import type { SecretBox } from '../../core/kernel/secret-box.port.js';
import type { FormOnceStore } from './console/form-once.js';

/** What the console reads beyond the routes' use cases. */
export interface ConsoleUseCases {
  readonly humanReads: Pick<HumanReads, 'domainList' | 'domain' | 'billing'>;
  /** The store's transactions: the console's phased writes (a registration, a top-up) run each phase in one. */
  readonly consoleWork: { transaction<T>(fn: () => Promise<T>): Promise<T> };
  readonly passwords: Passwords;
  readonly mail: ConsoleMail;
  /** The rights check the API's middleware runs from each route's declared access (the console runs the same). */
  readonly consoleAuthorizer: { check(key: ApiKey, right: RightName | readonly RightName[], domain?: string): Promise<unknown> };
  /** Seals the one-time views (an issued key, a new webhook secret…) the console hands from a POST to its GET
   * in a cookie: the cookie jar holds only ciphertext, readable by no other server than one with DATA_KEY. */
  readonly consoleBox: SecretBox;
  /** Where a console form's one send is claimed (the idempotency store: a double click does not act twice). */
  readonly consoleForms: FormOnceStore;
}

/** Whether e-mail leaves the server, and the in-app outbox of a server without a mail server. */
export interface ConsoleMail {
  /** SMTP_URL is set: mail is sent. */
  readonly configured: boolean;
  /** No mail server and not production: the console shows the outbox to whoever names the address. */
  readonly inApp: boolean;
  to(address: string, limit: number): Promise<Array<{ id: string; subject: string; body: string; createdAt: Date }>>;
}

/**
 * Everything the HTTP adapter calls: each routes file declares the use cases of its resource, and the
 * console calls the same ones (assembled in src/, the composition root).
 */
export type UseCases = KeysUseCases &
  AccountUseCases &
  DomainsUseCases &
  TransfersUseCases &
  HostedDomainsUseCases &
  DnsUseCases &
  DnssecUseCases &
  BillingUseCases &
  NoticesUseCases &
  SandboxUseCases &
  CertificatesUseCases &
  OperationsUseCases &
  EventsUseCases &
  WebhooksUseCases &
  MonitorsUseCases &
  ConsoleUseCases;
