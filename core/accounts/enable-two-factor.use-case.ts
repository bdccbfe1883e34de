import type { RecordingDeps } from '../kernel/recording-deps.js';
import { DomainError } from '../kernel/errors.js';
import type { SecretBox } from '../kernel/secret-box.port.js';
import { requireRecentSignIn } from '../kernel/human-guards.js';
import type { Person } from '../kernel/person.js';
import type { HumanContext } from './sign-in.use-case.js';
import type { AccountRepository } from './ports/account-repository.port.js';
import type { TotpVerifier } from './ports/credentials.port.js';
import type { PeopleRepository } from './ports/people.port.js';
import type { CredentialThrottle } from './credential-throttle.js';

/** What EnableTwoFactor is built from (one object, named, instead of positions). */
export interface EnableTwoFactorDeps extends RecordingDeps {
  readonly accounts: AccountRepository;
  readonly people: PeopleRepository;
  readonly totp: TotpVerifier;
  readonly box: SecretBox;
  readonly throttle: Pick<CredentialThrottle, 'admit' | 'succeeded' | 'failed'>;
}

/**
 * Switch two-factor checks on again for oneself, with a fresh secret — the way back from DisableTwoFactor,
 * in two steps so a person never ends up locked out by a secret their app does not hold:
 * 1. `start` (after signing in again, as switching off needs): a new TOTP seed, stored sealed as pending
 *    and answered once with its otpauth:// URI; starting again replaces it.
 * 2. `confirm`: a current code from that seed turns it into the person's secret and two-factor on, in one
 *    transaction with the event and the owners' notice. The old seed never comes back.
 */
export class EnableTwoFactor {
  constructor(private readonly deps: EnableTwoFactorDeps) {}

  async start(human: HumanContext): Promise<{ secret: string; otpauthUri: string }> {
    const now = this.deps.clock.now();
    requireRecentSignIn(human.session, now);
    const person = await this.current(human);
    if (person.twoFactorEnabled !== false) throw new DomainError('two_factor_already_on');
    const secret = this.deps.totp.generateSecret();
    await this.deps.uow.transaction(async () => {
      if (!(await this.deps.people.setPendingTotp(person.id, this.deps.box.seal(secret)))) throw new DomainError('two_factor_already_on');
      await this.deps.events.record(
        'person.two_factor_enrolment_started',
        { accountId: person.accountId, environment: null, subject: `person:${person.id}`, actor: `person:${person.id}`, occurredAt: now },
        {},
      );
    });
    return { secret, otpauthUri: this.deps.totp.uri(secret, person.email) };
  }

  /** `address`: where the attempt comes from; a code check is throttled like sign-in's. */
  async confirm(human: HumanContext, code: string, address: string): Promise<{ two_factor: true }> {
    const person = await this.current(human);
    if (person.twoFactorEnabled !== false) throw new DomainError('two_factor_already_on');
    const pending = person.totpPendingSecret;
    if (!pending) throw new DomainError('two_factor_enrolment_missing');
    const now = this.deps.clock.now();
    // No code of this seed was ever accepted, so nothing earlier to refuse; the step it matched is recorded
    // with the switch, so this very code never signs in afterwards (RFC 6238 §5.2).
    const check = await this.deps.throttle.admit(address, person.email);
    const step = await this.deps.totp.verify(this.deps.box.open(pending), code, now, null);
    if (step === null) {
      await this.deps.throttle.failed(check, person);
      throw new DomainError('totp_invalid');
    }
    await this.deps.throttle.succeeded(check);
    await this.deps.uow.transaction(async () => {
      if (!(await this.deps.people.confirmPendingTotp(person.id, pending, step))) {
        // Changed since we read it: a concurrent confirmation won, or a newer enrolment replaced the seed.
        const latest = await this.deps.accounts.findPerson(person.id);
        if (!latest || latest.twoFactorEnabled !== false) throw new DomainError('two_factor_already_on');
        throw new DomainError(latest.totpPendingSecret ? 'totp_invalid' : 'two_factor_enrolment_missing');
      }
      await this.deps.events.record(
        'person.two_factor_enabled',
        { accountId: person.accountId, environment: null, subject: `person:${person.id}`, actor: `person:${person.id}`, occurredAt: now },
        { email: person.email },
      );
    });
    return { two_factor: true };
  }

  /** The person as stored now (the session's copy may predate an enrolment started in another tab). */
  private async current(human: HumanContext): Promise<Person> {
    const person = await this.deps.accounts.findPerson(human.person.id);
    if (!person) throw new DomainError('session_required');
    return person;
  }
}
