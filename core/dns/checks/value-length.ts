import { RECORD_TYPES } from '../zone/record-set.js';
import { valueProblemRule } from './rule.js';

/** Values other than TXT are short in practice; the API's schema bounds them at 4096 characters and a zone file
 * may not go beyond it either, so no value costs more than that to parse, store, export or serve. */
export const valueLength = valueProblemRule(
  { id: 'value-length', severity: 'error', rfc: 'RFC 1035 §3.2.1' },
  RECORD_TYPES.filter((t) => t !== 'TXT' && t !== 'SPF'),
);
