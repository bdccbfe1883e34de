/**
 * Text that came from outside (a webhook receiver's answer, a probe's error, a value a key wrote) on its
 * way into our storage or into words we send to people.
 */

/**
 * Text a database text column always accepts: NUL (which Postgres refuses in text, so a whole insert
 * failed) becomes U+FFFD, and so do unpaired UTF-16 surrogates (not UTF-8 at all). Everything else is kept.
 */
export const storableText = (s: string): string => wellFormed(s.replace(/\0/g, '\uFFFD'));

/** Unpaired surrogates → U+FFFD (String.prototype.toWellFormed, which this TypeScript lib does not declare). */
const wellFormed = (s: string): string => s.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');

/** Like storableText, for the strings anywhere inside a JSON-like value (a probe's detail). */
export const storableValue = <T>(v: T): T => {
  if (typeof v === 'string') return storableText(v) as T;
  if (Array.isArray(v)) return v.map((x) => storableValue(x)) as T;
  if (v && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [storableText(k), storableValue(x)])) as T;
  }
  return v;
};

// Control characters (C0, DEL, C1), line and paragraph separators, and the bidirectional controls that
// can reorder what a reader sees.
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069\uFEFF]+/g;

/**
 * One line of foreign text for a message to people: every run of control characters (line breaks
 * included) becomes one space, and at most `max` characters are kept, the cut marked with "…".
 */
export const oneLine = (s: string, max: number): string => {
  const flat = wellFormed(s).replace(CONTROLS, ' ').replace(/\s+/g, ' ').trim();
  const chars = [...flat];
  return chars.length <= max ? flat : `${chars.slice(0, max - 1).join('')}…`;
};

/**
 * Foreign text quoted inside our own words: one line, bounded, in «…», so a reader sees where the quote
 * starts and ends (guillemets inside it are turned into single ones, ‹ ›, so it cannot close early).
 * The patterns' guillemets are written escaped: the bundler keeps a regular expression's characters as
 * they are, and one non-ASCII character makes the whole start bundle a two-byte string for V8 (slower to
 * read and compile, twice the memory); strings it escapes itself.
 */
export const quoted = (s: string, max = 100): string =>
  `«${oneLine(s, max)
    .replace(/\u00AB/g, '‹')
    .replace(/\u00BB/g, '›')}»`;
