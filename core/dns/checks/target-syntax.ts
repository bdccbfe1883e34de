import { valueProblemRule } from './rule.js';

const TARGET_TYPES = ['CNAME', 'NS', 'PTR', 'DNAME', 'MX', 'SRV', 'SOA'] as const;

/** Target names are well-formed domain names: labels 1–63 octets, ≤ 255 octets, no whitespace (RFC 1035 §2.3.4, §3.1). */
export const targetSyntax = valueProblemRule({ id: 'target-syntax', severity: 'error', rfc: 'RFC 1035 §2.3.4, §3.1' }, TARGET_TYPES);
