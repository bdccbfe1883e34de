import type { Diagnostics } from '../core/kernel/diagnostics.port.js';
import { Recorder } from '../core/kernel/recorder.js';
import type { Visibility } from '../core/kernel/visibility.port.js';
import { KeyVisibility } from '../core/access/visibility.js';
import type { Domain } from '../core/domains/domain.js';
import { ContainerModule, type ServiceIdentifier } from 'inversify';
import pino, { type Logger } from 'pino';
import { SystemClock } from '../adapters/clock/system/index.js';
import { Argon2PasswordHasher } from '../adapters/credentials/argon2/index.js';
import { OtplibTotp } from '../adapters/credentials/otplib/index.js';
import { AesGcmSecretBox, NodeRandom, NodeSecretHasher } from '../adapters/crypto/node/index.js';
import { SandboxRegistrar } from '../adapters/registrar/sandbox/index.js';
import { SandboxPayments } from '../adapters/payments/sandbox/index.js';
import { StripeCardSetup, StripePayments } from '../adapters/payments/stripe/index.js';
import { createEppRegistrar, type EppRegistrar } from '../adapters/registrar/epp/index.js';
import { SqlDomainHolders } from '../adapters/sql/repositories/domains.repository.js';
import { ProcessRegistryMessages } from '../core/domains/process-registry-messages.use-case.js';
import { UnconfiguredPayments } from '../adapters/payments/unconfigured/index.js';
import { McpTools } from '../adapters/mcp/index.js';
import { SmtpMailer } from '../adapters/notify/smtp/index.js';
import { SqlStore } from '../adapters/sql/index.js';
import { AuthenticateKey } from '../core/access/authenticate-key.use-case.js';
import { Authorizer } from '../core/access/authorize.js';
import { DescribeKey } from '../core/access/describe-key.use-case.js';
import { IssueKey } from '../core/access/issue-key.use-case.js';
import { ListKeys, RevokeKey } from '../core/access/manage-keys.use-case.js';
import { AuthenticateSession, SignIn, SignOut } from '../core/accounts/sign-in.use-case.js';
import { GetDomain, ListDomains } from '../core/domains/read-domains.use-case.js';
import { SearchDomains } from '../core/domains/search-domains.use-case.js';
import { ListNotices } from '../core/notices/list-notices.use-case.js';
import { NotifyOwners } from '../core/notices/notify-owners.js';
import { noticesOnEvent } from '../core/notices/on-event.js';
import { SeedDemo } from '../core/sandbox/seed-demo.use-case.js';
import { Accounting } from '../core/billing/accounting.js';
import { ReadBilling } from '../core/billing/read-billing.use-case.js';
import { TopUpBalance } from '../core/billing/top-up-balance.use-case.js';
import { AdvanceLifecycle } from '../core/domains/advance-lifecycle.use-case.js';
import { SqlDurableCheckpoints } from '../adapters/sql/repositories/idempotency.repository.js';
import { RegisterDomain } from '../core/domains/register-domain.use-case.js';
import { RenewDomain } from '../core/domains/renew-domain.use-case.js';
import { SetAutoRenew } from '../core/domains/set-auto-renew.use-case.js';
import { DeliverNotices } from '../core/notices/deliver-notices.use-case.js';
import { ListKeyNotices } from '../core/notices/list-key-notices.use-case.js';
import { AccountTime } from '../core/sandbox/account-time.js';
import { AdvanceSandboxClock } from '../core/sandbox/advance-clock.use-case.js';
import { ZoneService } from '../core/dns/zone/zone-service.js';
import { ReadZone } from '../core/dns/zone/read-zone.use-case.js';
import { AcmeChallenges } from '../core/dns/acme/acme-challenges.use-case.js';
import { DnsPlans } from '../core/dns/plans/dns-plans.use-case.js';
import { ZonePublisherHub } from '../adapters/dns/zone-publisher-hub.js';
import { SandboxCertificateAuthority } from '../adapters/ca/sandbox/index.js';
import { X509CertificateKeys } from '../adapters/crypto/x509/index.js';
import { Certificates } from '../core/certificates/certificates.use-case.js';
import { CertificateIssuance } from '../core/certificates/certificate-issuance.use-case.js';
import { CertificateStatusQuery } from '../core/certificates/certificate-status.use-case.js';
import { zoneChallengeSolver } from '../core/certificates/zone-challenge-solver.js';
import type { Dns01Solver } from '../core/certificates/ports/dns01-solver.port.js';
import type { CertificateAuthority } from '../core/certificates/ports/certificate-authority.port.js';
import type { SecretBox } from '../core/kernel/secret-box.port.js';
import { StoredAccountAcmeCa } from '../adapters/ca/acme/stored-account.js';
import { ServedByOurDns } from '../adapters/dns/challenge-propagation.js';
import { InProcessIssuanceQueue } from './issuance-queue.js';
import type { Clock } from '../core/kernel/clock.port.js';
import type { Environment } from '../core/kernel/environment.js';
import type { Environments } from '../core/kernel/environments.port.js';
import type { EnvironmentAdapters } from './tokens.js';
import { DomainError } from '../core/kernel/errors.js';
import type { Config } from './config.js';
import { TOKENS as T } from './tokens.js';
import { Reauthenticate } from '../core/accounts/reauthenticate.use-case.js';
import { ManagePeople } from '../core/accounts/manage-people.use-case.js';
import { DisableTwoFactor } from '../core/accounts/disable-two-factor.use-case.js';
import { EnableTwoFactor } from '../core/accounts/enable-two-factor.use-case.js';
import { DeleteAccount } from '../core/accounts/delete-account.use-case.js';
import { HumanReads } from '../core/console/human-reads.use-case.js';
import { RevealTransferCode } from '../core/domains/reveal-transfer-code.use-case.js';
import { ChangeRegistrant } from '../core/domains/change-registrant.use-case.js';
import { ChangePaymentMethod } from '../core/billing/change-payment-method.use-case.js';
import type { CardSetup } from '../core/billing/ports/card-setup.port.js';
import { OperationAccess } from '../core/operations/operation-access.js';
import { OperationLog } from '../core/operations/operation-log.js';
import { RequestOperation } from '../core/operations/request-operation.use-case.js';
import { ConfirmOperation } from '../core/operations/confirm-operation.use-case.js';
import { CancelOperation } from '../core/operations/cancel-operation.use-case.js';
import { GetOperation, ListOperations } from '../core/operations/read-operations.use-case.js';
import { ActivateOperation } from '../core/operations/activate-operation.js';
import { ActivateDueOperations } from '../core/operations/activate-due-operations.use-case.js';
import { LockTransfer } from '../core/operations/lock-transfer.use-case.js';
import { StandardWebhooksSender } from '../adapters/net/webhooks/index.js';
import { ListEvents } from '../core/events/list-events.use-case.js';
import { PublishEvents } from '../core/webhooks/publish-events.use-case.js';
import { ManageWebhooks } from '../core/webhooks/manage-webhooks.use-case.js';
import { DeliverWebhooks } from '../core/webhooks/deliver-webhooks.use-case.js';
import { CreateMonitor } from '../core/monitoring/create-monitor.use-case.js';
import { UpdateMonitor } from '../core/monitoring/update-monitor.use-case.js';
import { DeleteMonitor } from '../core/monitoring/delete-monitor.use-case.js';
import { GetMonitor, ListMonitors } from '../core/monitoring/read-monitors.use-case.js';
import { ListMonitorResults } from '../core/monitoring/monitor-results.use-case.js';
import { MonitorReport } from '../core/monitoring/monitor-report.use-case.js';
import { RunMonitorChecks } from '../core/monitoring/run-monitor-checks.use-case.js';
import { PruneMonitorResults } from '../core/monitoring/prune-monitor-results.use-case.js';
import { monitorProbes, monitorRules } from './monitor-probes.js';

