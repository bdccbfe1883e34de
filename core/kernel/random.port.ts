/** Randomness comes only from here. */
export interface Random {
  /** Cryptographically strong random bytes. */
  bytes(length: number): Uint8Array;
  /** A random string over [0-9A-Za-z] of the given length, without modulo bias. */
  base62(length: number): string;
  /** A sortable unique id: time-ordered prefix + randomness (used for rows, not secrets). */
  id(): string;
}
