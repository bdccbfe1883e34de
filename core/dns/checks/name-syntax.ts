import { nameProblemRule } from './name-problem-rule.js';

/**
 * No empty label and no whitespace in an owner name (RFC 1035 §2.3.1, §5.1); characters beyond letters,
 * digits, `-`, `_` (RFC 8552), `*` (RFC 4592) and `/` (RFC 2317) are refused too, so every name can be written
 * in a zone file without escapes (RFC 2181 §11 allows any octet; we choose not to).
 */
export const nameSyntax = nameProblemRule({ id: 'name-syntax', severity: 'error', rfc: 'RFC 1035 §2.3.1; RFC 2181 §11' });
