import { Recorder } from '../../core/kernel/recorder.js';
import { ContainerModule, type Container, type ServiceIdentifier } from 'inversify';
import type { UseCases } from '../../adapters/http/index.js';
import { SqlStore } from '../../adapters/sql/index.js';
import { AuthenticateSession, SignIn, SignOut } from '../../core/accounts/sign-in.use-case.js';
import type { Config } from '../config.js';
import { TOKENS as T } from '../tokens.js';
import { Reauthenticate } from '../../core/accounts/reauthenticate.use-case.js';
import { ManagePeople } from '../../core/accounts/manage-people.use-case.js';
import { DisableTwoFactor } from '../../core/accounts/disable-two-factor.use-case.js';
import { EnableTwoFactor } from '../../core/accounts/enable-two-factor.use-case.js';
import { DeleteAccount } from '../../core/accounts/delete-account.use-case.js';
import { CredentialThrottle } from '../../core/accounts/credential-throttle.js';
import { Passwords } from '../../core/accounts/passwords.use-case.js';

/** The accounts capability's use cases, constructed by hand from their ports (no decorators in core/). */
export const accountsModule = () =>
  new ContainerModule(({ bind }) => {
    const s = id(T.Store);
    bind(T.AuthenticateSession)
      .toResolvedValue(
        (st: SqlStore, h, c) => new AuthenticateSession({ accounts: st.accounts, sessions: st.sessions, hasher: h, clock: c }),
        [s, T.SecretHasher, T.Clock],
      )
      .inSingletonScope();
    // Every password and TOTP check (sign-in, signing in again, a new secret's first code) goes through it.
    bind(T.CredentialThrottle)
      .toResolvedValue(
        (st: SqlStore, h, r, c, rec: Recorder) =>
          new CredentialThrottle({ attempts: st.credentialAttempts, hasher: h, events: rec, uow: st.uow, random: r, clock: c }),
        [s, T.SecretHasher, T.Random, T.Clock, T.Recorder],
      )
      .inSingletonScope();
    bind(T.SignIn)
      .toResolvedValue(
        (st: SqlStore, p, t, b, h, r, c, rec: Recorder, th: CredentialThrottle) =>
          new SignIn({
            throttle: th,
            accounts: st.accounts,
            sessions: st.sessions,
            passwords: p,
            totp: t,
            box: b,
            hasher: h,
            events: rec,
            uow: st.uow,
            random: r,
            clock: c,
          }),
        [s, T.PasswordHasher, T.Totp, T.SecretBox, T.SecretHasher, T.Random, T.Clock, T.Recorder, T.CredentialThrottle],
      )
      .inSingletonScope();
    bind(T.SignOut)
      .toResolvedValue((st: SqlStore, c) => new SignOut(st.sessions, c), [s, T.Clock])
      .inSingletonScope();
    bind(T.Reauthenticate)
      .toResolvedValue(
        (st: SqlStore, p, t, b, r, c, rec: Recorder, th: CredentialThrottle) =>
          new Reauthenticate({
            throttle: th,
            accounts: st.accounts,
            people: st.people,
            passwords: p,
            totp: t,
            box: b,
            events: rec,
            uow: st.uow,
            random: r,
            clock: c,
          }),
        [s, T.PasswordHasher, T.Totp, T.SecretBox, T.Random, T.Clock, T.Recorder, T.CredentialThrottle],
      )
      .inSingletonScope();
    bind(T.ManagePeople)
      .toResolvedValue(
        (st: SqlStore, p, t, b, h, r, c, cfg: Config, rec: Recorder) =>
          new ManagePeople({
            accounts: st.accounts,
            people: st.people,
            invitations: st.invitations,
            passwords: p,
            totp: t,
            box: b,
            hasher: h,
            outbox: st.outbox,
            events: rec,
            uow: st.uow,
            random: r,
            clock: c,
            consoleUrl: cfg.consoleUrl,
          }),
        [s, T.PasswordHasher, T.Totp, T.SecretBox, T.SecretHasher, T.Random, T.Clock, T.Config, T.Recorder],
      )
      .inSingletonScope();
    bind(T.DisableTwoFactor)
      .toResolvedValue(
        (st: SqlStore, r, c, rec: Recorder) => new DisableTwoFactor({ people: st.people, events: rec, uow: st.uow, random: r, clock: c }),
        [s, T.Random, T.Clock, T.Recorder],
      )
      .inSingletonScope();
    bind(T.EnableTwoFactor)
      .toResolvedValue(
        (st: SqlStore, t, b, r, c, rec: Recorder, th: CredentialThrottle) =>
          new EnableTwoFactor({
            accounts: st.accounts,
            people: st.people,
            totp: t,
            box: b,
            throttle: th,
            events: rec,
            uow: st.uow,
            random: r,
            clock: c,
          }),
        [s, T.Totp, T.SecretBox, T.Random, T.Clock, T.Recorder, T.CredentialThrottle],
      )
      .inSingletonScope();
    bind(T.Passwords)
      .toResolvedValue(
        (st: SqlStore, p, t, b, h, r, c, cfg: Config, rec: Recorder, th: CredentialThrottle) =>
          new Passwords({
            accounts: st.accounts,
            people: st.people,
            resets: st.passwordResets,
            passwords: p,
            totp: t,
            box: b,
            hasher: h,
            outbox: st.outbox,
            throttle: th,
            events: rec,
            uow: st.uow,
            random: r,
            clock: c,
            consoleUrl: cfg.consoleUrl,
          }),
        [s, T.PasswordHasher, T.Totp, T.SecretBox, T.SecretHasher, T.Random, T.Clock, T.Config, T.Recorder, T.CredentialThrottle],
      )
      .inSingletonScope();
    bind(T.DeleteAccount)
      .toResolvedValue(
        (st: SqlStore, a, r, c, rec: Recorder) =>
          new DeleteAccount({ people: st.people, accounting: a, events: rec, uow: st.uow, random: r, clock: c }),
        [s, T.Accounting, T.Random, T.Clock, T.Recorder],
      )
      .inSingletonScope();
  });

const id = <X>(token: ServiceIdentifier<X>) => token;

/** What the routes (and the console) call of this capability. */
export const accountsUseCases = (
  c: Container,
): Pick<UseCases, 'signIn' | 'signOut' | 'reauthenticate' | 'managePeople' | 'disableTwoFactor' | 'enableTwoFactor' | 'deleteAccount'> => ({
  signIn: c.get(T.SignIn),
  signOut: c.get(T.SignOut),
  reauthenticate: c.get(T.Reauthenticate),
  managePeople: c.get(T.ManagePeople),
  disableTwoFactor: c.get(T.DisableTwoFactor),
  enableTwoFactor: c.get(T.EnableTwoFactor),
  deleteAccount: c.get(T.DeleteAccount),
});
