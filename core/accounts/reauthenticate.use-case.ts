import type { RecordingDeps } from '../kernel/recording-deps.js';
import { DomainError } from '../kernel/errors.js';
import type { SecretBox } from '../kernel/secret-box.port.js';
import type { HumanContext } from './sign-in.use-case.js';
import type { AccountRepository } from './ports/account-repository.port.js';
import type { PasswordHasher, TotpVerifier } from './ports/credentials.port.js';
import type { PeopleRepository } from './ports/people.port.js';
import type { CredentialThrottle } from './credential-throttle.js';
import { totpReused } from './totp-reuse.js';

/** What Reauthenticate is built from (one object, named, instead of positions). */
export interface ReauthenticateDeps extends RecordingDeps {
  readonly accounts: AccountRepository;
  readonly people: PeopleRepository;
  readonly passwords: PasswordHasher;
  readonly totp: TotpVerifier;
  readonly box: SecretBox;
  readonly throttle: Pick<CredentialThrottle, 'admit' | 'succeeded' | 'failed'>;
}

/** "Sign in again" (seed A6): the signed-in person proves password + TOTP once more; the session
 * remembers when, and the sensitive actions accept it for REAUTH_WINDOW_MS. */
export class Reauthenticate {
  constructor(private readonly deps: ReauthenticateDeps) {}

  /** `address`: where the attempt comes from; the same throttle as sign-in counts it (a stolen session must
   * not become a faster way to guess the password or the code). */
  async execute(human: HumanContext, input: { password: string; totp?: string; address: string }): Promise<{ authenticatedAt: Date }> {
    const person = await this.deps.accounts.findPerson(human.person.id);
    if (!person) throw new DomainError('session_required');
    const check = await this.deps.throttle.admit(input.address, person.email);
    const now = this.deps.clock.now();
    const passwordOk = await this.deps.passwords.verify(person.passwordHash, input.password);
    const twoFactor = person.twoFactorEnabled !== false;
    const step =
      passwordOk && twoFactor
        ? await this.deps.totp.verify(this.deps.box.open(person.totpSecret), input.totp ?? '', now, person.totpLastStep)
        : null;
    if (!passwordOk || (twoFactor && step === null)) {
      await this.deps.throttle.failed(check, person);
      const reused =
        passwordOk && (await totpReused(this.deps.totp, this.deps.box.open(person.totpSecret), input.totp ?? '', now, person.totpLastStep));
      throw new DomainError('sign_in_failed', reused ? { reason: 'totp_reused' } : {});
    }
    const recorded = await this.deps.uow.transaction(async () => {
      if (!(await this.deps.accounts.recordSignIn(person.id, now, step))) return false;
      await this.deps.people.reauthenticated(human.session.id, now);
      await this.deps.events.record(
        'person.reauthenticated',
        { accountId: person.accountId, environment: null, subject: `person:${person.id}`, actor: `person:${person.id}`, occurredAt: now },
        { session_id: human.session.id },
      );
      return true;
    });
    if (!recorded) {
      await this.deps.throttle.failed(check, person);
      throw new DomainError('sign_in_failed', { reason: 'totp_reused' });
    }
    await this.deps.throttle.succeeded(check);
    return { authenticatedAt: now };
  }
}
