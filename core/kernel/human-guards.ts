import { DomainError } from './errors.js';
import type { Actor, Session } from './person.js';

/** Seed A6 "after signing in again": a sensitive action needs password (+ TOTP) proved this recently. */
export const REAUTH_WINDOW_MS = 5 * 60 * 1000;

export const requireRecentSignIn = (session: Session, now: Date): void => {
  if (now.getTime() - session.authenticatedAt.getTime() > REAUTH_WINDOW_MS) {
    throw new DomainError('reauth_required', { minutes: REAUTH_WINDOW_MS / 60_000 });
  }
};

export const requireOwner = (actor: Actor, action: string): void => {
  if (actor.role !== 'owner') throw new DomainError('owner_only', { action });
};
