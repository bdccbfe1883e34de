import { targetNotCnameRule } from './target-not-cname.js';

/** An MX exchange is not an alias (RFC 2181 §10.3; RFC 5321 §5.1). */
export const mxTargetNotCname = targetNotCnameRule({ id: 'mx-target-not-cname', rfc: 'RFC 2181 §10.3; RFC 5321 §5.1' }, 'MX');
