import type { HumanReads } from '../../core/console/human-reads.use-case.js';
import type { AccountUseCases } from './routes/account.routes.js';
import type { BillingUseCases } from './routes/billing.routes.js';
import type { CertificatesUseCases } from './routes/certificates.routes.js';
import type { DnsUseCases } from './routes/dns.routes.js';
import type { DomainsUseCases } from './routes/domains.routes.js';
import type { HostedDomainsUseCases } from './routes/hosted-domains.routes.js';
import type { EventsUseCases } from './routes/events.routes.js';
import type { KeysUseCases } from './routes/keys.routes.js';
import type { MonitorsUseCases } from './routes/monitors.routes.js';
import type { NoticesUseCases } from './routes/notices.routes.js';
import type { OperationsUseCases } from './routes/operations.routes.js';
import type { SandboxUseCases } from './routes/sandbox.routes.js';
import type { WebhooksUseCases } from './routes/webhooks.routes.js';

/** What the console reads beyond the routes' use cases. */
export interface ConsoleUseCases {
  readonly humanReads: Pick<HumanReads, 'domainList' | 'domain' | 'billing'>;
}

/**
 * Everything the HTTP adapter calls: each routes file declares the use cases of its resource, and the
 * console calls the same ones (assembled in src/, the composition root).
 */
export type UseCases = KeysUseCases &
  AccountUseCases &
  DomainsUseCases &
  HostedDomainsUseCases &
  DnsUseCases &
  BillingUseCases &
  NoticesUseCases &
  SandboxUseCases &
  CertificatesUseCases &
  OperationsUseCases &
  EventsUseCases &
  WebhooksUseCases &
  MonitorsUseCases &
  ConsoleUseCases;
