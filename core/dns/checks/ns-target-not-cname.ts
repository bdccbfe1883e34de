import { targetNotCnameRule } from './target-not-cname.js';

/** An NS target is not an alias (RFC 2181 §10.3; RFC 1912 §2.4). */
export const nsTargetNotCname = targetNotCnameRule({ id: 'ns-target-not-cname', rfc: 'RFC 2181 §10.3' }, 'NS');
