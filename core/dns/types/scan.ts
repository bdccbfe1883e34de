/**
 * Hand-written, single-pass scanning for DNS presentation values. A regular expression with two
 * quantifiers that can both take the same character (`\S[\s\S]*?\s*$`) backtracks quadratically on long
 * runs of that character: a 100,000-space CAA value froze the server for seconds. Everything here visits
 * each character a bounded number of times, and says how many it visited in `scanSteps` — a deterministic
 * operation count the tests hold to a linear budget (no wall clock).
 */
export const scanSteps = { n: 0 };

/** What `\s` matches in JavaScript (ECMA-262 WhiteSpace and LineTerminator), so behaviour is unchanged. */
export const isSpaceCode = (c: number): boolean =>
  c === 32 ||
  (c >= 9 && c <= 13) ||
  c === 0xa0 ||
  c === 0x1680 ||
  (c >= 0x2000 && c <= 0x200a) ||
  c === 0x2028 ||
  c === 0x2029 ||
  c === 0x202f ||
  c === 0x205f ||
  c === 0x3000 ||
  c === 0xfeff;

/** Index of the first non-space at or after `i`. */
export const skipSpaces = (s: string, i: number): number => {
  const from = i;
  while (i < s.length && isSpaceCode(s.charCodeAt(i))) i++;
  scanSteps.n += i - from + 1;
  return i;
};

/** Index just past the run of non-spaces starting at `i`. */
export const skipWord = (s: string, i: number): number => {
  const from = i;
  while (i < s.length && !isSpaceCode(s.charCodeAt(i))) i++;
  scanSteps.n += i - from + 1;
  return i;
};

/** The end of `s` with trailing spaces cut off (an index), never before `min`. */
export const trimEnd = (s: string, min: number): number => {
  let j = s.length;
  while (j > min && isSpaceCode(s.charCodeAt(j - 1))) j--;
  scanSteps.n += s.length - j + 1;
  return j;
};

/** Whether `s` holds any space character. */
export const hasSpace = (s: string): boolean => skipWord(s, 0) < s.length;

/** Whether every character of `s` passes `ok` (false for ''). */
export const every = (s: string, ok: (c: number) => boolean): boolean => {
  let i = 0;
  while (i < s.length && ok(s.charCodeAt(i))) i++;
  scanSteps.n += i + 1;
  return s.length > 0 && i === s.length;
};

export const isAsciiAlnum = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 97 && c <= 122) || (c >= 65 && c <= 90);
export const isDigit = (c: number): boolean => c >= 48 && c <= 57;
