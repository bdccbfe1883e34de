import type { ParsedValue, ValueProblem } from './value.js';
import { NO_PROBLEMS } from './value.js';
import { octetsText, splitTxt, txtOctets, txtRdataLength, unencodable } from './text.js';

/** Whether the text holds a U+DC80–U+DCFF (an octet that is not UTF-8; see text.ts). */
const hasEscapedOctet = (raw: string): boolean => {
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c >= 0xdc80 && c <= 0xdcff) return true;
  }
  return false;
};

/**
 * TXT and SPF values are plain text (DESIGN) standing for octets (text.ts). On the wire the octets are
 * split into ≤ 255-octet character strings (RFC 1035 §3.3.14, RFC 7208 §3.3); the record's data must still
 * fit RDLENGTH (16 bits, RFC 1035 §3.2.1).
 */
export const parseTxt = (type: string, raw: string): ParsedValue => {
  const problems: ValueProblem[] = [];
  if (unencodable(raw)) {
    problems.push({
      rule: 'txt-octets',
      en: `This ${type} value holds a lone UTF-16 surrogate that stands for no octet; send text, or an octet that is not UTF-8 as \\udc80–\\udcff.`,
      uk: `Це значення ${type} містить одиночний сурогат UTF-16, що не означає жодного октету; надсилайте текст, а октет поза UTF-8 — як \\udc80–\\udcff.`,
    });
  }
  // Each character is at least one octet: text this long can never fit, whatever the split.
  const strings = raw.length > 65535 ? null : splitTxt(raw);
  const exact = strings === null ? raw.length : txtRdataLength(strings);
  if (exact > 65535) {
    problems.push({
      rule: 'txt-string-length',
      en: `This ${type} value needs ${raw.length > 65535 ? 'more than 65535' : exact} octets as ≤ 255-octet strings; one record holds at most 65535.`,
      uk: `Це значення ${type}, поділене на рядки до 255 октетів, займає ${raw.length > 65535 ? 'понад 65535' : exact} октетів; один запис уміщує не більше 65535.`,
    });
  }
  if (problems.length > 0) return { canonical: raw, data: null, problems };
  // Octets written as escapes that together are valid UTF-8 are those characters: one text per octet string.
  if (!hasEscapedOctet(raw)) return { canonical: raw, problems: NO_PROBLEMS, data: { kind: 'txt', text: raw, strings: strings! } };
  const text = octetsText(txtOctets(raw));
  return { canonical: text, problems: NO_PROBLEMS, data: { kind: 'txt', text, strings: splitTxt(text) } };
};
