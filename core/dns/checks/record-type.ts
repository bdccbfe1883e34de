import { RECORD_TYPES } from '../zone/record-set.js';
import type { InputRule } from './input-rule.js';

/** Only the record types the service serves (core/dns/record-set.ts; RFC 1035 §3.2.2 and the types' own RFCs). */
export const recordType: InputRule = { id: 'record-type', severity: 'error', rfc: 'RFC 1035 §3.2.2' };

export const SUPPORTED_TYPES = RECORD_TYPES.join(', ');
