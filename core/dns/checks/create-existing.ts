import type { InputRule } from './input-rule.js';

/** create adds a record set that does not exist yet; to change one, update it with its current values. */
export const createExisting: InputRule = {
  id: 'create-existing',
  severity: 'error',
  rfc: 'DESIGN "Wire formats" (Route 53 CREATE semantics)',
};