/**
 * Container modules, one per adapter set (STYLE 6). Only src/ asks the container for objects.
 */
export const configModule = (config: Config, logger?: Logger) =>
  new ContainerModule(({ bind }) => {
    bind(T.Config).toConstantValue(config);
    bind(T.Logger).toConstantValue(logger ?? pino({ level: config.logLevel, redact: ['req.headers.authorization', 'req.headers.cookie'] }));
  });

/** Platform adapters: clock, randomness, hashing, credentials. */
export const platformModule = (clock?: Clock) =>
  new ContainerModule(({ bind }) => {
    bind(T.Clock).toConstantValue(clock ?? new SystemClock());
    bind(T.Random).toConstantValue(new NodeRandom());
    bind(T.SecretHasher).toResolvedValue((c: Config) => new NodeSecretHasher(c.keyPepper), [T.Config]).inSingletonScope();
    bind(T.PasswordHasher).toResolvedValue((c: Config) => new Argon2PasswordHasher(c.argon2), [T.Config]).inSingletonScope();
    bind(T.Totp).toConstantValue(new OtplibTotp());
    bind(T.SecretBox).toResolvedValue((c: Config) => new AesGcmSecretBox(c.dataKey), [T.Config]).inSingletonScope();
  });

/** The SQL store (SQLite or Postgres by URL). */
export const sqlModule = () =>
  new ContainerModule(({ bind }) => {
    bind(T.Store)
      .toResolvedValue((c: Config) => new SqlStore({ url: c.databaseUrl, ...(c.databaseSchema ? { schema: c.databaseSchema } : {}) }), [T.Config])
      .inSingletonScope();
  });

