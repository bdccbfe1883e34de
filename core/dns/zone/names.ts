import { domainToASCII } from 'node:url';

/**
 * Owner and target names inside a zone (DESIGN "Wire formats"): `@` is the apex; a name that ends with the
 * zone's name (with or without a trailing dot) is absolute; any other is relative to the zone. Names are
 * kept absolute, lower case, A-label, without the trailing dot. `*` and `_` labels are kept as they are.
 * Nothing here throws: a name that cannot be resolved comes back as a problem for a check result.
 */

export interface NameProblem {
  readonly rule: string;
  readonly en: string;
  readonly uk: string;
}

export type ResolvedName = { readonly ok: true; readonly name: string } | { readonly ok: false; readonly problem: NameProblem };

/** `name` is `origin` or a descendant of it (label-wise, so `notexample.com` is not under `example.com`). */
export const isAtOrBelow = (name: string, origin: string): boolean =>
  name === origin || (name.length > origin.length && name.endsWith(origin) && name.charCodeAt(name.length - origin.length - 1) === 46);

/** Lower case; a label with non-ASCII characters becomes its A-label (UTS #46 via WHATWG URL). */
export const toAsciiLabels = (name: string): string | null => {
  const lower = name.toLowerCase();
  // eslint-disable-next-line no-control-regex
  if (/^[\x00-\x7f]*$/.test(lower)) return lower;
  const out: string[] = [];
  for (const label of lower.split('.')) {
    if (/^[\x00-\x7f]*$/.test(label)) out.push(label);
    else {
      const ascii = domainToASCII(label);
      if (!ascii || ascii.includes('.')) return null;
      out.push(ascii);
    }
  }
  return out.join('.');
};

export const normalizeOrigin = (origin: string): string => origin.trim().toLowerCase().replace(/\.$/, '');

/**
 * Resolve a change's or record's name against the zone. `{ ok: false }` when it is empty, not text,
 * not convertible to A-labels, or absolute and outside the zone.
 */
export const resolveName = (input: unknown, origin: string): ResolvedName => {
  if (typeof input !== 'string' || input === '') {
    return { ok: false, problem: { rule: 'name-syntax', en: 'The name is empty.', uk: 'Ім’я порожнє.' } };
  }
  if (input === '@') return { ok: true, name: origin };
  const shown = input.length > 300 ? `${input.slice(0, 300)}…` : input;
  const ascii = toAsciiLabels(input);
  if (ascii === null) {
    return {
      ok: false,
      problem: { rule: 'name-syntax', en: `"${shown}" is not a valid domain name.`, uk: `«${shown}» не є коректним доменним ім’ям.` },
    };
  }
  if (ascii.endsWith('.')) {
    const bare = ascii.slice(0, -1);
    if (isAtOrBelow(bare, origin)) return { ok: true, name: bare };
    return { ok: false, problem: outsideZone(shown, origin) };
  }
  if (isAtOrBelow(ascii, origin)) return { ok: true, name: ascii };
  return { ok: true, name: `${ascii}.${origin}` };
};

/**
 * The one test every stored owner name passes, whoever writes it (plans, ACME challenges, migrations):
 * resolved against the zone to absolute A-labels (UTS #46), then free of every name problem (labels
 * 1–63 octets, ≤ 255 octets on the wire, no characters that need escaping). A name that fails it could
 * never be served, exported or deleted by a plan, so it is never stored.
 */
export const storableName = (input: string, origin: string): ResolvedName => {
  const resolved = resolveName(input, origin);
  if (!resolved.ok) return resolved;
  const problems = nameProblems(resolved.name);
  return problems.length > 0 ? { ok: false, problem: problems[0]! } : resolved;
};

export const outsideZone = (name: string, origin: string): NameProblem => ({
  rule: 'owner-in-zone',
  en: `"${name}" is outside the zone ${origin}.`,
  uk: `«${name}» лежить поза зоною ${origin}.`,
});

/** Octets of a string in UTF-8 (names are ASCII after resolution; this guards odd input). */
export const utf8Length = (s: string): number => {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
};

/** Length of the name in wire format (RFC 1035 §3.1): each label's length octet and octets, plus the root. */
export const wireLength = (name: string): number => (name === '' ? 1 : utf8Length(name) + 2);

