import type { RecordingDeps } from '../kernel/recording-deps.js';
import type { SecretHasher } from '../kernel/secret-hasher.port.js';
import type { SecretBox } from '../kernel/secret-box.port.js';
import { DomainError } from '../kernel/errors.js';
import type { Person } from '../kernel/person.js';
import type { HumanContext } from './sign-in.use-case.js';
import type { AccountRepository } from './ports/account-repository.port.js';
import type { PasswordHasher, TotpVerifier } from './ports/credentials.port.js';
import type { PeopleRepository } from './ports/people.port.js';
import type { InvitationMail } from './ports/invitation-mail.port.js';
import type { PasswordResets } from './ports/password-resets.port.js';
import type { CredentialThrottle } from './credential-throttle.js';
import { totpReused } from './totp-reuse.js';

/** A reset link works once, for this long. */
export const PASSWORD_RESET_TTL_MS = 30 * 60 * 1000;
export const MIN_PASSWORD_LENGTH = 12;

/** What Passwords is built from (one object, named, instead of positions). */
export interface PasswordsDeps extends RecordingDeps {
  readonly accounts: AccountRepository;
  readonly people: PeopleRepository;
  readonly resets: PasswordResets;
  readonly passwords: PasswordHasher;
  readonly totp: TotpVerifier;
  readonly box: SecretBox;
  readonly hasher: SecretHasher;
  readonly outbox: InvitationMail;
  readonly throttle: Pick<CredentialThrottle, 'admit' | 'succeeded' | 'failed'>;
  /** The console's public address, for the link in the e-mail. */
  readonly consoleUrl: string;
}

const checkNew = (password: string) => {
  if (password.length < MIN_PASSWORD_LENGTH || password.length > 1000)
    throw new DomainError('validation_failed', {}, [{ field: 'password', rule: `at least ${MIN_PASSWORD_LENGTH} characters` }]);
};

/**
 * A person's own password: changed while signed in (the current password proves it is them; every session
 * ends, so they sign in again with the new one), or reset by an e-mailed link when forgotten. A reset:
 * - answers the same whether or not anyone has the address (no account discovery);
 * - link: one use, 30 minutes, the token stored only as its SHA-256; a newer link ends the older ones;
 * - still asks for the one-time code when two-factor checks are on (a mailbox alone takes no account);
 * - every check goes through the credential limiter, like sign-in.
 */
export class Passwords {
  constructor(private readonly deps: PasswordsDeps) {}

  async change(human: HumanContext, input: { current: string; next: string; address: string }): Promise<void> {
    const person = await this.person(human.person.id);
    checkNew(input.next);
    const check = await this.deps.throttle.admit(input.address, person.email);
    if (!(await this.deps.passwords.verify(person.passwordHash, input.current))) {
      await this.deps.throttle.failed(check, person);
      throw new DomainError('validation_failed', {}, [{ field: 'current_password', rule: 'the current password' }]);
    }
    await this.deps.throttle.succeeded(check);
    await this.store(person, input.next, 'changed', null);
  }