/** The test environment's CA: the in-process sandbox CA, or an ACME directory when SANDBOX_CA=acme. */
const sandboxCa = (config: Config, s: SqlStore, box: SecretBox, clock: Clock): CertificateAuthority =>
  config.sandboxCa.kind === 'acme'
    ? new StoredAccountAcmeCa({ directoryUrl: config.sandboxCa.directoryUrl, email: null, caFile: config.sandboxCa.caFile }, s.caMaterial, box)
    : new SandboxCertificateAuthority({
        store: { load: () => s.caMaterial.loadSandbox(), saveIfAbsent: (m) => s.caMaterial.saveSandboxIfAbsent(m) },
        box,
        clock,
      });

/** The test environment's adapter set: sandbox registrar, sandbox payments, sandbox CA. */
export const sandboxModule = (wrap: (adapters: EnvironmentAdapters) => EnvironmentAdapters = (a) => a) =>
  new ContainerModule(({ bind }) => {
    bind(T.TestAdapters)
      .toResolvedValue(
        (config: Config, s: SqlStore, clock: Clock, random: NodeRandom, box: SecretBox): EnvironmentAdapters => wrap({
          registrar: new SandboxRegistrar(s.sandboxRegistry, clock, () => random.base62(16)),
          payments: new SandboxPayments(),
          ca: sandboxCa(config, s, box, clock),
        }),
        [T.Config, T.Store, T.Clock, T.Random, T.SecretBox],
      )
      .inSingletonScope();
  });

/** Notices by e-mail: SMTP when configured (SMTP_URL); without it deliveries wait in the outbox. */
export const mailModule = (config: Config) =>
  new ContainerModule(({ bind }) => {
    if (!config.smtp) return;
    bind(T.Mailer).toConstantValue(new SmtpMailer({ url: config.smtp.url, from: config.smtp.from }));
    bind(T.DeliverNotices).toResolvedValue((st: SqlStore, m, c) => new DeliverNotices(st.outbox, m, c), [T.Store, T.Mailer, T.Clock]).inSingletonScope();
  });

/**
 * The live adapter set: bound only when configured (LIVE_REGISTRAR=epp). With none, live keys get 503.
 * Registrar: EPP; payments: Stripe when STRIPE_SECRET_KEY is set, else refused top-ups; CA: ACME.
 */
export const liveModule = (config: Config) =>
  new ContainerModule(({ bind }) => {
    if (config.liveRegistrar === 'none' || !config.epp) return;
    const epp = config.epp;
    bind(T.LiveAdapters)
      .toResolvedValue(
        (s: SqlStore, box: SecretBox, log: Logger): EnvironmentAdapters => ({
          registrar: createEppRegistrar({
            host: epp.host, port: epp.port, clientId: epp.clientId, password: epp.password,
            cert: epp.cert, key: epp.key, ca: epp.ca, poolSize: epp.poolSize, defaultNameservers: epp.nameservers,
            log: log.child({ component: 'epp' }),
          }),
          payments: config.liveStripe ? new StripePayments(config.liveStripe) : new UnconfiguredPayments(),
          ca: new StoredAccountAcmeCa({ directoryUrl: config.acme.directoryUrl, email: config.acme.email, caFile: config.acme.caFile }, s.caMaterial, box),
        }),
        [T.Store, T.SecretBox, T.Logger],
      )
      .inSingletonScope();
    // Saving a live card (the human-only payment-method change) goes through Stripe SetupIntents.
    if (config.liveStripe) bind(T.LiveCardSetup).toConstantValue(new StripeCardSetup(config.liveStripe));
    // The registry's message queue (EPP poll) becomes DomainEvents; the worker runs it.
    bind(T.ProcessRegistryMessages)
      .toResolvedValue(
        (live: EnvironmentAdapters, s: SqlStore, r: NodeRandom, c: Clock) =>
          new ProcessRegistryMessages(live.registrar as EppRegistrar, new SqlDomainHolders(s.uow), s.events, s.uow, r, c),
        [T.LiveAdapters, T.Store, T.Random, T.Clock],
      )
      .inSingletonScope();
  });

