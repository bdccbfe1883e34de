/** Keyed hashing and comparisons for secrets (keys, session tokens). */
export interface SecretHasher {
  /** HMAC-SHA-256 of a key string with the server-side pepper, hex. */
  hmac(secret: string): string;
  /** Plain SHA-256, hex (session tokens: random, so no pepper is needed). */
  sha256(secret: string): string;
  /** Constant-time comparison of two hex digests of equal length. */
  equal(a: string, b: string): boolean;
  crc32(text: string): number;
}
