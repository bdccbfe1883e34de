/**
 * Character strings (RFC 1035 §3.3: a length octet and at most 255 octets) and their zone-file form
 * (RFC 1035 §5.1: quotes, `\X` and `\DDD` escapes). TXT values in the API are the plain text; long text is
 * split into ≤ 255-octet strings here, never refused (DESIGN "Wire formats").
 */
const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8');

export const utf8 = (s: string): Uint8Array => encoder.encode(s);

/** Split text into strings of at most 255 octets, never inside a UTF-8 sequence. "" is one empty string. */
export const splitTxt = (text: string): string[] => {
  // eslint-disable-next-line no-control-regex
  if (text.length <= 255 && /^[\x00-\x7f]*$/.test(text)) return [text];
  const out: string[] = [];
  let start = 0;
  let octets = 0;
  let i = 0;
  while (i < text.length) {
    const cp = text.codePointAt(i)!;
    const units = cp > 0xffff ? 2 : 1;
    const size = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    if (octets + size > 255) {
      out.push(text.slice(start, i));
      start = i;
      octets = 0;
    }
    octets += size;
    i += units;
  }
  out.push(text.slice(start));
  return out;
};

/** RDATA octets of a TXT value once split: each string plus its length octet. */
export const txtRdataLength = (strings: readonly string[]): number => {
  let n = 0;
  for (const s of strings) n += utf8(s).length + 1;
  return n;
};

/** One quoted zone-file string: `"` and `\` escaped, control and non-ASCII octets as \DDD (RFC 1035 §5.1). */
export const quoteString = (s: string): string => {
  let out = '"';
  for (const b of utf8(s)) {
    if (b === 0x22) out += '\\"';
    else if (b === 0x5c) out += '\\\\';
    else if (b < 0x20 || b >= 0x7f) out += `\\${String(b).padStart(3, '0')}`;
    else out += String.fromCharCode(b);
  }
  return `${out}"`;
};

/** Decode the escapes of a zone-file string body (without its quotes): `\X` is X, `\DDD` is the octet DDD. */
export const unescapeString = (body: string): { text: string; problem: string | null } => {
  if (!body.includes('\\')) return { text: body, problem: null };
  const bytes: number[] = [];
  let problem: string | null = null;
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c !== '\\') {
      for (const b of utf8(c)) bytes.push(b);
      continue;
    }
    const ddd = /^\d{3}/.exec(body.slice(i + 1, i + 4));
    if (ddd) {
      const n = Number(ddd[0]);
      if (n > 255) problem = `\\${ddd[0]} is not an octet (000–255)`;
      bytes.push(n & 0xff);
      i += 3;
    } else if (i + 1 < body.length) {
      for (const b of utf8(body[i + 1]!)) bytes.push(b);
      i += 1;
    } else problem = 'a lone backslash at the end';
  }
  return { text: decoder.decode(new Uint8Array(bytes)), problem };
};
