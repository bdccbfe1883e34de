/** A request to set a new password by e-mailed link: single-use, short-lived, the token stored hashed. */
export interface PasswordResetRequest {
  readonly id: string;
  readonly personId: string;
  /** SHA-256 of the token in the e-mailed link; the token itself is never stored. */
  readonly tokenHash: string;
  readonly createdAt: Date;
  readonly expiresAt: Date;
  readonly usedAt: Date | null;
}

export interface PasswordResets {
  insert(request: PasswordResetRequest): Promise<void>;
  findByTokenHash(tokenHash: string): Promise<PasswordResetRequest | null>;
  /** Conditional: false when already used or expired (one token, one use). Also ends every other open
   * request of the person, so an older link cannot be used after a newer one. */
  consume(id: string, personId: string, at: Date): Promise<boolean>;
  /** The person's new password hash. */
  setPassword(personId: string, passwordHash: string): Promise<void>;
}
