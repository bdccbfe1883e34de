import { valueProblemRule } from './rule.js';

/** A holds one IPv4 address in dotted-decimal (RFC 1035 §3.4.1). */
export const aIpv4 = valueProblemRule({ id: 'a-ipv4', severity: 'error', rfc: 'RFC 1035 §3.4.1' }, ['A']);
