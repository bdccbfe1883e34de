/** An account (organisation) has people; each is an owner or a member. */
export type Role = 'owner' | 'member';

export interface Account {
  readonly id: string;
  readonly name: string;
  readonly createdAt: Date;
}

export interface Person {
  readonly id: string;
  readonly accountId: string;
  readonly email: string;
  readonly name: string;
  readonly role: Role;
  readonly passwordHash: string;
  /** The TOTP seed, sealed by the SecretBox port (encrypted at rest). */
  readonly totpSecret: string;
  /** The last accepted TOTP time step: a code is never accepted twice (RFC 6238 §5.2). */
  readonly totpLastStep: number | null;
  readonly lastSignInAt: Date | null;
  readonly createdAt: Date;
  /** False once the person switched off two-factor checks (a human-only action); absent means on. */
  readonly twoFactorEnabled?: boolean;
  /** A new TOTP seed (sealed) waiting for its first code before two-factor checks go on again; absent
   * or null when no enrolment is under way. */
  readonly totpPendingSecret?: string | null;
}

export interface Session {
  readonly id: string;
  readonly personId: string;
  readonly accountId: string;
  readonly tokenHash: string;
  readonly createdAt: Date;
  /** When the person last proved password + TOTP; "sign in again" checks read this. */
  readonly authenticatedAt: Date;
  readonly expiresAt: Date;
  readonly revokedAt: Date | null;
  /** The console's CSRF synchronizer token (per session, checked server-side on every form). */
  readonly csrfToken?: string | null;
}

/** The signed-in human on whose behalf a use case runs. */
export interface Actor {
  readonly personId: string;
  readonly accountId: string;
  readonly role: Role;
}

/** The signed-in person a console or session request acts for, with the session they proved. */
export interface HumanContext {
  readonly actor: Actor;
  readonly person: Person;
  readonly session: Session;
}
