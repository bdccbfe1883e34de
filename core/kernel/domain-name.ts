import { domainToASCII, domainToUnicode } from 'node:url';
import { DomainError } from './errors.js';

/**
 * Domain names are kept in their ASCII (A-label, punycode) form, lower case, without the trailing dot.
 * IDNs are accepted in Unicode or punycode (UTS #46 mapping via WHATWG URL's domainToASCII, which is
 * pure computation). RFC 1035 §2.3.4 limits: labels 1–63 octets, whole name ≤ 253 characters here.
 */
/** Valid names already normalised (every keyed domain call asks; IDNA conversion is not free). */
const normalized = new Map<string, string>();

export const normalizeDomain = (input: string): string => {
  const hit = normalized.get(input);
  if (hit !== undefined) return hit;
  const out = normalizeUncached(input);
  if (normalized.size >= 10_000) normalized.clear();
  normalized.set(input, out);
  return out;
};

const normalizeUncached = (input: string): string => {
  const raw = input.trim().replace(/\.$/, '');
  if (raw === '' || /\s/.test(raw) || raw.length > 300) throw new DomainError('domain_invalid', { domain: input.slice(0, 300) });
  // URL syntax (/ ? # \ % @ : …) would be cut off or decoded by the URL host parser: refuse it.
  if (/[\x00-\x2c\x2f\x3a-\x40\x5b-\x60\x7b-\x7f]/.test(raw)) throw new DomainError('domain_invalid', { domain: input.slice(0, 300) });
  const ascii = domainToASCII(raw.toLowerCase());
  if (!ascii || ascii.length > 253) throw new DomainError('domain_invalid', { domain: input.slice(0, 300) });
  const labels = ascii.split('.');
  if (labels.length < 2) throw new DomainError('domain_invalid', { domain: input.slice(0, 300) });
  for (const l of labels) {
    if (l.length < 1 || l.length > 63 || !/^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/.test(l)) {
      throw new DomainError('domain_invalid', { domain: input.slice(0, 300) });
    }
  }
  if (/^\d+$/.test(labels[labels.length - 1]!)) throw new DomainError('domain_invalid', { domain: input.slice(0, 300) });
  return ascii;
};

export const isValidDomain = (input: string): boolean => {
  try {
    normalizeDomain(input);
    return true;
  } catch {
    return false;
  }
};

export const toUnicode = (ascii: string): string => domainToUnicode(ascii) || ascii;

/** Labels (RFC 1035 sense) of a normalised name, e.g. ["shop", "example", "com"]. */
export const labelsOf = (name: string): string[] => name.split('.');
