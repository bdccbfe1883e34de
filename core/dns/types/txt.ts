import type { ParsedValue } from './value.js';
import { NO_PROBLEMS } from './value.js';
import { splitTxt, txtRdataLength } from './text.js';

/**
 * TXT and SPF values are plain text (DESIGN). On the wire the text is split into ≤ 255-octet character
 * strings (RFC 1035 §3.3.14, RFC 7208 §3.3); the record's data must still fit RDLENGTH (16 bits, RFC 1035 §3.2.1).
 */
export const parseTxt = (type: string, raw: string): ParsedValue => {
  const strings = splitTxt(raw);
  const rdata = raw.length < 16000 ? raw.length * 3 + strings.length : txtRdataLength(strings);
  const exact = rdata > 65535 ? txtRdataLength(strings) : rdata;
  if (exact > 65535) {
    return {
      canonical: raw,
      data: null,
      problems: [
        {
          rule: 'txt-string-length',
          en: `This ${type} value needs ${exact} octets as ≤ 255-octet strings; one record holds at most 65535.`,
          uk: `Це значення ${type}, поділене на рядки до 255 октетів, займає ${exact} октетів; один запис уміщує не більше 65535.`,
        },
      ],
    };
  }
  return { canonical: raw, problems: NO_PROBLEMS, data: { kind: 'txt', text: raw, strings } };
};
