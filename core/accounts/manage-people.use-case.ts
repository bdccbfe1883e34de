import type { RecordingDeps } from '../kernel/recording-deps.js';
import { withDefaults } from '../kernel/defaults.js';
import type { SecretHasher } from '../kernel/secret-hasher.port.js';
import type { EventData, EventType } from '../kernel/events.js';
import { DomainError } from '../kernel/errors.js';
import type { SecretBox } from '../kernel/secret-box.port.js';
import { requireOwner } from '../kernel/human-guards.js';
import type { Actor, Person, Role } from '../kernel/person.js';
import type { DangerClass } from '../kernel/rights.js';
import type { AccountRepository } from './ports/account-repository.port.js';
import type { PasswordHasher, TotpVerifier } from './ports/credentials.port.js';
import type { InvitationMail } from './ports/invitation-mail.port.js';
import type { Invitation, InvitationRepository, PeopleRepository, RevokedKey } from './ports/people.port.js';

/** The lowest key class a member may not hold (DESIGN: classes 2 and 3 are issued by owners only). */
const BEYOND_MEMBER: DangerClass = 2;

/** An invitation link is good for 7 days, once. */
export const INVITATION_TTL_MS = 7 * 24 * 3600 * 1000;

export interface PersonView {
  id: string;
  email: string;
  name: string;
  role: Role;
  two_factor: boolean;
  last_sign_in_at: string | null;
  created_at: string;
}
export const viewPerson = (p: Person): PersonView => ({
  id: p.id,
  email: p.email,
  name: p.name,
  role: p.role,
  two_factor: p.twoFactorEnabled !== false,
  last_sign_in_at: p.lastSignInAt?.toISOString() ?? null,
  created_at: p.createdAt.toISOString(),
});
export interface InvitationView {
  id: string;
  email: string;
  role: Role;
  expires_at: string;
  created_at: string;
}
const viewInvitation = (i: Invitation): InvitationView => ({
  id: i.id,
  email: i.email,
  role: i.role,
  expires_at: i.expiresAt.toISOString(),
  created_at: i.createdAt.toISOString(),
});

/** What ManagePeople is built from (one object, named, instead of positions). */
export interface ManagePeopleDeps extends RecordingDeps {
  readonly accounts: AccountRepository;
  readonly people: PeopleRepository;
  readonly invitations: InvitationRepository;
  readonly passwords: PasswordHasher;
  readonly totp: TotpVerifier;
  readonly box: SecretBox;
  readonly hasher: SecretHasher;
  readonly outbox: InvitationMail;
  /** The console's public address, for the link in the invitation e-mail. */
  readonly consoleUrl?: string;
}

/**
 * Manage people — a human-only action (seed A6): owners invite by e-mail link (a one-time token), change
 * roles and remove people; anyone may leave. The account always keeps at least one owner: the last owner
 * cannot leave, be removed or be demoted (checked under the account's lock, so two owners demoting each
 * other at once cannot both succeed).
 */
export class ManagePeople {
  private readonly deps: Required<ManagePeopleDeps>;

  constructor(deps: ManagePeopleDeps) {
    this.deps = withDefaults(deps, { consoleUrl: '/console' });
  }

  async list(actor: Actor): Promise<{ people: PersonView[]; invitations: InvitationView[] }> {
    const people = (await this.deps.people.list(actor.accountId)).map(viewPerson);
    const invitations =
      actor.role === 'owner' ? (await this.deps.invitations.pending(actor.accountId, this.deps.clock.now())).map(viewInvitation) : [];
    return { people, invitations };
  }

