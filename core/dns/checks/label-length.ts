import { nameProblemRule } from './name-problem-rule.js';

/** Each label of an owner name is 1–63 octets (RFC 1035 §2.3.4; empty labels are `name-syntax`). */
export const labelLength = nameProblemRule({ id: 'label-length', severity: 'error', rfc: 'RFC 1035 §2.3.4' });
