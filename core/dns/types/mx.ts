import { parseHost, presentHost } from './host.js';
import type { ParsedValue, ValueProblem } from './value.js';
import { fields, parseUint, shown, UINT16 } from './value.js';

/** MX: "preference exchange." with preference 0–65535 (RFC 1035 §3.3.9); "0 ." is a null MX (RFC 7505). */
export const parseMx = (raw: string, origin: string): ParsedValue => {
  const f = fields(raw);
  const problems: ValueProblem[] = [];
  const preference = parseUint(f[0], UINT16);
  if (f.length !== 2 || preference === null) {
    problems.push({
      rule: 'mx-value',
      en: `An MX value is "preference host." with a preference from 0 to 65535, e.g. "10 mail.example.net.": "${shown(raw)}".`,
      uk: `Значення MX має вигляд «пріоритет вузол.», де пріоритет — від 0 до 65535, наприклад «10 mail.example.net.»: «${shown(raw)}».`,
    });
  }
  const host = f.length === 2 ? parseHost(f[1]!, origin, 'MX', true) : null;
  if (host) problems.push(...host.problems);
  if (host?.name === '' && preference !== null && preference !== 0) {
    problems.push({
      rule: 'mx-null',
      en: `A null MX (no mail accepted) is written "0 ."; preference ${preference} with "." is not allowed.`,
      uk: `Нульовий MX (пошта не приймається) записують як «0 .»; пріоритет ${preference} із «.» неприпустимий.`,
    });
  }
  if (problems.length > 0 || preference === null || !host || host.name === null) return { canonical: raw, data: null, problems };
  return { canonical: `${preference} ${presentHost(host.name)}`, problems, data: { kind: 'mx', preference, exchange: host.name } };
};
