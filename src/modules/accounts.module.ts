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

/** The accounts capability's use cases, constructed by hand from their ports (no decorators in core/). */
export const accountsModule = () =>
  new ContainerModule(({ bind }) => {
    const s = id(T.Store);
    bind(T.AuthenticateSession).toResolvedValue((st: SqlStore, h, c) => new AuthenticateSession(st.accounts, st.sessions, h, c), [s, T.SecretHasher, T.Clock]).inSingletonScope();
    bind(T.SignIn).toResolvedValue(
      (st: SqlStore, p, t, b, h, r, c, rec: Recorder) => new SignIn(st.accounts, st.sessions, p, t, b, h, rec, st.uow, r, c),
      [s, T.PasswordHasher, T.Totp, T.SecretBox, T.SecretHasher, T.Random, T.Clock, T.Recorder],
    ).inSingletonScope();
    bind(T.SignOut).toResolvedValue((st: SqlStore, c) => new SignOut(st.sessions, c), [s, T.Clock]).inSingletonScope();
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
  });

const id = <X>(token: ServiceIdentifier<X>) => token;

/** What the routes (and the console) call of this capability. */
export const accountsUseCases = (c: Container): Pick<UseCases, 'signIn' | 'signOut' | 'reauthenticate' | 'managePeople' | 'disableTwoFactor' | 'enableTwoFactor' | 'deleteAccount'> => ({
    signIn: c.get(T.SignIn),
    signOut: c.get(T.SignOut),
    reauthenticate: c.get(T.Reauthenticate),
    managePeople: c.get(T.ManagePeople),
    disableTwoFactor: c.get(T.DisableTwoFactor),
    enableTwoFactor: c.get(T.EnableTwoFactor),
    deleteAccount: c.get(T.DeleteAccount),
});
