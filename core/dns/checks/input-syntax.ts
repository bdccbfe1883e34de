import type { InputRule } from './input-rule.js';

/** A change or record set in the plan's input is malformed: unknown action, values not a list of text (DESIGN "Wire formats"). */
export const inputSyntax: InputRule = { id: 'input-syntax', severity: 'error', rfc: 'DESIGN "Wire formats"' };
