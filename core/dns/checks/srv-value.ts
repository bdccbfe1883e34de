import { valueProblemRule } from './rule.js';

/** SRV is "priority weight port target.", each number 0–65535; port 0 only with target "." (RFC 2782). */
export const srvValue = valueProblemRule({ id: 'srv-value', severity: 'error', rfc: 'RFC 2782' }, ['SRV']);
