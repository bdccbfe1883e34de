import { scanSteps } from './scan.js';

/**
 * TXT data is octets: character strings of a length octet and at most 255 octets (RFC 1035 §3.3), any
 * octet allowed. The API's plain-text value holds those octets as text: valid UTF-8 is its characters,
 * and each octet that is not part of valid UTF-8 is the lone surrogate U+DC00 + octet (U+DC80–U+DCFF, the
 * "surrogateescape" convention of PEP 383), which JSON carries as `\udcXX`. So text → octets → text is
 * exact both ways, NUL (`\u0000` in JSON, `\000` in a zone file) included, and nothing stored holds a raw
 * NUL (values are stored as JSON). Zone files show octets outside printable ASCII as `\DDD` (RFC 1035 §5.1).
 * Every splitter here is the one the wire, the export and the size checks use: at most 255 octets per
 * string, never inside a UTF-8 sequence.
 */

/**
 * Octets of the code point at `i` (a lone U+DC80–U+DCFF is its one octet; another lone surrogate counts as
 * U+FFFD's three); a surrogate pair counts 4 at its first unit and 0 at its second.
 */
const octetsAt = (text: string, i: number): number => {
  const c = text.charCodeAt(i);
  if (c < 0x80) return 1;
  if (c < 0x800) return 2;
  if (c >= 0xd800 && c <= 0xdbff) {
    const d = text.charCodeAt(i + 1);
    return d >= 0xdc00 && d <= 0xdfff ? 4 : 3;
  }
  if (c >= 0xdc00 && c <= 0xdfff) {
    const p = i > 0 ? text.charCodeAt(i - 1) : 0;
    if (p >= 0xd800 && p <= 0xdbff) return 0; // the second half of a pair
    return c >= 0xdc80 && c <= 0xdcff ? 1 : 3;
  }
  return 3;
};

/** Lone surrogates that stand for no octet (anything but U+DC80–U+DCFF): such text has no octets. */
export const unencodable = (text: string): boolean => {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0xd800 || c > 0xdfff) continue;
    if (c <= 0xdbff) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        i++;
        continue;
      }
      return true;
    }
    if (c < 0xdc80 || c > 0xdcff) return true;
  }
  return false;
};

/** The octets of TXT text (see above). A lone surrogate that is no octet becomes U+FFFD's octets. */
export const txtOctets = (text: string): Uint8Array => {
  const out = new Uint8Array(text.length * 3);
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) out[n++] = c;
    else if (c < 0x800) {
      out[n++] = 0xc0 | (c >> 6);
      out[n++] = 0x80 | (c & 63);
    } else if (c >= 0xdc80 && c <= 0xdcff) out[n++] = c - 0xdc00;
    else {
      let cp = c;
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
        const d = text.charCodeAt(i + 1);
        if (d >= 0xdc00 && d <= 0xdfff) {
          cp = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
          i++;
        }
      }
      if (cp >= 0xd800 && cp <= 0xdfff) cp = 0xfffd;
      if (cp >= 0x10000) {
        out[n++] = 0xf0 | (cp >> 18);
        out[n++] = 0x80 | ((cp >> 12) & 63);
      } else out[n++] = 0xe0 | (cp >> 12);
      out[n++] = 0x80 | ((cp >> 6) & 63);
      out[n++] = 0x80 | (cp & 63);
    }
  }
  scanSteps.n += text.length + 1;
  return out.subarray(0, n);
};

/** Length of a valid UTF-8 sequence starting at `i` (RFC 3629 §4: no overlongs, no surrogates, ≤ U+10FFFF), or 0. */
const utf8SequenceAt = (b: Uint8Array, i: number): number => {
  const x = b[i]!;
  if (x < 0x80) return 1;
  const cont = (k: number, lo = 0x80, hi = 0xbf): boolean => i + k < b.length && b[i + k]! >= lo && b[i + k]! <= hi;
  if (x >= 0xc2 && x <= 0xdf) return cont(1) ? 2 : 0;
  if (x === 0xe0) return cont(1, 0xa0) && cont(2) ? 3 : 0;
  if ((x >= 0xe1 && x <= 0xec) || x === 0xee || x === 0xef) return cont(1) && cont(2) ? 3 : 0;
  if (x === 0xed) return cont(1, 0x80, 0x9f) && cont(2) ? 3 : 0;
  if (x === 0xf0) return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
  if (x >= 0xf1 && x <= 0xf3) return cont(1) && cont(2) && cont(3) ? 4 : 0;
  if (x === 0xf4) return cont(1, 0x80, 0x8f) && cont(2) && cont(3) ? 4 : 0;
  return 0;
};

