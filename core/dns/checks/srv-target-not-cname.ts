import { targetNotCnameRule } from './target-not-cname.js';

/** An SRV target "must not be an alias" (RFC 2782, "Target"; RFC 2181 §10.3). */
export const srvTargetNotCname = targetNotCnameRule({ id: 'srv-target-not-cname', rfc: 'RFC 2782; RFC 2181 §10.3' }, 'SRV');
