/** Password hashing (argon2id in the adapter). */
export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(hash: string, password: string): Promise<boolean>;
}

/** TOTP (RFC 6238) verification; time is passed in, never read. */
export interface TotpVerifier {
  generateSecret(): string;
  /** Returns the matched time step, or null. Rejects steps ≤ afterStep (replay). */
  verify(secret: string, code: string, at: Date, afterStep: number | null): Promise<number | null>;
  /** otpauth:// URI for authenticator apps. */
  uri(secret: string, label: string): string;
}