/** Characters a label may hold here: letters, digits, hyphen, underscore (RFC 8552), `*` (RFC 4592), `/` (RFC 2317). */
const CLEAN_NAME = /^[a-z0-9_*/-]{1,63}(?:\.[a-z0-9_*/-]{1,63})*$/;

/**
 * Syntax problems of an absolute name (without trailing dot): empty labels, whitespace and characters that
 * would need escaping in a zone file (rule `name-syntax`), labels over 63 octets (`label-length`,
 * RFC 1035 §2.3.4) and names over 255 octets on the wire (`name-length`, RFC 1035 §3.1). Every problem.
 */
export const nameProblems = (name: string, what: { en: string; uk: string } = { en: 'The name', uk: 'Ім’я' }): NameProblem[] => {
  const out: NameProblem[] = [];
  // Fast path: the common, clean name (labels 1–63 allowed characters, ≤ 253 characters) has no problem.
  if (name.length <= 253 && CLEAN_NAME.test(name)) return out;
  if (/\s/.test(name))
    out.push({
      rule: 'name-syntax',
      en: `${what.en} "${name}" contains whitespace.`,
      uk: `${what.uk} «${name}» містить пробільні символи.`,
    });
  if (name === '' || name.split('.').some((l) => l === '')) {
    out.push({
      rule: 'name-syntax',
      en: `${what.en} "${name}" has an empty label (two dots in a row, or a dot at the start).`,
      uk: `${what.uk} «${name}» містить порожню мітку (дві крапки поспіль або крапку на початку).`,
    });
  }
  const odd = [...new Set(name.replace(/[a-z0-9_*/.\s-]/g, ''))];
  if (odd.length > 0) {
    const list = odd.slice(0, 5).join(' ');
    out.push({
      rule: 'name-syntax',
      en: `${what.en} "${name}" contains ${list}; use letters, digits, hyphens and underscores.`,
      uk: `${what.uk} «${name}» містить ${list}; використовуйте латинські літери, цифри, дефіс і підкреслення.`,
    });
  }
  pushLabelLengths(name, what, out);
  const wire = wireLength(name);
  if (wire > 255) {
    out.push({
      rule: 'name-length',
      en: `${what.en} takes ${wire} octets on the wire; a domain name holds at most 255.`,
      uk: `${what.uk} займає ${wire} октетів у форматі повідомлення DNS; доменне ім’я вміщує не більше 255.`,
    });
  }
  return out;
};

const pushLabelLengths = (name: string, what: { en: string; uk: string }, out: NameProblem[]): void => {
  for (const label of name.split('.')) {
    const n = utf8Length(label);
    if (n > 63) {
      const shown = `${label.slice(0, 20)}…`;
      out.push({
        rule: 'label-length',
        en: `${what.en} has a label of ${n} octets ("${shown}"); a label holds 1–63 octets.`,
        uk: `${what.uk} має мітку довжиною ${n} октетів («${shown}»); мітка вміщує від 1 до 63 октетів.`,
      });
    }
  }
};

/** The name relative to the origin for zone files: `@` for the apex. */
export const relativeName = (name: string, origin: string): string =>
  name === origin ? '@' : isAtOrBelow(name, origin) ? name.slice(0, name.length - origin.length - 1) : `${name}.`;

/** The nearest ancestor (one label up), or null at the root. */
export const parentName = (name: string): string | null => {
  const i = name.indexOf('.');
  return i < 0 ? null : name.slice(i + 1);
};

/**
 * Sort key for DNS canonical order (RFC 4034 §6.1): labels compared right to left, a parent before its
 * children. Names are lower case already, so plain string comparison of the key is the canonical order.
 */
export const canonicalKey = (name: string): string => name.split('.').reverse().join('\u0000');

export const compareNames = (a: string, b: string): number => {
  const ka = canonicalKey(a);
  const kb = canonicalKey(b);
  return ka < kb ? -1 : ka > kb ? 1 : 0;
};

/** First label is `_acme-challenge` (RFC 8555 §8.4): whole-zone plans leave these names alone. */
export const isAcmeChallengeName = (name: string): boolean => name === '_acme-challenge' || name.startsWith('_acme-challenge.');

/** Whether `name` is an ACME DNS-01 name (`_acme-challenge.<host>`) inside `zone`. */
export const isAcmeName = (name: string, zone: string): boolean =>
  name.startsWith('_acme-challenge.') && (name === `_acme-challenge.${zone}` || name.endsWith(`.${zone}`));