  /** Returns the invitation and its one-time token (also e-mailed through the outbox; shown once). */
  async invite(actor: Actor, input: { email: string; role: Role }): Promise<{ invitation: InvitationView; token: string; link: string }> {
    requireOwner(actor, 'people');
    const email = input.email.trim().toLowerCase();
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) || email.length > 320)
      throw new DomainError('validation_failed', {}, [{ field: 'email', rule: 'an e-mail address' }]);
    if (input.role !== 'owner' && input.role !== 'member')
      throw new DomainError('validation_failed', {}, [{ field: 'role', rule: 'owner or member' }]);
    if (await this.deps.accounts.findPersonByEmail(email)) throw new DomainError('person_exists', { email });
    const token = this.deps.random.base62(43);
    const now = this.deps.clock.now();
    const invitation: Invitation = {
      id: this.deps.random.id(),
      accountId: actor.accountId,
      email,
      role: input.role,
      tokenHash: this.deps.hasher.sha256(token),
      invitedBy: actor.personId,
      createdAt: now,
      expiresAt: new Date(now.getTime() + INVITATION_TTL_MS),
      acceptedAt: null,
      revokedAt: null,
    };
    const link = `${this.deps.consoleUrl.replace(/\/$/, '')}/invitations?token=${token}`;
    await this.deps.uow.transaction(async () => {
      await this.deps.invitations.insert(invitation);
      await this.deps.outbox.enqueue([
        {
          id: this.deps.random.id(),
          noticeId: invitation.id,
          recipientId: invitation.id,
          address: email,
          subject: 'Domivka: запрошення до рахунку / an invitation to an account',
          body:
            `Вас запросили до рахунку Domivka (роль: ${input.role}). Посилання діє 7 днів, один раз:\n${link}\n\n` +
            `You are invited to a Domivka account (role: ${input.role}). The link works once, for 7 days:\n${link}\n`,
          attempts: 0,
          createdAt: now,
        },
      ]);
      await this.record('person.invited', actor, `invitation:${invitation.id}`, { email, role: input.role });
    });
    return { invitation: viewInvitation(invitation), token, link };
  }

  async revokeInvitation(actor: Actor, id: string): Promise<void> {
    requireOwner(actor, 'people');
    if (!(await this.deps.invitations.revoke(id, actor.accountId, this.deps.clock.now()))) throw new DomainError('invitation_invalid');
  }

  /** What the invitation page shows before accepting. */
  async inspect(token: string): Promise<InvitationView> {
    const inv = await this.deps.invitations.findByTokenHash(this.deps.hasher.sha256(token));
    if (!inv || inv.acceptedAt || inv.revokedAt || inv.expiresAt <= this.deps.clock.now()) throw new DomainError('invitation_invalid');
    return viewInvitation(inv);
  }

  /** Accepting creates the person; the TOTP secret is returned once, for their authenticator app. */
  async accept(
    token: string,
    input: { name: string; password: string },
  ): Promise<{ person: PersonView; totpSecret: string; totpUri: string }> {
    if (typeof input.name !== 'string' || input.name.trim() === '' || input.name.length > 200)
      throw new DomainError('validation_failed', {}, [{ field: 'name', rule: '1–200 characters' }]);
    if (typeof input.password !== 'string' || input.password.length < 12 || input.password.length > 1024)
      throw new DomainError('validation_failed', {}, [{ field: 'password', rule: 'at least 12 characters' }]);
    const inv = await this.deps.invitations.findByTokenHash(this.deps.hasher.sha256(token));
    if (!inv) throw new DomainError('invitation_invalid');
    const totpSecret = this.deps.totp.generateSecret();
    const now = this.deps.clock.now();
    const person: Person = {
      id: this.deps.random.id(),
      accountId: inv.accountId,
      email: inv.email,
      name: input.name.trim(),
      role: inv.role,
      passwordHash: await this.deps.passwords.hash(input.password),
      totpSecret: this.deps.box.seal(totpSecret),
      totpLastStep: null,
      lastSignInAt: null,
      createdAt: now,
    };
    await this.deps.uow.transaction(async () => {
      if (!(await this.deps.invitations.accept(inv.id, now))) throw new DomainError('invitation_invalid');
      if (await this.deps.accounts.findPersonByEmail(inv.email)) throw new DomainError('person_exists', { email: inv.email });
      await this.deps.accounts.insertPerson(person);
      await this.record('person.joined', { personId: person.id, accountId: inv.accountId }, `person:${person.id}`, {
        email: person.email,
        role: person.role,
        invitation_id: inv.id,
      });
    });
    return { person: viewPerson(person), totpSecret, totpUri: this.deps.totp.uri(totpSecret, person.email) };
  }

  async changeRole(actor: Actor, personId: string, role: Role): Promise<PersonView> {
    requireOwner(actor, 'people');
    if (role !== 'owner' && role !== 'member') throw new DomainError('validation_failed', {}, [{ field: 'role', rule: 'owner or member' }]);
    return this.deps.uow.transaction(async () => {
      await this.deps.people.lockAccount(actor.accountId);
      await this.stillOwner(actor);
      const target = await this.member(actor, personId);
      if (target.role === role) return viewPerson(target);
      if (role === 'member') await this.keepAnOwner(actor.accountId, target);
      await this.deps.people.setRole(target.id, role);
      // Keys beyond a member's powers stop working with the change, in its transaction. Revoked, not
      // suspended: a suspended key would come back by itself on a later promotion, handing owner powers to
      // a key the owners may long have forgotten; a promoted person issues a new key instead.
      const revoked =
        role === 'member'
          ? await this.deps.people.revokeKeys({ createdBy: target.id, minClass: BEYOND_MEMBER }, this.deps.clock.now(), actor.personId)
          : [];
      await this.record('person.role_changed', actor, `person:${target.id}`, {
        email: target.email,
        from: target.role,
        to: role,
        ...(role === 'member' ? { revoked_key_ids: revoked.map((k) => k.id) } : {}),
      });
      await this.keysRevoked(actor, revoked, 'role_changed');
      return viewPerson({ ...target, role });
    });
  }

  /** Removes a person (owners), or the person leaves (anyone, themselves). Their sessions and keys end. */
  async remove(actor: Actor, personId: string): Promise<void> {
    if (personId !== actor.personId) requireOwner(actor, 'people');
    const now = this.deps.clock.now();
    await this.deps.uow.transaction(async () => {
      await this.deps.people.lockAccount(actor.accountId);
      if (personId !== actor.personId) await this.stillOwner(actor);
      const target = await this.member(actor, personId);
      if (target.role === 'owner') await this.keepAnOwner(actor.accountId, target);
      await this.deps.people.remove(target.id, now);
      await this.deps.people.revokeSessions({ personId: target.id }, now);
      const keys = await this.deps.people.revokeKeys({ createdBy: target.id }, now, actor.personId);
      await this.record('person.removed', actor, `person:${target.id}`, {
        email: target.email,
        left: target.id === actor.personId,
        keys_revoked: keys.length,
        revoked_key_ids: keys.map((k) => k.id),
      });
      await this.keysRevoked(actor, keys, 'person_removed');
    });
  }

  /** Each key revoked with a change to its issuer is its own `key.revoked` event, as a revocation by hand is:
   * what follows a revocation (its pending operations cancelled, webhooks) follows these too. */
  private async keysRevoked(actor: Actor, keys: readonly RevokedKey[], reason: 'role_changed' | 'person_removed'): Promise<void> {
    for (const k of keys) {
      await this.deps.events.record(
        'key.revoked',
        {
          accountId: actor.accountId,
          environment: k.environment,
          subject: `key:${k.id}`,
          actor: `person:${actor.personId}`,
          occurredAt: this.deps.clock.now(),
        },
        { key_id: k.id, reason },
      );
    }
  }

  private async member(actor: Actor, personId: string): Promise<Person> {
    const p = await this.deps.accounts.findPerson(personId);
    if (!p || p.accountId !== actor.accountId) throw new DomainError('person_not_found', { id: personId });
    return p;
  }

  /** The role read at sign-in may be stale: under the account's lock, the actor must still be an owner. */
  private async stillOwner(actor: Actor): Promise<void> {
    const me = await this.deps.accounts.findPerson(actor.personId);
    if (!me || me.role !== 'owner') throw new DomainError('owner_only', { action: 'people' });
  }

  private async keepAnOwner(accountId: string, leaving: Person): Promise<void> {
    const others = (await this.deps.accounts.owners(accountId)).filter((o) => o.id !== leaving.id);
    if (others.length === 0) throw new DomainError('last_owner', { email: leaving.email });
  }

  private async record<T extends EventType>(
    type: T,
    actor: Pick<Actor, 'personId' | 'accountId'>,
    subject: string,
    data: EventData[T],
  ): Promise<void> {
    await this.deps.events.record(
      type,
      { accountId: actor.accountId, environment: null, subject, actor: `person:${actor.personId}`, occurredAt: this.deps.clock.now() },
      data,
    );
  }
}
