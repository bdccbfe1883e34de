/**
 * Signed DNS messages already seen (RFC 8945 §5.2.3 leaves replay inside the time window to the server):
 * kept in the store, so every DNS worker and process refuses a message another one accepted.
 */
export interface TsigReplays {
  /** Records (key, time signed, MAC); false when it was recorded before — a replay. */
  claim(keyId: string, timeSigned: number, mac: string, at: Date): Promise<boolean>;
  /** Forgets what was seen before `before` (older messages fail the time check anyway). */
  purge(before: Date): Promise<number>;
}
