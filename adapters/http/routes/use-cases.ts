import type { DescribeKey } from '../../../core/access/describe-key.use-case.js';
import type { IssueKey } from '../../../core/access/issue-key.use-case.js';
import type { ListKeys, RevokeKey } from '../../../core/access/manage-keys.use-case.js';
import type { SignIn, SignOut } from '../../../core/accounts/sign-in.use-case.js';
import type { ListDomains, GetDomain } from '../../../core/domains/read-domains.use-case.js';
import type { SearchDomains } from '../../../core/domains/search-domains.use-case.js';
import type { ListNotices } from '../../../core/notices/list-notices.use-case.js';
import type { ReadBilling } from '../../../core/billing/read-billing.use-case.js';
import type { TopUpBalance } from '../../../core/billing/top-up-balance.use-case.js';
import type { RegisterDomain } from '../../../core/domains/register-domain.use-case.js';
import type { RenewDomain } from '../../../core/domains/renew-domain.use-case.js';
import type { SetAutoRenew } from '../../../core/domains/set-auto-renew.use-case.js';
import type { ListKeyNotices } from '../../../core/notices/list-key-notices.use-case.js';
import type { AdvanceSandboxClock } from '../../../core/sandbox/advance-clock.use-case.js';
import type { AcmeChallenges } from '../../../core/dns/acme-challenges.use-case.js';
import type { DnsPlans } from '../../../core/dns/dns-plans.use-case.js';
import type { ReadZone } from '../../../core/dns/read-zone.use-case.js';
import type { Certificates } from '../../../core/certificates/certificates.use-case.js';

/** The use cases the routes call, one per route (assembled in src/, the composition root). */
export interface UseCases {
  readonly signIn: Pick<SignIn, 'execute'>;
  readonly signOut: Pick<SignOut, 'execute'>;
  readonly issueKey: Pick<IssueKey, 'preview' | 'issue'>;
  readonly listKeys: Pick<ListKeys, 'execute'>;
  readonly revokeKey: Pick<RevokeKey, 'execute'>;
  readonly describeKey: Pick<DescribeKey, 'execute'>;
  readonly getDomain: Pick<GetDomain, 'execute'>;
  readonly listDomains: Pick<ListDomains, 'execute'>;
  readonly searchDomains: Pick<SearchDomains, 'execute'>;
  readonly listNotices: Pick<ListNotices, 'execute'>;
  readonly registerDomain: Pick<RegisterDomain, 'execute'>;
  readonly renewDomain: Pick<RenewDomain, 'execute'>;
  readonly setAutoRenew: Pick<SetAutoRenew, 'execute'>;
  readonly readBilling: Pick<ReadBilling, 'balance' | 'transactions'>;
  readonly topUp: Pick<TopUpBalance, 'execute'>;
  readonly listKeyNotices: Pick<ListKeyNotices, 'execute'>;
  readonly advanceSandboxClock: Pick<AdvanceSandboxClock, 'execute'>;
  readonly readZone: Pick<ReadZone, 'records' | 'zoneFile'>;
  readonly dnsPlans: Pick<DnsPlans, 'create' | 'get' | 'apply'>;
  readonly acmeChallenges: Pick<AcmeChallenges, 'add' | 'remove'>;
  readonly certificates: Pick<Certificates, 'request' | 'list' | 'get' | 'chain' | 'privateKey' | 'revoke' | 'trustRoot'>;
}
