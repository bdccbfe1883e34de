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

/** AAAA: one IPv6 address (RFC 3596 §2.2); canonical text is RFC 5952 (mixed notation for IPv4-mapped, §5). */
export const parseAaaa = (raw: string): ParsedValue => {
  const v = raw.trim();
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
