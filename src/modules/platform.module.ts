import { Recorder } from '../../core/kernel/recorder.js';
import { ContainerModule, type ServiceIdentifier } from 'inversify';
import pino, { type Logger } from 'pino';
import { SystemClock } from '../../adapters/clock/system/index.js';
import { Argon2PasswordHasher } from '../../adapters/credentials/argon2/index.js';
import { OtplibTotp } from '../../adapters/credentials/otplib/index.js';
import { AesGcmSecretBox, NodeRandom, NodeSecretHasher } from '../../adapters/crypto/node/index.js';
import { SandboxRegistrar } from '../../adapters/registrar/sandbox/index.js';
import { SandboxPayments } from '../../adapters/payments/sandbox/index.js';
import type * as StripeAdapter from '../../adapters/payments/stripe/index.js';
import type * as EppAdapter from '../../adapters/registrar/epp/index.js';
import type { EppRegistrar } from '../../adapters/registrar/epp/index.js';
import { SqlDomainHolders } from '../../adapters/sql/repositories/domains.repository.js';
import { ProcessRegistryMessages } from '../../core/domains/process-registry-messages.use-case.js';
import type { AdvanceTransfers } from '../../core/domains/advance-transfers.use-case.js';
import { UnconfiguredPayments } from '../../adapters/payments/unconfigured/index.js';
import type * as Mcp from '../../adapters/mcp/index.js';
import { SmtpMailer } from '../../adapters/notify/smtp/index.js';
import { SqlStore } from '../../adapters/sql/index.js';
import { SearchDomains } from '../../core/domains/search-domains.use-case.js';
import { NotifyOwners } from '../../core/notices/notify-owners.js';
import { noticesOnEvent } from '../../core/notices/on-event.js';
import { DeliverNotices } from '../../core/notices/deliver-notices.use-case.js';
import type * as SandboxCa from '../../adapters/ca/sandbox/index.js';
import { CertificateStatusQuery } from '../../core/certificates/certificate-status.use-case.js';
import type { CertificateAuthority } from '../../core/certificates/ports/certificate-authority.port.js';
import type { SecretBox } from '../../core/kernel/secret-box.port.js';
import { StoredAccountAcmeCa } from '../../adapters/ca/acme/stored-account.js';
import type { Clock } from '../../core/kernel/clock.port.js';
import type { Environment } from '../../core/kernel/environment.js';
import type { Environments } from '../../core/kernel/environments.port.js';
import type { EnvironmentAdapters } from '../tokens.js';
import { SandboxDelegationResolver } from '../../adapters/delegation/sandbox/index.js';
import { IANA_ROOTS, IterativeDelegationResolver, parseRootHints } from '../../adapters/delegation/iterative/index.js';
import { DomainError } from '../../core/kernel/errors.js';
import type { Config } from '../config.js';
import { TOKENS as T } from '../tokens.js';

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
    bind(T.SecretHasher)
      .toResolvedValue((c: Config) => new NodeSecretHasher(c.keyPepper), [T.Config])
      .inSingletonScope();
    bind(T.PasswordHasher)
      .toResolvedValue((c: Config) => new Argon2PasswordHasher(c.argon2), [T.Config])
      .inSingletonScope();
    bind(T.Totp).toConstantValue(new OtplibTotp());
    bind(T.SecretBox)
      .toResolvedValue((c: Config) => new AesGcmSecretBox(c.dataKey), [T.Config])
      .inSingletonScope();
  });

/** The SQL store (SQLite or Postgres by URL). */
export const sqlModule = () =>
  new ContainerModule(({ bind }) => {
    bind(T.Store)
      .toResolvedValue(
        (c: Config) => new SqlStore({ url: c.databaseUrl, ...(c.databaseSchema ? { schema: c.databaseSchema } : {}) }),
        [T.Config],
      )
      .inSingletonScope();
  });

/** The test environment's CA: the in-process sandbox CA, or an ACME directory when SANDBOX_CA=acme. */
const sandboxCa = (config: Config, s: SqlStore, box: SecretBox, clock: Clock): CertificateAuthority =>
  config.sandboxCa.kind === 'acme'
    ? new StoredAccountAcmeCa(
        { directoryUrl: config.sandboxCa.directoryUrl, email: null, caFile: config.sandboxCa.caFile },
        s.caMaterial,
        box,
      )
    : lazySandboxCa({
        store: { load: () => s.caMaterial.loadSandbox(), saveIfAbsent: (m) => s.caMaterial.saveSandboxIfAbsent(m) },
        box,
        clock,
      });

/**
 * The sandbox CA, its code (X.509 with its ASN.1 schemas, ~200 modules) loaded on its first call rather than
 * by every start (issue 21).
 */
