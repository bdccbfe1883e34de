import { valueProblemRule } from './rule.js';

/** TXT strings are ≤ 255 octets (RFC 1035 §3.3): long text is split automatically, not refused; what is refused
 * is a value whose strings overflow one record's 65535-octet data (RFC 1035 §3.2.1, §3.3.14). */
export const txtStringLength = valueProblemRule({ id: 'txt-string-length', severity: 'error', rfc: 'RFC 1035 §3.3, §3.3.14' }, [
  'TXT',
  'SPF',
]);
