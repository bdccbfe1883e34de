import type { InputRule } from './input-rule.js';

/**
 * update and delete state the exact current record set (ttl and values, in any order), as Route 53's
 * ChangeResourceRecordSets requires for DELETE; a mismatch means the zone moved on.
 */
export const currentMismatch: InputRule = {
  id: 'current-mismatch',
  severity: 'error',
  rfc: 'DESIGN "Wire formats" (Route 53 semantics); RFC 2181 §5',
};