const id = <X>(token: ServiceIdentifier<X>) => token;

/** Core use cases, constructed by hand from their ports (no decorators in core/). */
export const coreModule = () =>
  new ContainerModule(({ bind }) => {
    bind(T.Environments)
      .toResolvedValue((test: EnvironmentAdapters, live: EnvironmentAdapters | undefined): Environments<EnvironmentAdapters> => {
        const sets: Record<Environment, EnvironmentAdapters | null> = { test, live: live ?? null };
        return {
          isAvailable: (e) => sets[e] !== null,
          get: (e) => {
            const set = sets[e];
            if (!set) throw new DomainError('environment_unavailable', { environment: e });
            return set;
          },
        };
      }, [T.TestAdapters, { serviceIdentifier: T.LiveAdapters, optional: true }])
      .inSingletonScope();
    const s = id(T.Store);
    bind(T.NotifyOwners).toResolvedValue((st: SqlStore, c, r) => new NotifyOwners(st.accounts, st.notices, st.outbox, c, r), [s, T.Clock, T.Random]).inSingletonScope();
    bind(T.ZonePublisher).toConstantValue(new ZonePublisherHub());
    bind(T.ZoneService).toResolvedValue((st: SqlStore, p, r, c, log: Logger) => new ZoneService(st.zones, p, st.uow, r, c, loggedDiagnostics(log)), [s, T.ZonePublisher, T.Random, T.Clock, T.Logger]).inSingletonScope();
    bind(T.ReadZone).toResolvedValue((st: SqlStore) => new ReadZone(st.zones), [s]).inSingletonScope();
    bind(T.AcmeChallenges).toResolvedValue(
      (st: SqlStore, z, a, r, c, rec: Recorder) => new AcmeChallenges(st.zones, st.acmeChallenges, z, a, rec, st.uow, r, c),
      [s, T.ZoneService, T.Authorizer, T.Random, T.Clock, T.Recorder],
    ).inSingletonScope();
    bind(T.DnsPlans).toResolvedValue(
      (st: SqlStore, z, a, r, c, rec: Recorder) => new DnsPlans(st.zones, st.plans, z, a, rec, st.uow, r, c),
      [s, T.ZoneService, T.Authorizer, T.Random, T.Clock, T.Recorder],
    ).inSingletonScope();
    bind(T.Accounting).toResolvedValue((st: SqlStore, r, c) => new Accounting(st.ledger, st.wallets, st.spend, r, c), [s, T.Random, T.Clock]).inSingletonScope();
    bind(T.AccountTime).toResolvedValue((st: SqlStore, c) => new AccountTime(c, st.sandboxClocks), [s, T.Clock]).inSingletonScope();
    bind(T.RegisterDomain).toResolvedValue(
      (st: SqlStore, e, a, at, z, r, rec: Recorder) => new RegisterDomain(st.domains, e, a, rec, at, z, st.uow, r),
      [s, T.Environments, T.Accounting, T.AccountTime, T.ZoneService, T.Random, T.Recorder],
    ).inSingletonScope();
    bind(T.RenewDomain).toResolvedValue(
      (st: SqlStore, e, a, at, r, rec: Recorder) => new RenewDomain(st.domains, st.domainLocks, e, a, rec, at, r),
      [s, T.Environments, T.Accounting, T.AccountTime, T.Random, T.Recorder],
    ).inSingletonScope();
    bind(T.SetAutoRenew).toResolvedValue((st: SqlStore, r, c, rec: Recorder) => new SetAutoRenew(st.domains, rec, r, c, st.uow), [s, T.Random, T.Clock, T.Recorder]).inSingletonScope();
    bind(T.TopUpBalance).toResolvedValue(
      (st: SqlStore, e, a, r, c, rec: Recorder) => new TopUpBalance(st.topUps, st.savedCards, e, a, rec, r, c),
      [s, T.Environments, T.Accounting, T.Random, T.Clock, T.Recorder],
    ).inSingletonScope();
    bind(T.ReadBilling).toResolvedValue((st: SqlStore, a) => new ReadBilling(a, st.ledger), [s, T.Accounting]).inSingletonScope();
    bind(T.ListKeyNotices).toResolvedValue((st: SqlStore) => new ListKeyNotices(st.notices, st.domains), [s]).inSingletonScope();
    bind(T.AdvanceLifecycle).toResolvedValue(
      (st: SqlStore, at, rn, z, r, c, rec: Recorder) => new AdvanceLifecycle(st.domains, at, rn, rec, z, st.uow, r, c, new SqlDurableCheckpoints(st.idempotency, st.uow, c)),
      [s, T.AccountTime, T.RenewDomain, T.ZoneService, T.Random, T.Clock, T.Recorder],
    ).inSingletonScope();
    bind(T.AdvanceSandboxClock).toResolvedValue(
      (st: SqlStore, l, r, c, ci: CertificateIssuance, ops: ActivateDueOperations, rec: Recorder) => new AdvanceSandboxClock(st.sandboxClocks, l, rec, st.uow, r, c, ci, ops),
      [s, T.AdvanceLifecycle, T.Random, T.Clock, T.CertificateIssuance, T.ActivateDueOperations, T.Recorder],
    ).inSingletonScope();
    // Owners' notices follow from events, in the transaction that records them.
    bind(T.Recorder).toResolvedValue((st: SqlStore, n: NotifyOwners) => new Recorder(st.events).subscribe(noticesOnEvent(n)), [s, T.NotifyOwners]).inSingletonScope();
    bind(T.Visibility).toResolvedValue((st: SqlStore) => new KeyVisibility(st.domains), [s]).inSingletonScope();
    bind(T.Authorizer).toResolvedValue((st: SqlStore) => new Authorizer(st.domains), [s]).inSingletonScope();
    bind(T.AuthenticateKey).toResolvedValue((st: SqlStore, h, c) => new AuthenticateKey(st.keys, h, c), [s, T.SecretHasher, T.Clock]).inSingletonScope();
    bind(T.AuthenticateSession).toResolvedValue((st: SqlStore, h, c) => new AuthenticateSession(st.accounts, st.sessions, h, c), [s, T.SecretHasher, T.Clock]).inSingletonScope();
    bind(T.SignIn).toResolvedValue(
      (st: SqlStore, p, t, b, h, r, c, rec: Recorder) => new SignIn(st.accounts, st.sessions, p, t, b, h, rec, st.uow, r, c),
      [s, T.PasswordHasher, T.Totp, T.SecretBox, T.SecretHasher, T.Random, T.Clock, T.Recorder],
    ).inSingletonScope();
    bind(T.SignOut).toResolvedValue((st: SqlStore, c) => new SignOut(st.sessions, c), [s, T.Clock]).inSingletonScope();
    bind(T.IssueKey).toResolvedValue(
      (st: SqlStore, h, r, c, rec: Recorder) => new IssueKey(st.keys, rec, st.uow, h, r, c),
      [s, T.SecretHasher, T.Random, T.Clock, T.Recorder],
    ).inSingletonScope();
    bind(T.ListKeys).toResolvedValue((st: SqlStore, c) => new ListKeys(st.keys, c), [s, T.Clock]).inSingletonScope();
    bind(T.RevokeKey).toResolvedValue((st: SqlStore, r, c, rec: Recorder) => new RevokeKey(st.keys, rec, st.uow, r, c), [s, T.Random, T.Clock, T.Recorder]).inSingletonScope();
    bind(T.DescribeKey).toResolvedValue((st: SqlStore, c) => new DescribeKey(st.spend, c), [s, T.Clock]).inSingletonScope();
    bind(T.GetDomain).toResolvedValue((st: SqlStore) => new GetDomain(st.domains), [s]).inSingletonScope();
    bind(T.ListDomains).toResolvedValue((st: SqlStore, v: Visibility) => new ListDomains(st.domains, v), [s, T.Visibility]).inSingletonScope();
    bind(T.SearchDomains).toResolvedValue((e: Environments<EnvironmentAdapters>) => new SearchDomains(e), [T.Environments]).inSingletonScope();
    bind(T.ListNotices).toResolvedValue((st: SqlStore) => new ListNotices(st.notices), [s]).inSingletonScope();
    bind(T.CertificateKeys).toConstantValue(new X509CertificateKeys());
    bind(T.IssuanceQueue).toResolvedValue(
      (l: Logger) => new InProcessIssuanceQueue(l.child({ component: 'certificates' })),
      [T.Logger],
    ).inSingletonScope();
    bind(T.Certificates).toResolvedValue(
      (st: SqlStore, a, e, k, b, q: InProcessIssuanceQueue, i: CertificateIssuance, r, c, rec: Recorder) => {
        q.attach(i);
        return new Certificates(st.certificates, st.domains, a, e, k, b, q, rec, st.uow, r, c);
      },
      [s, T.Authorizer, T.Environments, T.CertificateKeys, T.SecretBox, T.IssuanceQueue, T.CertificateIssuance, T.Random, T.Clock, T.Recorder],
    ).inSingletonScope();
    bind(T.CertificateIssuance).toResolvedValue(
      (st: SqlStore, e, ch, k, b, at, r, c, cfg: Config, hub: ZonePublisherHub, log: Logger, rec: Recorder) => new CertificateIssuance(
        st.certificates, e, zoneChallengeSolver(dns01Of(ch), new ServedByOurDns(hub, { host: cfg.dnsHost, port: cfg.dnsPort })), k, b, at, rec, st.uow, r, c,
        { renewBeforeMs: cfg.certRenewBeforeDays * 24 * 3600_000, maxAttempts: 5 },
        (err, certificateId) => log.error({ err, certificateId, component: 'certificates' }, 'certificate run failed; retried on a later pass'),
      ),
      [s, T.Environments, T.AcmeChallenges, T.CertificateKeys, T.SecretBox, T.AccountTime, T.Random, T.Clock, T.Config, T.ZonePublisher, T.Logger, T.Recorder],
    ).inSingletonScope();
    bind(T.CertificateStatusQuery).toResolvedValue((st: SqlStore) => new CertificateStatusQuery(st.certificates), [s]).inSingletonScope();
    bind(T.SeedDemo).toResolvedValue(
      (st: SqlStore, a, p, t, b, z, r, c, rec: Recorder) => new SeedDemo(st.accounts, st.domains, st.sandboxRegistry, st.savedCards, a, rec, p, t, b, z, st.uow, r, c),
      [s, T.Accounting, T.PasswordHasher, T.Totp, T.SecretBox, T.ZoneService, T.Random, T.Clock, T.Recorder],
    ).inSingletonScope();
    // class 3 operations (issue 10)
    bind(T.OperationAccess).toResolvedValue((st: SqlStore, a: Authorizer<Domain>) => new OperationAccess(a, st.accounts, st.domains), [s, T.Authorizer]).inSingletonScope();
    bind(T.OperationLog).toResolvedValue((st: SqlStore, r, c, rec: Recorder) => new OperationLog(rec, r, c), [s, T.Random, T.Clock, T.Recorder]).inSingletonScope();
    bind(T.RequestOperation).toResolvedValue(
      (st: SqlStore, a, l, t, r) => new RequestOperation(st.domains, st.operations, a, l, st.uow, t, r),
      [s, T.OperationAccess, T.OperationLog, T.AccountTime, T.Random],
    ).inSingletonScope();
    bind(T.ActivateOperation).toResolvedValue(
      (st: SqlStore, e, z, l, t, c, r) => new ActivateOperation(st.operations, st.domains, st.operations, e, st.zones, z, l, st.uow, t, c, r),
      [s, T.Environments, T.ZoneService, T.OperationLog, T.AccountTime, T.Clock, T.Random],
    ).inSingletonScope();
    bind(T.ConfirmOperation).toResolvedValue(
      (st: SqlStore, a, x, l, t, c) => new ConfirmOperation(st.operations, a, x, l, st.uow, t, c),
      [s, T.OperationAccess, T.ActivateOperation, T.OperationLog, T.AccountTime, T.Clock],
    ).inSingletonScope();
    bind(T.CancelOperation).toResolvedValue(
      (st: SqlStore, a, l, t, c) => new CancelOperation(st.operations, st.domains, a, l, st.uow, t, c),
      [s, T.OperationAccess, T.OperationLog, T.AccountTime, T.Clock],
    ).inSingletonScope();
    bind(T.GetOperation).toResolvedValue((st: SqlStore, a) => new GetOperation(st.operations, a), [s, T.OperationAccess]).inSingletonScope();
    bind(T.ListOperations).toResolvedValue((st: SqlStore, v: Visibility) => new ListOperations(st.operations, v), [s, T.Visibility]).inSingletonScope();
    bind(T.ActivateDueOperations).toResolvedValue(
      (st: SqlStore, at, x, c, r) => new ActivateDueOperations(st.operations, at, x, c, r),
      [s, T.AccountTime, T.ActivateOperation, T.Clock, T.Random],
    ).inSingletonScope();
    bind(T.LockTransfer).toResolvedValue(
      (st: SqlStore, x, a, e, r, c, rec: Recorder) => new LockTransfer(st.domains, st.operations, x, a, e, rec, st.uow, r, c),
      [s, T.CancelOperation, T.Authorizer, T.Environments, T.Random, T.Clock, T.Recorder],
    ).inSingletonScope();
  });

