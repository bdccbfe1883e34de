import { valueProblemRule } from './rule.js';

/** CAA tag: 1–15 of [A-Za-z0-9] (RFC 8659 §4.1), and a known property (RFC 8659 §4.2–4.4, RFC 9495, CA/B Forum). */
export const caaTag = valueProblemRule({ id: 'caa-tag', severity: 'error', rfc: 'RFC 8659 §4.1–4.4; RFC 9495' }, ['CAA']);
