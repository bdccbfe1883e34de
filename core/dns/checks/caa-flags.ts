import { valueProblemRule } from './rule.js';

/** CAA flags are 0 or 128: only the Issuer Critical bit is defined (RFC 8659 §4.1). */
export const caaFlags = valueProblemRule({ id: 'caa-flags', severity: 'error', rfc: 'RFC 8659 §4.1' }, ['CAA']);