const lazySandboxCa = (options: SandboxCa.SandboxCertificateAuthorityOptions): CertificateAuthority => {
  let ca: Promise<CertificateAuthority> | null = null;
  const get = (): Promise<CertificateAuthority> =>
    (ca ??= loadOwn<typeof SandboxCa>('../../adapters/ca/sandbox/index.js', () => import('../../adapters/ca/sandbox/index.js')).then(
      (m) => new m.SandboxCertificateAuthority(options),
      (err: unknown) => {
        ca = null; // tried again by the next call
        throw err;
      },
    ));
  return {
    kind: 'sandbox',
    issue: async (order) => (await get()).issue(order),
    revoke: async (pem, reason) => (await get()).revoke(pem, reason),
    rootPem: async () => (await get()).rootPem(),
  };
};

/** The live resolver of delegations: iterative, from DELEGATION_ROOT_HINTS (default: the IANA roots). */
export const liveDelegations = (config: Config): IterativeDelegationResolver =>
  new IterativeDelegationResolver({
    roots: parseRootHints(config.hosting.rootHints || IANA_ROOTS.join(','), config.hosting.resolverPort),
    port: config.hosting.resolverPort,
    timeoutMs: config.hosting.resolverTimeoutMs,
  });

/** The test environment's adapter set: sandbox registrar, sandbox payments, sandbox CA. */
export const sandboxAdaptersModule = (wrap: (adapters: EnvironmentAdapters) => EnvironmentAdapters = (a) => a) =>
  new ContainerModule(({ bind }) => {
    bind(T.TestAdapters)
      .toResolvedValue(
        (config: Config, s: SqlStore, clock: Clock, random: NodeRandom, box: SecretBox): EnvironmentAdapters =>
          wrap({
            registrar: new SandboxRegistrar(s.sandboxRegistry, clock, () => random.base62(16)),
            payments: new SandboxPayments(),
            ca: sandboxCa(config, s, box, clock),
            delegations: new SandboxDelegationResolver(s.simulatedParents),
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
    bind(T.DeliverNotices)
      .toResolvedValue((st: SqlStore, m, c) => new DeliverNotices(st.outbox, m, c), [T.Store, T.Mailer, T.Clock])
      .inSingletonScope();
  });

/**
 * The live adapter set: bound only when configured (LIVE_REGISTRAR=epp). With none, live keys get 503.
 * Registrar: EPP; payments: Stripe when STRIPE_SECRET_KEY is set, else refused top-ups; CA: ACME.
 */
/**
 * The live adapters' code (the EPP client with its XML parser; Stripe's SDK, ~20 MB): loaded only when
 * configured, before the container is built (System.create), so a sandbox-only process never loads it.
 */
export interface LiveAdapterCode {
  readonly epp: typeof EppAdapter;
  readonly stripe: typeof StripeAdapter | null;
}

/**
 * One of our modules, on demand: `load` (an import() with the module's literal path, which the build's
 * bundler follows into a chunk of its own) when the code runs as ES modules (dist/, or tsx running the
 * sources). When it runs compiled to CommonJS (mocha through tsx) an import() would load a second copy of
 * core/ beside the required one (two RegistryError classes, so `instanceof` fails): there the module's
 * own require is used. `__filename` exists only in CommonJS (a bundle's `require` is esbuild's shim, so
 * `typeof require` cannot tell).
 */
export const loadOwn = async <M>(specifier: string, load: () => Promise<M>): Promise<M> =>
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  typeof __filename === 'string' ? (require(specifier) as M) : load();

export const loadLiveAdapterCode = async (config: Config): Promise<LiveAdapterCode | null> =>
  config.liveRegistrar === 'none' || !config.epp
    ? null
    : {
        epp: await loadOwn('../../adapters/registrar/epp/index.js', () => import('../../adapters/registrar/epp/index.js')),
        stripe: config.liveStripe
          ? await loadOwn('../../adapters/payments/stripe/index.js', () => import('../../adapters/payments/stripe/index.js'))
          : null,
      };

export const liveAdaptersModule = (
  config: Config,
  code: LiveAdapterCode | null | undefined,
  wrap: (adapters: EnvironmentAdapters) => EnvironmentAdapters = (a) => a,
) =>
  new ContainerModule(({ bind }) => {
    if (config.liveRegistrar === 'none' || !config.epp) return;
    if (!code || (config.liveStripe && !code.stripe)) {
      throw new Error('LIVE_REGISTRAR is set but the live adapters are not loaded: build the system with System.create');
    }
    const { createEppRegistrar } = code.epp;
    const stripe = code.stripe;
    const epp = config.epp;
    bind(T.LiveAdapters)
      .toResolvedValue(
        (s: SqlStore, box: SecretBox, log: Logger): EnvironmentAdapters =>
          wrap({
            registrar: createEppRegistrar({
              host: epp.host,
              port: epp.port,
              clientId: epp.clientId,
              password: epp.password,
              cert: epp.cert,
              key: epp.key,
              ca: epp.ca,
              poolSize: epp.poolSize,
              defaultNameservers: epp.nameservers,
              log: log.child({ component: 'epp' }),
            }),
            payments: config.liveStripe && stripe ? new stripe.StripePayments(config.liveStripe) : new UnconfiguredPayments(),
            ca: new StoredAccountAcmeCa(
              { directoryUrl: config.acme.directoryUrl, email: config.acme.email, caFile: config.acme.caFile },
              s.caMaterial,
              box,
            ),
            delegations: liveDelegations(config),
          }),
        [T.Store, T.SecretBox, T.Logger],
      )
      .inSingletonScope();
    // Saving a live card (the human-only payment-method change) goes through Stripe SetupIntents.
    if (config.liveStripe && stripe) bind(T.LiveCardSetup).toConstantValue(new stripe.StripeCardSetup(config.liveStripe));
    // The registry's message queue (EPP poll) becomes DomainEvents; the worker runs it.
    bind(T.ProcessRegistryMessages)
      .toResolvedValue(
        (live: EnvironmentAdapters, s: SqlStore, r: NodeRandom, c: Clock, transfers: AdvanceTransfers) =>
          new ProcessRegistryMessages({
            messages: live.registrar as EppRegistrar,
            holders: new SqlDomainHolders(s.uow),
            // Straight to the log, as before: registry messages make no owners' notice here.
            events: new Recorder(s.events, r),
            uow: s.uow,
            random: r,
            clock: c,
            // Transfer messages settle their transfer (and a transfer out tells every owner, through its notice).
            transfers,
          }),
        [T.LiveAdapters, T.Store, T.Random, T.Clock, T.AdvanceTransfers],
      )
      .inSingletonScope();
  });

const id = <X>(token: ServiceIdentifier<X>) => token;

/**
 * The public MCP tools: their own binding with read use cases only (search, certificate
 * status), so nothing reachable from /mcp can write. They read MCP_ENVIRONMENT (default: test).
 */
export const mcpModule = () =>
  new ContainerModule(({ bind }) => {
    bind(T.Mcp)
      .toResolvedValue(
        (config: Config, search: SearchDomains, status: CertificateStatusQuery) =>
          lazyMcpTools(
            { search: (e, q) => search.execute(e, q), certificateStatus: (d, e) => status.forDomain(d, e) },
            { environment: config.mcpEnvironment, version: '0.1.0' },
          ),
        [T.Config, T.SearchDomains, T.CertificateStatusQuery],
      )
      .inSingletonScope();
  });

/** The MCP tools, their code (the tools' zod schemas) loaded on the first /mcp request rather than by every start (issue 21). */
const lazyMcpTools = (reads: Mcp.McpReads, options: Mcp.McpOptions): Pick<Mcp.McpTools, 'handle'> => {
  let tools: Promise<Mcp.McpTools> | null = null;
  const get = (): Promise<Mcp.McpTools> =>
    (tools ??= loadOwn<typeof Mcp>('../../adapters/mcp/index.js', () => import('../../adapters/mcp/index.js')).then(
      (m) => new m.McpTools(reads, options),
      (err: unknown) => {
        tools = null; // tried again by the next request
        throw err;
      },
    ));
  return { handle: async (message) => (await get()).handle(message) };
};

/** The kernel: the adapter set of each environment (every capability's `Environments<…>` port) and the event recorder. */
export const kernelModule = () =>
  new ContainerModule(({ bind }) => {
    const s = id(T.Store);
    bind(T.Environments)
      .toResolvedValue(
        (test: EnvironmentAdapters, live: EnvironmentAdapters | undefined): Environments<EnvironmentAdapters> => {
          const sets: Record<Environment, EnvironmentAdapters | null> = { test, live: live ?? null };
          return {
            isAvailable: (e) => sets[e] !== null,
            get: (e) => {
              const set = sets[e];
              if (!set) throw new DomainError('environment_unavailable', { environment: e });
              return set;
            },
          };
        },
        [T.TestAdapters, { serviceIdentifier: T.LiveAdapters, optional: true }],
      )
      .inSingletonScope();
    // Owners' notices follow from events, in the transaction that records them.
    bind(T.Recorder)
      .toResolvedValue(
        (st: SqlStore, n: NotifyOwners, r: NodeRandom) =>
          new Recorder(st.events, r).subscribe(
            // A person who acted is named in the notice by name and e-mail, read in the event's transaction.
            noticesOnEvent(n, {
              nameOf: async (id) => {
                const p = await st.accounts.findPerson(id);
                return p ? (p.name && p.name !== p.email ? `${p.name} <${p.email}>` : p.email) : null;
              },
            }),
          ),
        [s, T.NotifyOwners, T.Random],
      )
      .inSingletonScope();
  });
