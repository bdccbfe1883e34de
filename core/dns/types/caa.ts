import type { ParsedValue, ValueProblem } from './value.js';
import { parseUint, shown } from './value.js';
import { quoteString, unescapeString } from './text.js';
import { every, hasSpace, isAsciiAlnum, isSpaceCode, scanSteps, skipSpaces, skipWord, trimEnd } from './scan.js';

/**
 * Tags in use: issue, issuewild, iodef (RFC 8659 §4.2–4.4), issuemail (RFC 9495), contactemail and
 * contactphone (CA/Browser Forum Baseline Requirements, appendix A), issuevmc (CA/B Forum mark certificates).
 */
export const KNOWN_CAA_TAGS = ['issue', 'issuewild', 'iodef', 'issuemail', 'issuevmc', 'contactemail', 'contactphone'];

/** A host name of letters, digits and inner hyphens (RFC 8659 §4.2 issuer-domain-name), scanned once. */
const domainOk = (d: string): boolean => {
  let labelStart = 0;
  for (let i = 0; i <= d.length; i++) {
    const c = i < d.length ? d.charCodeAt(i) : 46;
    if (c === 46 /* . */) {
      if (i === labelStart || d.charCodeAt(labelStart) === 45 || d.charCodeAt(i - 1) === 45) return false;
      labelStart = i + 1;
    } else if (!isAsciiAlnum(c) && c !== 45) return false;
  }
  scanSteps.n += d.length + 1;
  return true;
};

/** `key=value` (RFC 8659 §4.2): key of letters and digits, value of printable ASCII but `;`. */
const parameterOk = (p: string, from: number, to: number): boolean => {
  let i = from;
  while (i < to && isAsciiAlnum(p.charCodeAt(i))) i++;
  if (i === from || i === to || p.charCodeAt(i) !== 61 /* = */) return false;
  for (i++; i < to; i++) {
    const c = p.charCodeAt(i);
    if (c < 0x21 || c > 0x7e || c === 0x3b) return false;
  }
  scanSteps.n += to - from + 1;
  return true;
};

/** issue / issuewild / issuemail value (RFC 8659 §4.2): `[issuer-domain-name] [; key=value; …]`. */
const issuerValueOk = (v: string): boolean => {
  const semi = v.indexOf(';');
  const domain = (semi < 0 ? v : v.slice(0, semi)).trim();
  if (domain !== '' && !domainOk(domain)) return false;
  if (semi < 0) return true;
  // Parameters are separated by `;` and/or spaces; empty pieces are allowed.
  let i = semi + 1;
  while (i < v.length) {
    const c = v.charCodeAt(i);
    if (c === 59 || isSpaceCode(c)) {
      i++;
      continue;
    }
    let j = i;
    while (j < v.length && v.charCodeAt(j) !== 59 && !isSpaceCode(v.charCodeAt(j))) j++;
    if (!parameterOk(v, i, j)) return false;
    i = j;
  }
  scanSteps.n += v.length + 1;
  return true;
};

/** iodef (RFC 8659 §4.4): `mailto:` with `x@y`, or an `http:`/`https:` URL; no spaces anywhere. */
const iodefOk = (v: string): boolean => {
  if (hasSpace(v)) return false;
  const lower = v.slice(0, 8).toLowerCase();
  if (lower.startsWith('mailto:')) {
    const at = v.indexOf('@', 'mailto:'.length + 1);
    return at >= 0 && at < v.length - 1;
  }
  if (lower.startsWith('https://')) return v.length > 8;
  if (lower.startsWith('http://')) return v.length > 7;
  return false;
};

/** `flags tag value` split on spaces (one pass): null when there are not three fields. */
export const splitCaa = (raw: string): { flags: string; tag: string; value: string } | null => {
  const a = skipSpaces(raw, 0);
  const b = skipWord(raw, a);
  const c = skipSpaces(raw, b);
  if (b === a || c === b) return null;
  const d = skipWord(raw, c);
  const e = skipSpaces(raw, d);
  if (d === c || e === d || e === raw.length) return null;
  return { flags: raw.slice(a, b), tag: raw.slice(c, d), value: raw.slice(e, trimEnd(raw, e)) };
};

