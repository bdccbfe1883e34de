import type { RecordingDeps } from '../kernel/recording-deps.js';
import type { SecretHasher } from '../kernel/secret-hasher.port.js';
import type { Clock } from '../kernel/clock.port.js';
import { DomainError } from '../kernel/errors.js';
import type { SecretBox } from '../kernel/secret-box.port.js';
import type { HumanContext, Person, Session } from '../kernel/person.js';

export type { HumanContext };
import type { AccountRepository, SessionRepository } from './ports/account-repository.port.js';
import type { PasswordHasher, TotpVerifier } from './ports/credentials.port.js';
import type { CredentialThrottle } from './credential-throttle.js';
import { totpReused } from './totp-reuse.js';

/** A session lasts this long after sign-in; there is no sliding renewal. */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;

/** An argon2id hash of a random string, verified when the e-mail is unknown so timing tells nothing. */
export const DUMMY_PASSWORD_HASH = '$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHRzb21lc2FsdA$W9ZT5wN+5vh8i1dYQ5IYKhY9fYV1uNrqDRP6b7bD5lE';

export interface SignedIn {
  readonly token: string;
  readonly session: Session;
  readonly person: Person;
}

/** What SignIn is built from (one object, named, instead of positions). */
export interface SignInDeps extends RecordingDeps {
  readonly accounts: AccountRepository;
  readonly sessions: SessionRepository;
  readonly passwords: PasswordHasher;
  readonly totp: TotpVerifier;
  readonly box: SecretBox;
  readonly hasher: SecretHasher;
  readonly throttle: Pick<CredentialThrottle, 'admit' | 'succeeded' | 'failed'>;
}

/** Humans sign in with e-mail + password (argon2id) + TOTP, always (issue: Accounts). */
export class SignIn {
  constructor(private readonly deps: SignInDeps) {}

  /** `address`: where the attempt comes from (the client address), for the throttle. */
  async execute(input: { email: string; password: string; totp: string; address: string }): Promise<SignedIn> {
    const email = input.email.trim().toLowerCase();
    // Before the store is asked about the e-mail and before any hashing: a refusal takes the same path
    // whether or not anyone has this e-mail.
    const check = await this.deps.throttle.admit(input.address, email);
    const person = await this.deps.accounts.findPersonByEmail(email);
    const passwordOk = await this.deps.passwords.verify(person?.passwordHash ?? DUMMY_PASSWORD_HASH, input.password);
    const now = this.deps.clock.now();
    const twoFactor = person?.twoFactorEnabled !== false;
    const step =
      person && passwordOk && twoFactor
        ? await this.deps.totp.verify(this.deps.box.open(person.totpSecret), input.totp, now, person.totpLastStep)
        : null;
    // One answer for every failure: which factor failed is not told.
    if (!person || !passwordOk || (twoFactor && step === null)) {
      await this.deps.throttle.failed(check, person);
      // The password was right: a code of a step used already is told apart ("wait for the next one").
      const reused =
        person &&
        passwordOk &&
        (await totpReused(this.deps.totp, this.deps.box.open(person.totpSecret), input.totp, now, person.totpLastStep));
      throw new DomainError('sign_in_failed', reused ? { reason: 'totp_reused' } : {});
    }
    const token = this.deps.random.base62(43);
    const session: Session = {
      id: this.deps.random.id(),
      personId: person.id,
      accountId: person.accountId,
      tokenHash: this.deps.hasher.sha256(token),
      createdAt: now,
      authenticatedAt: now,
      expiresAt: new Date(now.getTime() + SESSION_TTL_MS),
      revokedAt: null,
      csrfToken: this.deps.random.base62(43),
    };
    const recorded = await this.deps.uow.transaction(async () => {
      // A code used already (a concurrent sign-in won with it) is a failed check like any other.
      if (!(await this.deps.accounts.recordSignIn(person.id, now, step))) return false;
      await this.deps.sessions.insert(session);
      await this.deps.events.record(
        'person.signed_in',
        { accountId: person.accountId, environment: null, subject: `person:${person.id}`, actor: `person:${person.id}`, occurredAt: now },
        { session_id: session.id },
      );
      return true;
    });
    if (!recorded) {
      await this.deps.throttle.failed(check, person);
      throw new DomainError('sign_in_failed', { reason: 'totp_reused' });
    }
    await this.deps.throttle.succeeded(check);
    return { token, session, person };
  }
}

/** What AuthenticateSession is built from (one object, named, instead of positions). */
export interface AuthenticateSessionDeps {
  readonly accounts: AccountRepository;
  readonly sessions: SessionRepository;
  readonly hasher: SecretHasher;
  readonly clock: Clock;
}

export class AuthenticateSession {
  constructor(private readonly deps: AuthenticateSessionDeps) {}

  async execute(token: string): Promise<HumanContext> {
    const session = await this.deps.sessions.findByTokenHash(this.deps.hasher.sha256(token));
    if (!session || session.revokedAt || session.expiresAt <= this.deps.clock.now()) throw new DomainError('session_required');
    const person = await this.deps.accounts.findPerson(session.personId);
    if (!person) throw new DomainError('session_required');
    return { actor: { personId: person.id, accountId: person.accountId, role: person.role }, person, session };
  }
}

export class SignOut {
  constructor(
    private readonly sessions: SessionRepository,
    private readonly clock: Clock,
  ) {}

  async execute(session: Session): Promise<void> {
    await this.sessions.revoke(session.id, this.clock.now());
  }
}
