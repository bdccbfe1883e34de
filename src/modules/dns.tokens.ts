import { token } from './token.js';
import type { ZonePublisherHub } from '../../adapters/dns/zone-publisher-hub.js';
import type { ZoneService } from '../../core/dns/zone/zone-service.js';
import type { ReadZone } from '../../core/dns/zone/read-zone.use-case.js';
import type { AcmeChallenges } from '../../core/dns/acme/acme-challenges.use-case.js';
import type { DnsPlans } from '../../core/dns/plans/dns-plans.use-case.js';
import type { ApplyDnsUpdate } from '../../core/dns/update/apply-dns-update.use-case.js';
import type { ImportZone } from '../../core/dns/imports/import-zone.use-case.js';
import type { AuthorizeTransfer } from '../../core/dns/update/authorize-transfer.use-case.js';

/** Injection tokens of the dns capability (src/ binds them by explicit token; core/ has no decorators). */
export const DNS_TOKENS = {
  ZonePublisher: token<ZonePublisherHub>('ZonePublisher'),
  ZoneService: token<ZoneService>('ZoneService'),
  ReadZone: token<ReadZone>('ReadZone'),
  AcmeChallenges: token<AcmeChallenges>('AcmeChallenges'),
  DnsPlans: token<DnsPlans>('DnsPlans'),
  ApplyDnsUpdate: token<ApplyDnsUpdate>('ApplyDnsUpdate'),
  ImportZone: token<ImportZone>('ImportZone'),
  AuthorizeTransfer: token<AuthorizeTransfer>('AuthorizeTransfer'),
} as const;