/**
 * The body of a CAA value as written: one quoted string with `\X`/`\DDD` escapes, or one word without
 * spaces or quotes. null when it is neither.
 */
export const caaValueBody = (valueText: string): string | null => {
  if (valueText.startsWith('"')) {
    for (let j = 1; j < valueText.length; j++) {
      const c = valueText.charCodeAt(j);
      if (c === 92 /* \ */) j++;
      else if (c === 34 /* " */) {
        scanSteps.n += j + 1;
        return j === valueText.length - 1 ? valueText.slice(1, j) : null;
      }
    }
    scanSteps.n += valueText.length + 1;
    return null;
  }
  return hasSpace(valueText) || valueText.includes('"') ? null : valueText;
};

/** CAA: `flags tag "value"` (RFC 8659 §4.1.1). Flags 0 or 128 (only Issuer Critical is defined, §4.1). */
export const parseCaa = (raw: string): ParsedValue => {
  const problems: ValueProblem[] = [];
  const m = splitCaa(raw);
  if (!m) {
    return {
      canonical: raw,
      data: null,
      problems: [
        {
          rule: 'caa-value',
          en: `A CAA value is 'flags tag "value"', e.g. '0 issue "letsencrypt.org"': "${shown(raw)}".`,
          uk: `Значення CAA має вигляд «прапорці тег "значення"», наприклад «0 issue "letsencrypt.org"»: «${shown(raw)}».`,
        },
      ],
    };
  }
  const { flags: flagsText, tag: tagText, value: valueText } = m;
  const flags = parseUint(flagsText, 255);
  if (flags !== 0 && flags !== 128) {
    problems.push({
      rule: 'caa-flags',
      en: `CAA flags are 0 or 128 (issuer critical), not "${shown(flagsText)}".`,
      uk: `Прапорці CAA — 0 або 128 (критичний для центру сертифікації), а не «${shown(flagsText)}».`,
    });
  }
  const tag = tagText.toLowerCase();
  if (tag.length > 15 || !every(tag, isAsciiAlnum)) {
    problems.push({
      rule: 'caa-tag',
      en: `The CAA tag "${shown(tagText)}" must be 1–15 ASCII letters and digits.`,
      uk: `Тег CAA «${shown(tagText)}» має складатися з 1–15 латинських літер і цифр.`,
    });
  } else if (!KNOWN_CAA_TAGS.includes(tag)) {
    problems.push({
      rule: 'caa-tag',
      en: `Unknown CAA tag "${tagText}"; known tags: ${KNOWN_CAA_TAGS.join(', ')}.`,
      uk: `Невідомий тег CAA «${tagText}»; відомі теги: ${KNOWN_CAA_TAGS.join(', ')}.`,
    });
  }
  const body = caaValueBody(valueText);
  const value = body === null ? null : unescapeString(body).text;
  if (value === null) {
    problems.push({
      rule: 'caa-value',
      en: `The CAA value must be one quoted string, e.g. "letsencrypt.org": ${shown(valueText)}.`,
      uk: `Значення CAA має бути одним рядком у лапках, наприклад "letsencrypt.org": ${shown(valueText)}.`,
    });
  } else if ((tag === 'issue' || tag === 'issuewild' || tag === 'issuemail') && !issuerValueOk(value)) {
    problems.push({
      rule: 'caa-value',
      en: `The ${tag} value "${shown(value)}" must be a CA's domain name, optionally followed by "; key=value" parameters, or ";" to forbid issuance.`,
      uk: `Значення ${tag} «${shown(value)}» має бути доменом центру сертифікації, за яким можуть іти параметри «; ключ=значення», або «;», щоб заборонити видачу.`,
    });
  } else if (tag === 'iodef' && !iodefOk(value)) {
    problems.push({
      rule: 'caa-value',
      en: `The iodef value must be a mailto:, http: or https: URL (RFC 8659 §4.4): "${shown(value)}".`,
      uk: `Значення iodef має бути URL виду mailto:, http: або https: (RFC 8659 §4.4): «${shown(value)}».`,
    });
  }
  if (problems.length > 0 || value === null || flags === null) return { canonical: raw, problems, data: null };
  return { canonical: `${flags} ${tag} ${quoteString(value)}`, problems, data: { kind: 'caa', flags, tag, value } };
};
