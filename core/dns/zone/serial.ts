/**
 * SOA serial arithmetic, RFC 1982 (SERIAL_BITS = 32): serials wrap at 2^32 and compare within half
 * the space. A zone's serial advances on every change.
 */
const SPACE = 2 ** 32;
const HALF = 2 ** 31;

/** The next serial: +1, wrapping at 2^32 (0 is skipped: some secondaries treat it as unset). */
export const nextSerial = (current: number): number => {
  const n = (current + 1) % SPACE;
  return n === 0 ? 1 : n;
};

/** s1 > s2 in RFC 1982 §3.2 terms (undefined at exactly half the space: false here). */
export const serialGt = (s1: number, s2: number): boolean => (s1 < s2 && s2 - s1 > HALF) || (s1 > s2 && s1 - s2 < HALF);
