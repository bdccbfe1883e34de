import { valueProblemRule } from './rule.js';

/** MX is "preference exchange." with a 16-bit preference, 0–65535 (RFC 1035 §3.3.9). */
export const mxValue = valueProblemRule({ id: 'mx-value', severity: 'error', rfc: 'RFC 1035 §3.3.9' }, ['MX']);
