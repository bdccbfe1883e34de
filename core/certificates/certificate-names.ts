import { normalizeDomain } from '../kernel/domain-name.js';
import { DomainError } from '../kernel/errors.js';

/** RFC 8555 §7.1.3 / CA/B Forum: at most 100 names on one certificate (Let's Encrypt's limit). */
export const MAX_NAMES = 100;

/**
 * The names of a certificate request: host names or `*.` + host name (RFC 6125 §6.4.3: the wildcard is
 * the whole left-most label only), lower-case A-labels without a trailing dot, duplicates dropped.
 * Every bad name is reported at once, each with its index.
 */
export const normalizeNames = (input: readonly string[]): string[] => {
  const out: string[] = [];
  const details: Array<Record<string, unknown>> = [];
  input.forEach((raw, i) => {
    const trimmed = raw.trim().toLowerCase(); // normalizeDomain drops one trailing dot, no more
    const wildcard = trimmed.startsWith('*.');
    const base = wildcard ? trimmed.slice(2) : trimmed;
    try {
      if (base.includes('*')) throw new DomainError('domain_invalid', { domain: raw });
      const name = (wildcard ? '*.' : '') + normalizeDomain(base);
      if (name.length > 253) throw new DomainError('domain_invalid', { domain: raw }); // RFC 1035 §2.3.4, the whole name
      if (!out.includes(name)) out.push(name);
    } catch {
      details.push({
        field: `/body/domains/${i}`,
        rule: 'certificate-name',
        value: raw.slice(0, 300),
        message: {
          uk: 'очікується ім’я хоста або *.<ім’я хоста> (зірочка лише як ціла крайня ліва мітка)',
          en: 'expected a host name or *.<host name> (a wildcard only as the whole left-most label)',
        },
      });
    }
  });
  if (details.length > 0) throw new DomainError('validation_failed', {}, details);
  if (out.length === 0 || out.length > MAX_NAMES) {
    throw new DomainError('validation_failed', {}, [
      {
        field: '/body/domains',
        rule: 'count',
        value: out.length,
        message: { uk: `від 1 до ${MAX_NAMES} імен`, en: `from 1 to ${MAX_NAMES} names` },
      },
    ]);
  }
  return out;
};

/** The host a DNS-01 proof for `name` is published under (a wildcard is proven at its base, RFC 8555 §8.4). */
export const baseHost = (name: string): string => (name.startsWith('*.') ? name.slice(2) : name);

/** Candidate registered domains for a host, longest first (every suffix of two labels or more). */
export const suffixes = (host: string): string[] => {
  const labels = host.split('.');
  const out: string[] = [];
  for (let i = 0; i <= labels.length - 2; i++) out.push(labels.slice(i).join('.'));
  return out;
};

/** The domain among `domains` that holds `host` (the longest match), or null. */
export const domainOf = (host: string, domains: readonly string[]): string | null => {
  let best: string | null = null;
  for (const d of domains) {
    if ((host === d || host.endsWith(`.${d}`)) && (!best || d.length > best.length)) best = d;
  }
  return best;
};

export const sameNames = (a: readonly string[], b: readonly string[]): boolean => {
  const x = [...new Set(a)].sort();
  const y = [...new Set(b)].sort();
  return x.length === y.length && x.every((v, i) => v === y[i]);
};
