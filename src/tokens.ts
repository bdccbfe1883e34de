import type { ServiceIdentifier } from 'inversify';
import type { Logger } from 'pino';
import type { SqlStore } from '../adapters/sql/index.js';
import type { AuthenticateKey } from '../core/access/authenticate-key.use-case.js';
import type { Authorizer } from '../core/access/authorize.js';
import type { DescribeKey } from '../core/access/describe-key.use-case.js';
import type { IssueKey } from '../core/access/issue-key.use-case.js';
import type { ListKeys, RevokeKey } from '../core/access/manage-keys.use-case.js';
import type { SecretHasher } from '../core/access/ports/secret-hasher.port.js';
import type { PasswordHasher, TotpVerifier } from '../core/accounts/ports/credentials.port.js';
import type { AuthenticateSession, SignIn, SignOut } from '../core/accounts/sign-in.use-case.js';
import type { GetDomain, ListDomains } from '../core/domains/read-domains.use-case.js';
import type { SearchDomains } from '../core/domains/search-domains.use-case.js';
import type { ListNotices } from '../core/notices/list-notices.use-case.js';
import type { NotifyOwners } from '../core/notices/notify-owners.js';
import type { SeedDemo } from '../core/sandbox/seed-demo.use-case.js';
import type { Clock } from '../core/shared/clock.port.js';
import type { EnvironmentAdapters, Environments } from '../core/shared/environments.port.js';
import type { Random } from '../core/shared/random.port.js';
import type { SecretBox } from '../core/shared/secret-box.port.js';
import type { Config } from './config.js';
import type { ZonePublisherHub } from './zone-publisher-hub.js';
import type { ZoneService } from '../core/dns/zone-service.js';
import type { ReadZone } from '../core/dns/read-zone.use-case.js';
import type { AcmeChallenges } from '../core/dns/acme-challenges.use-case.js';
import type { DnsPlans } from '../core/dns/dns-plans.use-case.js';
import type { Accounting } from '../core/billing/accounting.js';
import type { ReadBilling } from '../core/billing/read-billing.use-case.js';
import type { TopUpBalance } from '../core/billing/top-up-balance.use-case.js';
import type { AdvanceLifecycle } from '../core/domains/advance-lifecycle.use-case.js';
import type { RegisterDomain } from '../core/domains/register-domain.use-case.js';
import type { RenewDomain } from '../core/domains/renew-domain.use-case.js';
import type { SetAutoRenew } from '../core/domains/set-auto-renew.use-case.js';
import type { DeliverNotices } from '../core/notices/deliver-notices.use-case.js';
import type { ListKeyNotices } from '../core/notices/list-key-notices.use-case.js';
import type { Mailer } from '../core/notices/ports/mailer.port.js';
import type { AccountTime } from '../core/sandbox/account-time.js';
import type { AdvanceSandboxClock } from '../core/sandbox/advance-clock.use-case.js';
import type { Certificates } from '../core/certificates/certificates.use-case.js';
import type { CertificateIssuance } from '../core/certificates/certificate-issuance.use-case.js';
import type { CertificateStatusQuery } from '../core/certificates/certificate-status.use-case.js';
import type { CertificateKeys } from '../core/certificates/ports/certificate-keys.port.js';
import type { InProcessIssuanceQueue } from './issuance-queue.js';

/** Injection tokens. Core classes carry no decorators: src/ binds them by explicit token. */
const t = <T>(name: string) => Symbol.for(`domivka.${name}`) as ServiceIdentifier<T>;

export const TOKENS = {
  Config: t<Config>('Config'),
  Logger: t<Logger>('Logger'),
  Store: t<SqlStore>('Store'),
  Clock: t<Clock>('Clock'),
  Random: t<Random>('Random'),
  SecretHasher: t<SecretHasher>('SecretHasher'),
  PasswordHasher: t<PasswordHasher>('PasswordHasher'),
  Totp: t<TotpVerifier>('Totp'),
  SecretBox: t<SecretBox>('SecretBox'),
  TestAdapters: t<EnvironmentAdapters>('TestAdapters'),
  LiveAdapters: t<EnvironmentAdapters>('LiveAdapters'),
  Environments: t<Environments>('Environments'),
  NotifyOwners: t<NotifyOwners>('NotifyOwners'),
  Authorizer: t<Authorizer>('Authorizer'),
  AuthenticateKey: t<AuthenticateKey>('AuthenticateKey'),
  AuthenticateSession: t<AuthenticateSession>('AuthenticateSession'),
  SignIn: t<SignIn>('SignIn'),
  SignOut: t<SignOut>('SignOut'),
  IssueKey: t<IssueKey>('IssueKey'),
  ListKeys: t<ListKeys>('ListKeys'),
  RevokeKey: t<RevokeKey>('RevokeKey'),
  DescribeKey: t<DescribeKey>('DescribeKey'),
  GetDomain: t<GetDomain>('GetDomain'),
  ListDomains: t<ListDomains>('ListDomains'),
  SearchDomains: t<SearchDomains>('SearchDomains'),
  ListNotices: t<ListNotices>('ListNotices'),
  SeedDemo: t<SeedDemo>('SeedDemo'),
  Accounting: t<Accounting>('Accounting'),
  AccountTime: t<AccountTime>('AccountTime'),
  RegisterDomain: t<RegisterDomain>('RegisterDomain'),
  RenewDomain: t<RenewDomain>('RenewDomain'),
  SetAutoRenew: t<SetAutoRenew>('SetAutoRenew'),
  TopUpBalance: t<TopUpBalance>('TopUpBalance'),
  ReadBilling: t<ReadBilling>('ReadBilling'),
  ListKeyNotices: t<ListKeyNotices>('ListKeyNotices'),
  AdvanceSandboxClock: t<AdvanceSandboxClock>('AdvanceSandboxClock'),
  AdvanceLifecycle: t<AdvanceLifecycle>('AdvanceLifecycle'),
  Mailer: t<Mailer>('Mailer'),
  DeliverNotices: t<DeliverNotices>('DeliverNotices'),
  ZonePublisher: t<ZonePublisherHub>('ZonePublisher'),
  ZoneService: t<ZoneService>('ZoneService'),
  ReadZone: t<ReadZone>('ReadZone'),
  AcmeChallenges: t<AcmeChallenges>('AcmeChallenges'),
  DnsPlans: t<DnsPlans>('DnsPlans'),
  CertificateKeys: t<CertificateKeys>('CertificateKeys'),
  Certificates: t<Certificates>('Certificates'),
  CertificateIssuance: t<CertificateIssuance>('CertificateIssuance'),
  CertificateStatusQuery: t<CertificateStatusQuery>('CertificateStatusQuery'),
  IssuanceQueue: t<InProcessIssuanceQueue>('IssuanceQueue'),
} as const;
