import type { Person, Role } from '../../kernel/person.js';
import type { Environment } from '../../kernel/environment.js';
import type { DangerClass } from '../../kernel/rights.js';

/** A key revoked along with a change to its issuer. */
export interface RevokedKey {
  readonly id: string;
  readonly environment: Environment;
  readonly class: DangerClass;
}

/** Invitations to join an account (manage people, a human-only action — seed A6). */
export interface Invitation {
  readonly id: string;
  readonly accountId: string;
  readonly email: string;
  readonly role: Role;
  /** SHA-256 of the one-time token in the e-mailed link; the token itself is never stored. */
  readonly tokenHash: string;
  readonly invitedBy: string;
  readonly createdAt: Date;
  readonly expiresAt: Date;
  readonly acceptedAt: Date | null;
  readonly revokedAt: Date | null;
}

/** People of an account and what the six human-only actions change about them. */
export interface PeopleRepository {
  list(accountId: string): Promise<Person[]>;
  /** Serialises people changes of one account (Postgres: a row lock on the account; SQLite: one writer). */
  lockAccount(accountId: string): Promise<void>;
  setRole(personId: string, role: Role): Promise<void>;
  /** Marks removed and frees the e-mail address for a later invitation. */
  remove(personId: string, at: Date): Promise<void>;
  setTwoFactor(personId: string, enabled: boolean): Promise<void>;
  /** Stores the sealed TOTP seed of a new enrolment, replacing any earlier one. Conditional: false (and
   * nothing stored) when two-factor checks are on. */
  setPendingTotp(personId: string, sealedSecret: string): Promise<boolean>;
  /** The pending seed becomes the TOTP seed: two-factor on, the pending seed cleared, `step` recorded as
   * the last accepted one. Conditional: false (nothing changed) unless two-factor is off and the pending
   * seed is still `sealedSecret` (a concurrent confirmation or a newer enrolment wins). */
  confirmPendingTotp(personId: string, sealedSecret: string, step: number): Promise<boolean>;
  markAccountDeleted(accountId: string, at: Date): Promise<void>;
  /** The session proved password (+ TOTP) again now ("sign in again"). */
  reauthenticated(sessionId: string, at: Date): Promise<void>;
  revokeSessions(scope: { personId: string } | { accountId: string }, at: Date): Promise<void>;
  /** Revokes every active key of the scope (of a person: from class `minClass` up, when given); returns them. */
  revokeKeys(scope: { createdBy: string; minClass?: DangerClass } | { accountId: string }, at: Date, by: string): Promise<RevokedKey[]>;
  /** Domains the account holds in either environment. */
  countDomains(accountId: string): Promise<number>;
}

export interface InvitationRepository {
  insert(invitation: Invitation): Promise<void>;
  findByTokenHash(tokenHash: string): Promise<Invitation | null>;
  pending(accountId: string, now: Date): Promise<Invitation[]>;
  /** Conditional: false when already accepted, revoked or expired (one token, one use). */
  accept(id: string, at: Date): Promise<boolean>;
  revoke(id: string, accountId: string, at: Date): Promise<boolean>;
}
