import type { RecordingDeps } from '../kernel/recording-deps.js';
import { requireRecentSignIn } from '../kernel/human-guards.js';
import type { HumanContext } from './sign-in.use-case.js';
import type { PeopleRepository } from './ports/people.port.js';

/** What DisableTwoFactor is built from (one object, named, instead of positions). */
export interface DisableTwoFactorDeps extends RecordingDeps {
  readonly people: PeopleRepository;
}

/** Switch off two-factor checks for oneself — a human-only action (seed A6): after signing in again; every
 * owner hears of it. Sign-in then asks for the password only. */
export class DisableTwoFactor {
  constructor(private readonly deps: DisableTwoFactorDeps) {}

  async execute(human: HumanContext): Promise<{ two_factor: false }> {
    const now = this.deps.clock.now();
    requireRecentSignIn(human.session, now);
    if (human.person.twoFactorEnabled === false) return { two_factor: false };
    await this.deps.uow.transaction(async () => {
      await this.deps.people.setTwoFactor(human.person.id, false);
      await this.deps.events.record(
        'person.two_factor_disabled',
        {
          accountId: human.actor.accountId,
          environment: null,
          subject: `person:${human.person.id}`,
          actor: `person:${human.person.id}`,
          occurredAt: now,
        },
        { email: human.person.email },
      );
    });
    return { two_factor: false };
  }
}
