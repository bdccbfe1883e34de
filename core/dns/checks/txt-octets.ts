import { valueProblemRule } from './rule.js';

/** TXT data is octets (RFC 1035 §3.3); the API's text carries them (UTF-8, or U+DC80–U+DCFF for other octets),
 * so a lone surrogate outside that range stands for nothing and is refused rather than silently replaced. */
export const txtOctets = valueProblemRule({ id: 'txt-octets', severity: 'error', rfc: 'RFC 1035 §3.3; RFC 3629' }, ['TXT', 'SPF']);
