import type { InputRule } from './input-rule.js';

/** A zone file line that does not parse as RFC 1035 §5 master-file text (with BIND's $TTL, RFC 2308 §4). */
export const zoneFileSyntax: InputRule = { id: 'zone-file-syntax', severity: 'error', rfc: 'RFC 1035 §5; RFC 2308 §4' };