const decoder = new TextDecoder('utf-8');

/** TXT text of octets: valid UTF-8 as characters, every other octet as U+DC00 + octet. Exact inverse of txtOctets. */
export const octetsText = (b: Uint8Array): string => {
  let out = '';
  let run = 0; // start of the current valid run
  let i = 0;
  while (i < b.length) {
    const n = utf8SequenceAt(b, i);
    if (n > 0) {
      i += n;
      continue;
    }
    if (i > run) out += decoder.decode(b.subarray(run, i));
    out += String.fromCharCode(0xdc00 + b[i]!);
    i++;
    run = i;
  }
  if (i > run) out += decoder.decode(b.subarray(run, i));
  scanSteps.n += b.length + 1;
  return out;
};

/** Split text into strings of at most 255 octets, never inside a UTF-8 sequence. "" is one empty string. */
export const splitTxt = (text: string): string[] => {
  scanSteps.n += text.length + 1;
  if (text.length <= 63) return [text]; // at most 4 octets per unit: fits one string
  const out: string[] = [];
  let start = 0;
  let octets = 0;
  for (let i = 0; i < text.length; i++) {
    const size = octetsAt(text, i);
    if (size > 0 && octets + size > 255) {
      out.push(text.slice(start, i));
      start = i;
      octets = 0;
    }
    octets += size;
  }
  out.push(text.slice(start));
  return out;
};

/** The character strings of TXT text as octets (what the wire carries). */
export const txtStringOctets = (text: string): Uint8Array[] => splitTxt(text).map(txtOctets);

/** RDATA octets of a TXT value once split: each string plus its length octet. */
export const txtRdataLength = (strings: readonly string[]): number => {
  let n = 0;
  for (const s of strings) {
    n += 1;
    for (let i = 0; i < s.length; i++) n += octetsAt(s, i);
  }
  return n;
};

/** One quoted zone-file string: `"` and `\` escaped, octets outside printable ASCII as \DDD (RFC 1035 §5.1). */
export const quoteString = (s: string): string => {
  const parts: string[] = ['"'];
  for (const b of txtOctets(s)) {
    if (b === 0x22) parts.push('\\"');
    else if (b === 0x5c) parts.push('\\\\');
    else if (b < 0x20 || b >= 0x7f) parts.push(`\\${String(b).padStart(3, '0')}`);
    else parts.push(String.fromCharCode(b));
  }
  parts.push('"');
  return parts.join('');
};

/** Decode the escapes of a zone-file string body (without its quotes): `\X` is X, `\DDD` is the octet DDD. */
export const unescapeString = (body: string): { text: string; problem: string | null } => {
  if (!body.includes('\\')) return { text: body, problem: null };
  const raw = txtOctets(body); // the characters as octets; escapes are ASCII, so they sit in `raw` as written
  const bytes = new Uint8Array(raw.length);
  let n = 0;
  let problem: string | null = null;
  for (let i = 0; i < raw.length; i++) {
    if (raw[i] !== 0x5c) {
      bytes[n++] = raw[i]!;
      continue;
    }
    if (
      i + 3 < raw.length &&
      raw[i + 1]! >= 48 &&
      raw[i + 1]! <= 57 &&
      raw[i + 2]! >= 48 &&
      raw[i + 2]! <= 57 &&
      raw[i + 3]! >= 48 &&
      raw[i + 3]! <= 57
    ) {
      const v = (raw[i + 1]! - 48) * 100 + (raw[i + 2]! - 48) * 10 + (raw[i + 3]! - 48);
      if (v > 255) problem = `\\${String(v).padStart(3, '0')} is not an octet (000–255)`;
      bytes[n++] = v & 0xff;
      i += 3;
    } else if (i + 1 < raw.length) {
      bytes[n++] = raw[i + 1]!;
      i += 1;
    } else problem = 'a lone backslash at the end';
  }
  scanSteps.n += raw.length + 1;
  return { text: octetsText(bytes.subarray(0, n)), problem };
};
