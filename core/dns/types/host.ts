import ipaddr from 'ipaddr.js';
import { isAtOrBelow, nameProblems, toAsciiLabels } from '../zone/names.js';
import type { ValueProblem } from './value.js';
import { shown } from './value.js';

export interface ParsedHost {
  /** Absolute, lower case, without the trailing dot; '' for the root "."; null when unusable. */
  readonly name: string | null;
  readonly problems: ValueProblem[];
}

/** Four dot-separated decimal numbers (any value: 300.1.1.1 is no host name either), or IPv6. */
const looksLikeAddress = (bare: string): boolean =>
  /^\d{1,3}(?:\.\d{1,3}){3}$/.test(bare) || (bare.includes(':') && ipaddr.IPv6.isValid(bare));

/** The absolute name a target token stands for (`lower` is its A-label, lower-case form), before validation. */
const absoluteHost = (token: string, lower: string, origin: string): string => {
  const bare = lower.endsWith('.') ? lower.slice(0, -1) : lower;
  return token === '@' ? origin : lower.endsWith('.') || isAtOrBelow(lower, origin) ? bare : `${lower}.${origin}`;
};

/**
 * A target host name inside a value (CNAME/NS/PTR/DNAME targets, MX exchange, SRV target). Resolved like
 * owner names (DESIGN): `@` is the apex, a trailing dot or the zone's name at the end makes it absolute,
 * anything else is relative to the zone. Targets are host names, never IP addresses (RFC 1123 §2.1:
 * a host name must not look like a dotted-decimal address; RFC 1035 §3.3.9, §3.3.11, RFC 2782).
 */
export const parseHost = (token: string, origin: string, type: string, allowRoot: boolean): ParsedHost => {
  const problems: ValueProblem[] = [];
  if (token === '.') {
    if (allowRoot) return { name: '', problems };
    problems.push({
      rule: 'target-syntax',
      en: `A ${type} target cannot be the root ".".`,
      uk: `Ціллю ${type} не може бути корінь «.».`,
    });
    return { name: null, problems };
  }
  // Unicode labels become A-labels, as owner names do (UTS #46).
  const lower = toAsciiLabels(token);
  if (lower === null) {
    problems.push({
      rule: 'target-syntax',
      en: `The ${type} target "${shown(token)}" is not a valid domain name.`,
      uk: `Ціль ${type} «${shown(token)}» не є коректним доменним ім’ям.`,
    });
    return { name: null, problems };
  }
  const bare = lower.endsWith('.') ? lower.slice(0, -1) : lower;
  if (looksLikeAddress(bare)) {
    problems.push({
      rule: 'target-not-address',
      en: `The ${type} target "${shown(token)}" is an IP address; ${type} needs a host name (add an A or AAAA record for it and point at that name).`,
      uk: `Ціль ${type} «${shown(token)}» — це IP-адреса; ${type} потребує імені вузла (створіть для адреси запис A чи AAAA і вкажіть його ім’я).`,
    });
    return { name: null, problems };
  }
  const name = absoluteHost(token, lower, origin);
  for (const p of nameProblems(name, { en: `The ${type} target`, uk: `Ціль ${type}` })) {
    problems.push({ rule: 'target-syntax', en: p.en, uk: p.uk });
  }
  return { name: problems.length === 0 ? name : null, problems };
};

/**
 * The host a target token would name if it were valid: parseHost's name without its checks (null for the
 * root or an unconvertible token). Whenever parseHost gives a name, this gives the same name, so an index
 * built from it finds every set that points somewhere (and maybe a few whose target is invalid).
 */
export const hostCandidate = (token: string, origin: string): string | null => {
  if (token === '.') return null;
  const lower = toAsciiLabels(token);
  return lower === null ? null : absoluteHost(token, lower, origin);
};

/** Presentation of an absolute host: trailing dot; the root is ".". */
export const presentHost = (name: string): string => (name === '' ? '.' : `${name}.`);
