import { valueProblemRule } from './rule.js';

/** AAAA holds one IPv6 address (RFC 3596 §2.2); values are stored in RFC 5952 form. */
export const aaaaIpv6 = valueProblemRule({ id: 'aaaa-ipv6', severity: 'error', rfc: 'RFC 3596 §2.2' }, ['AAAA']);
