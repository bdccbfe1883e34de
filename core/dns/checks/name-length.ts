import { nameProblemRule } from './name-problem-rule.js';

/** An owner name takes at most 255 octets in wire format (RFC 1035 §2.3.4, §3.1). */
export const nameLength = nameProblemRule({ id: 'name-length', severity: 'error', rfc: 'RFC 1035 §3.1' });
