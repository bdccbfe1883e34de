import ipaddr from 'ipaddr.js';
import type { ParsedValue } from './value.js';
import { shown, NO_PROBLEMS } from './value.js';

/** Dotted-decimal IPv4, each part 0–255 without leading zeros: already canonical when it matches. */
export const IPV4 = /^(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/** A: one IPv4 address in dotted-decimal, no leading zeros (RFC 1035 §3.4.1). */
export const parseA = (raw: string): ParsedValue => {
  const v = raw.trim();
  if (IPV4.test(v)) return { canonical: v, problems: NO_PROBLEMS, data: { kind: 'address', address: v } };
  const v6 = v.includes(':') && ipaddr.IPv6.isValid(v);
  return {
    canonical: raw,
    data: null,
    problems: [
      {
        rule: 'a-ipv4',
        en: v6
          ? `"${shown(raw)}" is an IPv6 address; A records hold IPv4 only, use AAAA for it.`
          : `"${shown(raw)}" is not an IPv4 address (four decimal numbers 0–255, e.g. 192.0.2.10).`,
        uk: v6
          ? `«${shown(raw)}» — адреса IPv6; записи A містять лише IPv4, для неї використовуйте AAAA.`
          : `«${shown(raw)}» не є адресою IPv4 (чотири десяткові числа 0–255, наприклад 192.0.2.10).`,
      },
    ],
  };
};

/**
 * The eight 16-bit groups of an IPv6 address written as hex groups (1–4 digits) with at most one "::" and
 * nothing else — no embedded IPv4, no zone index; null for any other text (parseAaaa then asks ipaddr.js,
 * which also knows the other forms). Plain code: ipaddr.js's regular expressions cost ~10 µs a value, and a
 * zone imports tens of thousands. test/dns/names-and-values.test.ts holds it to ipaddr.js.
 */
export const hexGroups = (v: string): number[] | null => {
  const n = v.length;
  if (n < 2) return null;
  // Groups before "::" go from the front, groups after it are gathered and moved to the back at the end.
  const g = [0, 0, 0, 0, 0, 0, 0, 0];
  let count = 0;
  let gap = -1; // groups before "::", when there is one
  let i = 0;
  if (v.charCodeAt(0) === 58 /* : */) {
    if (v.charCodeAt(1) !== 58) return null;
    gap = 0;
    i = 2;
    if (i === n) return g;
  }
  for (;;) {
    let value = 0;
    let digits = 0;
    for (; i < n && digits <= 4; i++, digits++) {
      const c = v.charCodeAt(i);
      const d = c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : c >= 65 && c <= 70 ? c - 55 : -1;
      if (d < 0) break;
      value = value * 16 + d;
    }
    if (digits === 0 || digits > 4 || count === 8) return null;
    g[count++] = value;
    if (i === n) break;
    if (v.charCodeAt(i) !== 58) return null;
    i++;
    if (i < n && v.charCodeAt(i) === 58) {
      if (gap >= 0) return null; // a second "::"
      gap = count;
      i++;
      if (i === n) break;
    } else if (i === n) return null; // a single trailing ":"
  }
  if (gap < 0) return count === 8 ? g : null;
  if (count > 7) return null; // "::" stands for at least one group
  // Move the groups after "::" to the end; the ones between become zeros.
  const after = count - gap;
  for (let k = 0; k < after; k++) {
    g[7 - k] = g[count - 1 - k]!;
    g[count - 1 - k] = 0;
  }
  return g;
};

/** RFC 5952 §4 text of eight groups: lower case, no leading zeros, the first longest run of 2+ zero groups as "::". */
export const rfc5952 = (g: readonly number[]): string => {
  let best = -1;
  let bestLength = 1;
  for (let i = 0; i < 8;) {
    if (g[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && g[j] === 0) j++;
    if (j - i > bestLength) {
      best = i;
      bestLength = j - i;
    }
    i = j;
  }
  let out = '';
  for (let i = 0; i < 8; i++) {
    if (i === best) {
      out += '::';
      i += bestLength - 1;
      continue;
    }
    if (out !== '' && !out.endsWith(':')) out += ':';
    out += g[i]!.toString(16);
  }
  return out;
};

/** The canonical text of an IPv6 address: RFC 5952, and mixed notation for IPv4-mapped ones (§5). */
const canonicalIpv6 = (g: readonly number[]): string =>
  g[0] === 0 && g[1] === 0 && g[2] === 0 && g[3] === 0 && g[4] === 0 && g[5] === 0xffff
    ? `::ffff:${g[6]! >> 8}.${g[6]! & 255}.${g[7]! >> 8}.${g[7]! & 255}`
    : rfc5952(g);

/** AAAA: one IPv6 address (RFC 3596 §2.2); canonical text is RFC 5952 (mixed notation for IPv4-mapped, §5). */
export const parseAaaa = (raw: string): ParsedValue => {
  const v = raw.trim();
  const groups = hexGroups(v);
  if (groups) {
    const canonical = canonicalIpv6(groups);
    return { canonical, problems: NO_PROBLEMS, data: { kind: 'address', address: canonical } };
  }
  if (!v.includes('%') && ipaddr.IPv6.isValid(v)) {
    const addr = ipaddr.IPv6.parse(v);
    const canonical = addr.isIPv4MappedAddress() ? `::ffff:${addr.toIPv4Address().toString()}` : addr.toRFC5952String();
    return { canonical, problems: NO_PROBLEMS, data: { kind: 'address', address: canonical } };
  }
  const v4 = IPV4.test(v);
  return {
    canonical: raw,
    data: null,
    problems: [
      {
        rule: 'aaaa-ipv6',
        en: v4
          ? `"${shown(raw)}" is an IPv4 address; AAAA records hold IPv6 only, use A for it.`
          : `"${shown(raw)}" is not an IPv6 address (e.g. 2001:db8::10; no zone index).`,
        uk: v4
          ? `«${shown(raw)}» — адреса IPv4; записи AAAA містять лише IPv6, для неї використовуйте A.`
          : `«${shown(raw)}» не є адресою IPv6 (наприклад 2001:db8::10; без індексу зони).`,
      },
    ],
  };
};
