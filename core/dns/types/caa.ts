import type { ParsedValue, ValueProblem } from './value.js';
import { parseUint, shown } from './value.js';
import { quoteString, unescapeString } from './text.js';

/**
 * Tags in use: issue, issuewild, iodef (RFC 8659 §4.2–4.4), issuemail (RFC 9495), contactemail and
 * contactphone (CA/Browser Forum Baseline Requirements, appendix A), issuevmc (CA/B Forum mark certificates).
 */
export const KNOWN_CAA_TAGS = ['issue', 'issuewild', 'iodef', 'issuemail', 'issuevmc', 'contactemail', 'contactphone'];

const DOMAIN = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*$/i;
const PARAMETER = /^[a-z0-9]+=[\x21-\x3a\x3c-\x7e]*$/i;

/** issue / issuewild / issuemail value (RFC 8659 §4.2): `[issuer-domain-name] [; key=value; …]`. */
const issuerValueOk = (v: string): boolean => {
  const [domain, ...rest] = v.split(';');
  if (domain!.trim() !== '' && !DOMAIN.test(domain!.trim())) return false;
  if (rest.length === 0) return true;
  const params = rest.join(';').trim();
  return params === '' || params.split(/\s*;\s*|\s+/).every((p) => p === '' || PARAMETER.test(p));
};

/** CAA: `flags tag "value"` (RFC 8659 §4.1.1). Flags 0 or 128 (only Issuer Critical is defined, §4.1). */
export const parseCaa = (raw: string): ParsedValue => {
  const problems: ValueProblem[] = [];
  const m = /^\s*(\S+)\s+(\S+)\s+(\S[\s\S]*?)\s*$/.exec(raw);
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
  const [, flagsText, tagText, valueText] = m as unknown as [string, string, string, string];
  const flags = parseUint(flagsText, 255);
  if (flags !== 0 && flags !== 128) {
    problems.push({
      rule: 'caa-flags',
      en: `CAA flags are 0 or 128 (issuer critical), not "${shown(flagsText)}".`,
      uk: `Прапорці CAA — 0 або 128 (критичний для центру сертифікації), а не «${shown(flagsText)}».`,
    });
  }
  const tag = tagText.toLowerCase();
  if (!/^[a-z0-9]{1,15}$/.test(tag)) {
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
  let value: string | null = null;
  if (valueText.startsWith('"')) {
    const end = /^"((?:[^"\\]|\\[\s\S])*)"$/.exec(valueText);
    if (end) value = unescapeString(end[1]!).text;
  } else if (!/\s|"/.test(valueText)) value = unescapeString(valueText).text;
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
  } else if (tag === 'iodef' && !/^(mailto:\S+@\S+|https?:\/\/\S+)$/i.test(value)) {
    problems.push({
      rule: 'caa-value',
      en: `The iodef value must be a mailto:, http: or https: URL (RFC 8659 §4.4): "${shown(value)}".`,
      uk: `Значення iodef має бути URL виду mailto:, http: або https: (RFC 8659 §4.4): «${shown(value)}».`,
    });
  }
  if (problems.length > 0 || value === null || flags === null) return { canonical: raw, problems, data: null };
  return { canonical: `${flags} ${tag} ${quoteString(value)}`, problems, data: { kind: 'caa', flags, tag, value } };
};