  /** Always resolves the same way; the mail goes through the durable outbox (SMTP when configured). */
  async requestReset(input: { email: string; address: string }): Promise<void> {
    const email = input.email.trim().toLowerCase();
    // Counted as a try (never taken back): a flood of reset mails to one person, or from one address, waits.
    await this.deps.throttle.admit(input.address, email);
    const person = /^[^\s@]+@[^\s@]+$/.test(email) && email.length <= 320 ? await this.deps.accounts.findPersonByEmail(email) : null;
    if (!person) return;
    const token = this.deps.random.base62(43);
    const now = this.deps.clock.now();
    const id = this.deps.random.id();
    const link = `${this.deps.consoleUrl.replace(/\/$/, '')}/password/reset?token=${token}`;
    await this.deps.uow.transaction(async () => {
      await this.deps.resets.insert({
        id,
        personId: person.id,
        tokenHash: this.deps.hasher.sha256(token),
        createdAt: now,
        expiresAt: new Date(now.getTime() + PASSWORD_RESET_TTL_MS),
        usedAt: null,
      });
      await this.deps.outbox.enqueue([
        {
          id: this.deps.random.id(),
          noticeId: id,
          recipientId: person.id,
          address: person.email,
          subject: 'Domivka: новий пароль / a new password',
          body:
            `Хтось (можливо, ви) попросив новий пароль для ${person.email}. Посилання діє 30 хвилин, один раз:\n${link}\n` +
            `Якщо це були не ви, нічого не робіть: пароль лишається тим самим.\n\n` +
            `Someone (perhaps you) asked for a new password for ${person.email}. The link works once, for 30 minutes:\n${link}\n` +
            `If it was not you, do nothing: the password stays as it is.\n`,
          attempts: 0,
          createdAt: now,
        },
      ]);
    });
  }

  /** What the reset page needs before the form: whether the link still works and whether a code is asked. */
  async inspectReset(token: string): Promise<{ email: string; twoFactor: boolean }> {
    const { person } = await this.open(token);
    return { email: person.email, twoFactor: person.twoFactorEnabled !== false };
  }

  async completeReset(input: { token: string; password: string; totp: string; address: string }): Promise<void> {
    const { request, person } = await this.open(input.token);
    checkNew(input.password);
    const check = await this.deps.throttle.admit(input.address, person.email);
    let step: number | null = null;
    if (person.twoFactorEnabled !== false) {
      const secret = this.deps.box.open(person.totpSecret);
      step = await this.deps.totp.verify(secret, input.totp.trim(), this.deps.clock.now(), person.totpLastStep);
      if (step === null) {
        await this.deps.throttle.failed(check, person);
        const reused = await totpReused(this.deps.totp, secret, input.totp.trim(), this.deps.clock.now(), person.totpLastStep);
        throw new DomainError('sign_in_failed', { reason: reused ? 'totp_reused' : 'totp' });
      }
    }
    await this.deps.throttle.succeeded(check);
    await this.store(person, input.password, 'reset', { requestId: request.id, step });
  }

  private async open(token: string) {
    const request = /^[0-9A-Za-z]{43}$/.test(token) ? await this.deps.resets.findByTokenHash(this.deps.hasher.sha256(token)) : null;
    if (!request || request.usedAt || request.expiresAt <= this.deps.clock.now()) throw new DomainError('password_reset_invalid');
    const person = await this.deps.accounts.findPerson(request.personId);
    if (!person) throw new DomainError('password_reset_invalid');
    return { request, person };
  }

  private async person(id: string): Promise<Person> {
    const person = await this.deps.accounts.findPerson(id);
    if (!person) throw new DomainError('session_required');
    return person;
  }

  /** The new hash, every session of the person ended, the event — one transaction. */
  private async store(
    person: Person,
    password: string,
    how: 'changed' | 'reset',
    reset: { requestId: string; step: number | null } | null,
  ) {
    const hash = await this.deps.passwords.hash(password);
    const now = this.deps.clock.now();
    await this.deps.uow.transaction(async () => {
      if (reset) {
        if (!(await this.deps.resets.consume(reset.requestId, person.id, now))) throw new DomainError('password_reset_invalid');
        // The code's step is spent: it never signs in afterwards.
        if (reset.step !== null && !(await this.deps.accounts.recordSignIn(person.id, now, reset.step)))
          throw new DomainError('sign_in_failed', { reason: 'totp_reused' });
      }
      await this.deps.resets.setPassword(person.id, hash);
      await this.deps.people.revokeSessions({ personId: person.id }, now);
      await this.deps.events.record(
        'person.password_changed',
        { accountId: person.accountId, environment: null, subject: `person:${person.id}`, actor: `person:${person.id}`, occurredAt: now },
        { email: person.email, how },
      );
    });
  }
}
