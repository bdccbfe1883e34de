import { valueProblemRule } from './rule.js';

/** SOA has seven fields: two names and five 32-bit numbers (RFC 1035 §3.3.13). */
export const soaValue = valueProblemRule({ id: 'soa-value', severity: 'error', rfc: 'RFC 1035 §3.3.13' }, ['SOA']);
