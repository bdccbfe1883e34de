import { token } from './token.js';
import type { AuthenticateSession, SignIn, SignOut } from '../../core/accounts/sign-in.use-case.js';
import type { Reauthenticate } from '../../core/accounts/reauthenticate.use-case.js';
import type { ManagePeople } from '../../core/accounts/manage-people.use-case.js';
import type { DisableTwoFactor } from '../../core/accounts/disable-two-factor.use-case.js';
import type { EnableTwoFactor } from '../../core/accounts/enable-two-factor.use-case.js';
import type { DeleteAccount } from '../../core/accounts/delete-account.use-case.js';
import type { CredentialThrottle } from '../../core/accounts/credential-throttle.js';
import type { Passwords } from '../../core/accounts/passwords.use-case.js';

/** Injection tokens of the accounts capability (src/ binds them by explicit token; core/ has no decorators). */
export const ACCOUNTS_TOKENS = {
  AuthenticateSession: token<AuthenticateSession>('AuthenticateSession'),
  SignIn: token<SignIn>('SignIn'),
  SignOut: token<SignOut>('SignOut'),
  Reauthenticate: token<Reauthenticate>('Reauthenticate'),
  ManagePeople: token<ManagePeople>('ManagePeople'),
  DisableTwoFactor: token<DisableTwoFactor>('DisableTwoFactor'),
  EnableTwoFactor: token<EnableTwoFactor>('EnableTwoFactor'),
  DeleteAccount: token<DeleteAccount>('DeleteAccount'),
  CredentialThrottle: token<CredentialThrottle>('CredentialThrottle'),
  Passwords: token<Passwords>('Passwords'),
} as const;