/** The six human-only actions and the console's reads (issue 10). */
export const humanActionsModule = () =>
  new ContainerModule(({ bind }) => {
    const s = id(T.Store);
    bind(T.Reauthenticate).toResolvedValue(
      (st: SqlStore, p, t, b, r, c, rec: Recorder) => new Reauthenticate(st.accounts, st.people, p, t, b, rec, st.uow, r, c),
      [s, T.PasswordHasher, T.Totp, T.SecretBox, T.Random, T.Clock, T.Recorder],
    ).inSingletonScope();
    bind(T.ManagePeople).toResolvedValue(
      (st: SqlStore, p, t, b, h, r, c, cfg: Config, rec: Recorder) => new ManagePeople(st.accounts, st.people, st.invitations, p, t, b, h, st.outbox, rec, st.uow, r, c, cfg.consoleUrl),
      [s, T.PasswordHasher, T.Totp, T.SecretBox, T.SecretHasher, T.Random, T.Clock, T.Config, T.Recorder],
    ).inSingletonScope();
    bind(T.DisableTwoFactor).toResolvedValue((st: SqlStore, r, c, rec: Recorder) => new DisableTwoFactor(st.people, rec, st.uow, r, c), [s, T.Random, T.Clock, T.Recorder]).inSingletonScope();
    bind(T.EnableTwoFactor).toResolvedValue(
      (st: SqlStore, t, b, r, c, rec: Recorder) => new EnableTwoFactor(st.accounts, st.people, t, b, rec, st.uow, r, c),
      [s, T.Totp, T.SecretBox, T.Random, T.Clock, T.Recorder],
    ).inSingletonScope();
    bind(T.DeleteAccount).toResolvedValue((st: SqlStore, a, r, c, rec: Recorder) => new DeleteAccount(st.people, a, rec, st.uow, r, c), [s, T.Accounting, T.Random, T.Clock, T.Recorder]).inSingletonScope();
    bind(T.RevealTransferCode).toResolvedValue(
      (st: SqlStore, e, r, c, rec: Recorder) => new RevealTransferCode(st.domains, e, rec, st.uow, r, c),
      [s, T.Environments, T.Random, T.Clock, T.Recorder],
    ).inSingletonScope();
    bind(T.ChangeRegistrant).toResolvedValue(
      (st: SqlStore, e, r, c, rec: Recorder) => new ChangeRegistrant(st.domains, e, rec, st.uow, r, c),
      [s, T.Environments, T.Random, T.Clock, T.Recorder],
    ).inSingletonScope();
    bind(T.ChangePaymentMethod).toResolvedValue(
      (st: SqlStore, live: CardSetup | undefined, r: NodeRandom, c: Clock, rec: Recorder) => new ChangePaymentMethod(st.savedCards, (e) => (e === 'live' ? live ?? null : null), rec, st.uow, r, c),
      [s, { serviceIdentifier: T.LiveCardSetup, optional: true }, T.Random, T.Clock, T.Recorder],
    ).inSingletonScope();
    bind(T.HumanReads).toResolvedValue((st: SqlStore, a) => new HumanReads(st.domains, st.zones, a, st.ledger), [s, T.Accounting]).inSingletonScope();
  });

