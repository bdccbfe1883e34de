import { ContainerModule, type ServiceIdentifier } from 'inversify';
import pino, { type Logger } from 'pino';
import { SystemClock } from '../adapters/clock/system/index.js';
import { Argon2PasswordHasher } from '../adapters/credentials/argon2/index.js';
import { OtplibTotp } from '../adapters/credentials/otplib/index.js';
import { AesGcmSecretBox, NodeRandom, NodeSecretHasher } from '../adapters/crypto/node/index.js';
import { SandboxRegistrar } from '../adapters/registrar/sandbox/index.js';
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
import { SeedDemo } from '../core/sandbox/seed-demo.use-case.js';
import type { Clock } from '../core/shared/clock.port.js';
import type { Environment } from '../core/shared/environment.js';
import type { EnvironmentAdapters, Environments } from '../core/shared/environments.port.js';
import { DomainError } from '../core/shared/errors.js';
import type { Config } from './config.js';
import { TOKENS as T } from './tokens.js';

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

/** The test environment's adapter set: sandbox registrar (later: sandbox CA, sandbox payments). */
export const sandboxModule = () =>
  new ContainerModule(({ bind }) => {
    bind(T.TestAdapters)
      .toResolvedValue(
        (s: SqlStore, clock: Clock, random: NodeRandom): EnvironmentAdapters => ({
          registrar: new SandboxRegistrar(s.sandboxRegistry, clock, () => random.base62(16)),
        }),
        [T.Store, T.Clock, T.Random],
      )
      .inSingletonScope();
  });

/** The live adapter set: bound only when configured. With none, live keys get 503. */
export const liveModule = (config: Config) =>
  new ContainerModule(() => {
    if (config.liveRegistrar === 'none') return;
  });

const id = <X>(token: ServiceIdentifier<X>) => token;

/** Core use cases, constructed by hand from their ports (no decorators in core/). */
export const coreModule = () =>
  new ContainerModule(({ bind }) => {
    bind(T.Environments)
      .toResolvedValue((test: EnvironmentAdapters, live: EnvironmentAdapters | undefined): Environments => {
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
    bind(T.NotifyOwners).toResolvedValue((st: SqlStore, c, r) => new NotifyOwners(st.accounts, st.notices, c, r), [s, T.Clock, T.Random]).inSingletonScope();
    bind(T.Authorizer).toResolvedValue((st: SqlStore) => new Authorizer(st.domains), [s]).inSingletonScope();
    bind(T.AuthenticateKey).toResolvedValue((st: SqlStore, h, c) => new AuthenticateKey(st.keys, h, c), [s, T.SecretHasher, T.Clock]).inSingletonScope();
    bind(T.AuthenticateSession).toResolvedValue((st: SqlStore, h, c) => new AuthenticateSession(st.accounts, st.sessions, h, c), [s, T.SecretHasher, T.Clock]).inSingletonScope();
    bind(T.SignIn).toResolvedValue(
      (st: SqlStore, p, t, b, h, r, c) => new SignIn(st.accounts, st.sessions, p, t, b, h, st.events, st.uow, r, c),
      [s, T.PasswordHasher, T.Totp, T.SecretBox, T.SecretHasher, T.Random, T.Clock],
    ).inSingletonScope();
    bind(T.SignOut).toResolvedValue((st: SqlStore, c) => new SignOut(st.sessions, c), [s, T.Clock]).inSingletonScope();
    bind(T.IssueKey).toResolvedValue(
      (st: SqlStore, n, h, r, c) => new IssueKey(st.keys, st.events, n, st.uow, h, r, c),
      [s, T.NotifyOwners, T.SecretHasher, T.Random, T.Clock],
    ).inSingletonScope();
    bind(T.ListKeys).toResolvedValue((st: SqlStore, c) => new ListKeys(st.keys, c), [s, T.Clock]).inSingletonScope();
    bind(T.RevokeKey).toResolvedValue((st: SqlStore, r, c) => new RevokeKey(st.keys, st.events, st.uow, r, c), [s, T.Random, T.Clock]).inSingletonScope();
    bind(T.DescribeKey).toResolvedValue((st: SqlStore, c) => new DescribeKey(st.ledger, c), [s, T.Clock]).inSingletonScope();
    bind(T.GetDomain).toResolvedValue((st: SqlStore) => new GetDomain(st.domains), [s]).inSingletonScope();
    bind(T.ListDomains).toResolvedValue((st: SqlStore) => new ListDomains(st.domains), [s]).inSingletonScope();
    bind(T.SearchDomains).toResolvedValue((e: Environments) => new SearchDomains(e), [T.Environments]).inSingletonScope();
    bind(T.ListNotices).toResolvedValue((st: SqlStore) => new ListNotices(st.notices), [s]).inSingletonScope();
    bind(T.SeedDemo).toResolvedValue(
      (st: SqlStore, p, t, b, r, c) => new SeedDemo(st.accounts, st.domains, st.sandboxRegistry, st.ledger, st.events, p, t, b, st.uow, r, c),
      [s, T.PasswordHasher, T.Totp, T.SecretBox, T.Random, T.Clock],
    ).inSingletonScope();
  });
