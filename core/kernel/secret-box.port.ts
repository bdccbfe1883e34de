/**
 * Encryption at rest for secrets we must be able to read back (TOTP seeds now, certificate private
 * keys later). Hashes are for secrets we only compare (keys, passwords, session tokens).
 */
export interface SecretBox {
  /** Returns an opaque, self-describing text (algorithm, nonce, ciphertext, tag). */
  seal(plain: string): string;
  /** Throws if the text was not sealed with this box's key or was altered. */
  open(sealed: string): string;
}