/** Issue 11: the public event log, the publisher and signed webhooks. */
export const eventsModule = () =>
  new ContainerModule(({ bind }) => {
    const s = id(T.Store);
    bind(T.WebhookSender).toResolvedValue(
      (c: Config) => new StandardWebhooksSender({ allowLoopback: c.webhooks.allowLoopback, timeoutMs: c.webhooks.timeoutMs }),
      [T.Config],
    ).inSingletonScope();
    bind(T.ListEvents).toResolvedValue((st: SqlStore, v: Visibility) => new ListEvents(st.eventFeed, v), [s, T.Visibility]).inSingletonScope();
    bind(T.PublishEvents).toResolvedValue(
      (st: SqlStore, r, c) => new PublishEvents(st.eventFeed, st.webhooks, st.domains, st.uow, r, c),
      [s, T.Random, T.Clock],
    ).inSingletonScope();
    bind(T.ManageWebhooks).toResolvedValue(
      (st: SqlStore, sender: StandardWebhooksSender, b, r, c, rec: Recorder) => new ManageWebhooks(st.webhooks, sender, b, rec, st.uow, r, c),
      [s, T.WebhookSender, T.SecretBox, T.Random, T.Clock, T.Recorder],
    ).inSingletonScope();
    bind(T.DeliverWebhooks).toResolvedValue(
      (st: SqlStore, sender: StandardWebhooksSender, b, r, c, cfg: Config, rec: Recorder) =>
        new DeliverWebhooks(st.webhooks, st.eventFeed, sender, b, rec, st.uow, r, c, { leaseMs: cfg.webhooks.leaseMs }),
      [s, T.WebhookSender, T.SecretBox, T.Random, T.Clock, T.Config, T.Recorder],
    ).inSingletonScope();
  });

