import type { RecordingDeps } from '../kernel/recording-deps.js';
import { DomainError } from '../kernel/errors.js';
import type { SecretBox } from '../kernel/secret-box.port.js';
import type { HumanContext } from './sign-in.use-case.js';
import type { AccountRepository } from './ports/account-repository.port.js';
import type { PasswordHasher, TotpVerifier } from './ports/credentials.port.js';
import type { PeopleRepository } from './ports/people.port.js';

/** What Reauthenticate is built from (one object, named, instead of positions). */
export interface ReauthenticateDeps extends RecordingDeps {
  readonly accounts: AccountRepository;
  readonly people: PeopleRepository;
  readonly passwords: PasswordHasher;
  readonly totp: TotpVerifier;
  readonly box: SecretBox;
}

/** "Sign in again" (seed A6): the signed-in person proves password + TOTP once more; the session
 * remembers when, and the sensitive actions accept it for REAUTH_WINDOW_MS. */
export class Reauthenticate {
  constructor(private readonly deps: ReauthenticateDeps) {}

  async execute(human: HumanContext, input: { password: string; totp?: string }): Promise<{ authenticatedAt: Date }> {
    const person = await this.deps.accounts.findPerson(human.person.id);
    if (!person) throw new DomainError('session_required');
    const now = this.deps.clock.now();
    const passwordOk = await this.deps.passwords.verify(person.passwordHash, input.password);
    const twoFactor = person.twoFactorEnabled !== false;
    const step =
      passwordOk && twoFactor
        ? await this.deps.totp.verify(this.deps.box.open(person.totpSecret), input.totp ?? '', now, person.totpLastStep)
        : null;
    if (!passwordOk || (twoFactor && step === null)) throw new DomainError('sign_in_failed');
    await this.deps.uow.transaction(async () => {
      if (!(await this.deps.accounts.recordSignIn(person.id, now, step))) throw new DomainError('sign_in_failed');
      await this.deps.people.reauthenticated(human.session.id, now);
      await this.deps.events.record(
        'person.reauthenticated',
        { accountId: person.accountId, environment: null, subject: `person:${person.id}`, actor: `person:${person.id}`, occurredAt: now },
        { session_id: human.session.id },
      );
    });
    return { authenticatedAt: now };
  }
}
