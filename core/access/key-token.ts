import type { Environment } from '../kernel/environment.js';

/**
 * Key strings (seed A2, DESIGN): `dmk_<env>_<id><secret><checksum>`.
 * - id: 12 base62 characters, public, used for lookup;
 * - secret: 32 base62 characters (≈190 bits);
 * - checksum: CRC-32 of everything before it, 6 base62 characters, so secret scanners can tell a real
 *   key from a random string offline (the scheme GitHub uses for its tokens).
 */
export const KEY_PREFIX = 'dmk';
export const KEY_ID_LENGTH = 12;
export const KEY_SECRET_LENGTH = 32;
export const KEY_CHECKSUM_LENGTH = 6;

const TOKEN_RE = /^dmk_(live|test)_([0-9A-Za-z]{12})([0-9A-Za-z]{32})([0-9A-Za-z]{6})$/;
const B62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export const toBase62 = (n: number, width: number): string => {
  let s = '';
  let v = n >>> 0;
  do {
    s = B62[v % 62] + s;
    v = Math.floor(v / 62);
  } while (v > 0);
  return s.padStart(width, '0');
};

export interface ParsedToken {
  readonly environment: Environment;
  readonly id: string;
  readonly body: string;
  readonly checksum: string;
}

/** Splits a token; null when its shape is wrong. The checksum is verified separately. */
export const parseToken = (token: string): ParsedToken | null => {
  const m = TOKEN_RE.exec(token);
  if (!m) return null;
  return { environment: m[1] as Environment, id: m[2]!, body: token.slice(0, -KEY_CHECKSUM_LENGTH), checksum: m[4]! };
};

/** Where the id sits in a token of the right length (`dmk_test_` / `dmk_live_` are both 9 characters). */
const ID_AT = KEY_PREFIX.length + '_test_'.length;
const TOKEN_LENGTH = ID_AT + KEY_ID_LENGTH + KEY_SECRET_LENGTH + KEY_CHECKSUM_LENGTH;

/** The id part of a string as long as a token, without checking its shape ('' otherwise): a lookup key only. */
export const tokenIdAt = (token: string): string => (token.length === TOKEN_LENGTH ? token.slice(ID_AT, ID_AT + KEY_ID_LENGTH) : '');

export const checksumOf = (body: string, crc32: (text: string) => number): string => toBase62(crc32(body), KEY_CHECKSUM_LENGTH);

export const formatToken = (environment: Environment, id: string, secret: string, crc32: (text: string) => number): string => {
  const body = `${KEY_PREFIX}_${environment}_${id}${secret}`;
  return body + checksumOf(body, crc32);
};