/** Monitoring (issue 11): monitors, their probes per environment, the worker's checks and pruning. */
export const monitoringModule = () =>
  new ContainerModule(({ bind }) => {
    const s = id(T.Store);
    bind(T.MonitorProbes).toResolvedValue((cfg: Config, test: EnvironmentAdapters) => monitorProbes(cfg, test), [T.Config, T.TestAdapters]).inSingletonScope();
    bind(T.CreateMonitor).toResolvedValue(
      (st: SqlStore, a, cfg: Config, r, c, rec: Recorder) => new CreateMonitor(st.monitors, a, rec, monitorRules(cfg), st.uow, r, c),
      [s, T.Authorizer, T.Config, T.Random, T.Clock, T.Recorder],
    ).inSingletonScope();
    bind(T.UpdateMonitor).toResolvedValue(
      (st: SqlStore, a, cfg: Config, r, c, rec: Recorder) => new UpdateMonitor(st.monitors, a, rec, monitorRules(cfg), st.uow, r, c),
      [s, T.Authorizer, T.Config, T.Random, T.Clock, T.Recorder],
    ).inSingletonScope();
    bind(T.DeleteMonitor).toResolvedValue((st: SqlStore, a, r, c, rec: Recorder) => new DeleteMonitor(st.monitors, a, rec, st.uow, r, c), [s, T.Authorizer, T.Random, T.Clock, T.Recorder]).inSingletonScope();
    bind(T.ListMonitors).toResolvedValue((st: SqlStore, a) => new ListMonitors(st.monitors, a), [s, T.Authorizer]).inSingletonScope();
    bind(T.GetMonitor).toResolvedValue((st: SqlStore, a) => new GetMonitor(st.monitors, a), [s, T.Authorizer]).inSingletonScope();
    bind(T.ListMonitorResults).toResolvedValue((st: SqlStore, a) => new ListMonitorResults(st.monitors, a), [s, T.Authorizer]).inSingletonScope();
    bind(T.MonitorReport).toResolvedValue((st: SqlStore, a, c) => new MonitorReport(st.monitors, a, c), [s, T.Authorizer, T.Clock]).inSingletonScope();
    bind(T.RunMonitorChecks).toResolvedValue(
      (st: SqlStore, p, at, r, c, cfg: Config, rec: Recorder) => new RunMonitorChecks(st.monitors, st.domains, p, at, rec, st.uow, r, c, { timeoutMs: cfg.monitors.checkTimeoutMs, batch: cfg.monitors.batch }),
      [s, T.MonitorProbes, T.AccountTime, T.Random, T.Clock, T.Config, T.Recorder],
    ).inSingletonScope();
    bind(T.PruneMonitorResults).toResolvedValue((st: SqlStore, c) => new PruneMonitorResults(st.monitors, c), [s, T.Clock]).inSingletonScope();
  });

/**
 * The public MCP tools (issue 12): their own binding with read use cases only (search, certificate
 * status), so nothing reachable from /mcp can write. They read MCP_ENVIRONMENT (default: test).
 */
export const mcpModule = () =>
  new ContainerModule(({ bind }) => {
    bind(T.Mcp)
      .toResolvedValue((config: Config, search: SearchDomains, status: CertificateStatusQuery) => new McpTools(
        { search: (e, q) => search.execute(e, q), certificateStatus: (d, e) => status.forDomain(d, e) },
        { environment: config.mcpEnvironment, version: '0.1.0' },
      ), [T.Config, T.SearchDomains, T.CertificateStatusQuery])
      .inSingletonScope();
  });

/** Certificates' DNS-01 proofs go into our own zones through the ACME challenge use case. */
const dns01Of = (challenges: AcmeChallenges): Dns01Solver => ({
  present: (scope, zone, host, value, actor) => challenges.addFor(scope, zone, host, value, actor),
  cleanUp: (scope, handle, actor) => challenges.removeFor(scope, handle, actor),
});

/** The core's reported errors go to the log, with what failed. */
const loggedDiagnostics = (log: Logger): Diagnostics => ({
  report: (err, context) => log.error({ err, ...context }, context.what),
});
