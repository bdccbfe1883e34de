import type { InputRule } from './input-rule.js';

/** One change per record set in a plan: two would make the order of the changes matter. */
export const changeDuplicate: InputRule = { id: 'change-duplicate', severity: 'error', rfc: 'DESIGN "Wire formats"' };
