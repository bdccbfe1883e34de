import { valueProblemRule } from './rule.js';

/** CAA value: one string; issue/issuewild/issuemail and iodef syntax (RFC 8659 §4.1.1, §4.2, §4.4). */
export const caaValue = valueProblemRule({ id: 'caa-value', severity: 'error', rfc: 'RFC 8659 §4.1.1, §4.2, §4.4' }, ['CAA']);
