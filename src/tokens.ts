import type { Recorder } from '../core/kernel/recorder.js';
import type { Visibility } from '../core/kernel/visibility.port.js';
import type { Domain } from '../core/domains/domain.js';
import type { ProcessRegistryMessages } from '../core/domains/process-registry-messages.use-case.js';
import type { McpTools } from '../adapters/mcp/index.js';
import type { ServiceIdentifier } from 'inversify';
import type { Logger } from 'pino';
import type { SqlStore } from '../adapters/sql/index.js';
import type { AuthenticateKey } from '../core/access/authenticate-key.use-case.js';
import type { Authorizer } from '../core/access/authorize.js';
import type { DescribeKey } from '../core/access/describe-key.use-case.js';
import type { IssueKey } from '../core/access/issue-key.use-case.js';
import type { ListKeys, RevokeKey } from '../core/access/manage-keys.use-case.js';
import type { SecretHasher } from '../core/kernel/secret-hasher.port.js';
import type { PasswordHasher, TotpVerifier } from '../core/accounts/ports/credentials.port.js';
import type { AuthenticateSession, SignIn, SignOut } from '../core/accounts/sign-in.use-case.js';
import type { GetDomain, ListDomains } from '../core/domains/read-domains.use-case.js';
import type { SearchDomains } from '../core/domains/search-domains.use-case.js';
import type { ListNotices } from '../core/notices/list-notices.use-case.js';
import type { NotifyOwners } from '../core/notices/notify-owners.js';
import type { SeedDemo } from '../core/sandbox/seed-demo.use-case.js';
import type { Clock } from '../core/kernel/clock.port.js';
import type { Environments } from '../core/kernel/environments.port.js';
import type { Registrar } from '../core/domains/ports/registrar.port.js';
import type { Payments } from '../core/billing/ports/payments.port.js';
import type { CertificateAuthority } from '../core/certificates/ports/certificate-authority.port.js';
import type { Random } from '../core/kernel/random.port.js';
import type { SecretBox } from '../core/kernel/secret-box.port.js';
import type { Config } from './config.js';
import type { ZonePublisherHub } from '../adapters/dns/zone-publisher-hub.js';
import type { ZoneService } from '../core/dns/zone/zone-service.js';
import type { ReadZone } from '../core/dns/zone/read-zone.use-case.js';
import type { AcmeChallenges } from '../core/dns/acme/acme-challenges.use-case.js';
import type { DnsPlans } from '../core/dns/plans/dns-plans.use-case.js';
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
import type { Reauthenticate } from '../core/accounts/reauthenticate.use-case.js';
import type { ManagePeople } from '../core/accounts/manage-people.use-case.js';
import type { DisableTwoFactor } from '../core/accounts/disable-two-factor.use-case.js';
import type { EnableTwoFactor } from '../core/accounts/enable-two-factor.use-case.js';
import type { DeleteAccount } from '../core/accounts/delete-account.use-case.js';
import type { RevealTransferCode } from '../core/domains/reveal-transfer-code.use-case.js';
import type { ChangeRegistrant } from '../core/domains/change-registrant.use-case.js';
import type { ChangePaymentMethod } from '../core/billing/change-payment-method.use-case.js';
import type { HumanReads } from '../core/console/human-reads.use-case.js';
import type { CardSetup } from '../core/billing/ports/card-setup.port.js';
import type { OperationAccess } from '../core/operations/operation-access.js';
import type { OperationLog } from '../core/operations/operation-log.js';
import type { RequestOperation } from '../core/operations/request-operation.use-case.js';
import type { ConfirmOperation } from '../core/operations/confirm-operation.use-case.js';
import type { CancelOperation } from '../core/operations/cancel-operation.use-case.js';
import type { GetOperation, ListOperations } from '../core/operations/read-operations.use-case.js';
import type { ActivateOperation } from '../core/operations/activate-operation.js';
import type { ActivateDueOperations } from '../core/operations/activate-due-operations.use-case.js';
import type { LockTransfer } from '../core/operations/lock-transfer.use-case.js';
import type { ListEvents } from '../core/events/list-events.use-case.js';
import type { PublishEvents } from '../core/webhooks/publish-events.use-case.js';
import type { ManageWebhooks } from '../core/webhooks/manage-webhooks.use-case.js';
import type { DeliverWebhooks } from '../core/webhooks/deliver-webhooks.use-case.js';
import type { StandardWebhooksSender } from '../adapters/net/webhooks/index.js';
import type { CreateMonitor } from '../core/monitoring/create-monitor.use-case.js';
import type { UpdateMonitor } from '../core/monitoring/update-monitor.use-case.js';
import type { DeleteMonitor } from '../core/monitoring/delete-monitor.use-case.js';
import type { GetMonitor, ListMonitors } from '../core/monitoring/read-monitors.use-case.js';
import type { ListMonitorResults } from '../core/monitoring/monitor-results.use-case.js';
import type { MonitorReport } from '../core/monitoring/monitor-report.use-case.js';
import type { RunMonitorChecks } from '../core/monitoring/run-monitor-checks.use-case.js';
import type { PruneMonitorResults } from '../core/monitoring/prune-monitor-results.use-case.js';
import type { ProbesFor } from '../core/monitoring/ports/probes.port.js';

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
  Environments: t<Environments<EnvironmentAdapters>>('Environments'),
  NotifyOwners: t<NotifyOwners>('NotifyOwners'),
  Authorizer: t<Authorizer<Domain>>('Authorizer'),
  Visibility: t<Visibility>('Visibility'),
  Recorder: t<Recorder>('Recorder'),
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
  // the six human-only actions and the console (issue 10)
  Reauthenticate: t<Reauthenticate>('Reauthenticate'),
  ManagePeople: t<ManagePeople>('ManagePeople'),
  DisableTwoFactor: t<DisableTwoFactor>('DisableTwoFactor'),
  EnableTwoFactor: t<EnableTwoFactor>('EnableTwoFactor'),
  DeleteAccount: t<DeleteAccount>('DeleteAccount'),
  RevealTransferCode: t<RevealTransferCode>('RevealTransferCode'),
  ChangeRegistrant: t<ChangeRegistrant>('ChangeRegistrant'),
  ChangePaymentMethod: t<ChangePaymentMethod>('ChangePaymentMethod'),
  HumanReads: t<HumanReads>('HumanReads'),
  /** The live card setup (Stripe SetupIntents), bound with the live adapter set. */
  LiveCardSetup: t<CardSetup>('LiveCardSetup'),
  // class 3 operations (issue 10)
  OperationAccess: t<OperationAccess>('OperationAccess'),
  OperationLog: t<OperationLog>('OperationLog'),
  RequestOperation: t<RequestOperation>('RequestOperation'),
  ConfirmOperation: t<ConfirmOperation>('ConfirmOperation'),
  CancelOperation: t<CancelOperation>('CancelOperation'),
  GetOperation: t<GetOperation>('GetOperation'),
  ListOperations: t<ListOperations>('ListOperations'),
  ActivateOperation: t<ActivateOperation>('ActivateOperation'),
  ActivateDueOperations: t<ActivateDueOperations>('ActivateDueOperations'),
  LockTransfer: t<LockTransfer>('LockTransfer'),
  // issue 11: events and webhooks
  ListEvents: t<ListEvents>('ListEvents'),
  PublishEvents: t<PublishEvents>('PublishEvents'),
  ManageWebhooks: t<ManageWebhooks>('ManageWebhooks'),
  DeliverWebhooks: t<DeliverWebhooks>('DeliverWebhooks'),
  WebhookSender: t<StandardWebhooksSender>('WebhookSender'),
  // monitoring (issue 11)
  MonitorProbes: t<ProbesFor>('MonitorProbes'),
  CreateMonitor: t<CreateMonitor>('CreateMonitor'),
  UpdateMonitor: t<UpdateMonitor>('UpdateMonitor'),
  DeleteMonitor: t<DeleteMonitor>('DeleteMonitor'),
  ListMonitors: t<ListMonitors>('ListMonitors'),
  GetMonitor: t<GetMonitor>('GetMonitor'),
  ListMonitorResults: t<ListMonitorResults>('ListMonitorResults'),
  MonitorReport: t<MonitorReport>('MonitorReport'),
  RunMonitorChecks: t<RunMonitorChecks>('RunMonitorChecks'),
  PruneMonitorResults: t<PruneMonitorResults>('PruneMonitorResults'),
  Mcp: t<McpTools>('Mcp'),
  ProcessRegistryMessages: t<ProcessRegistryMessages>('ProcessRegistryMessages'),
} as const;

/** One environment's adapter set: every capability's `Environments<…>` port is served by these. */
export interface EnvironmentAdapters {
  readonly registrar: Registrar;
  readonly payments: Payments;
  readonly ca: CertificateAuthority;
}
