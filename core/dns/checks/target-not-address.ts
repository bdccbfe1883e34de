import { valueProblemRule } from './rule.js';

const TARGET_TYPES = ['CNAME', 'NS', 'PTR', 'DNAME', 'MX', 'SRV', 'SOA'] as const;

/** Targets (CNAME, NS, PTR, DNAME, MX exchange, SRV target, SOA names) are host names, not IP addresses
 * (RFC 1123 §2.1: a host name never looks like a dotted-decimal address; RFC 1035 §3.3.9, §3.3.11; RFC 2782). */
export const targetNotAddress = valueProblemRule(
  { id: 'target-not-address', severity: 'error', rfc: 'RFC 1123 §2.1; RFC 1035 §3.3.9, §3.3.11; RFC 2782' },
  TARGET_TYPES,
);
