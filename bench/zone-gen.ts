import { SERVICE_NAMESERVERS, soaValue, type RecordSet } from '../core/dns/zone/record-set.js';
import type { Zone } from '../core/dns/zone/zone.js';

/**
 * Synthetic zones for bench:dns and bench:plan, deterministic for a given size.
 *
 * Record sets come in units of five, one of each type, all valid under the plan checks:
 *   hN A      one or two IPv4 addresses        hN AAAA  one IPv6 address
 *   hN TXT    a short text (SPF-free)          mN MX    `10 hN.<zone>.` (an in-zone host)
 *   cN CNAME  `hN.<zone>.` (alone at its name)
 * so the mix is 20 % each of A, AAAA, TXT, MX and CNAME. The apex SOA and NS (the service's) are not counted.
 */
export const BENCH_SERIAL = 2026112100;

const ipv4 = (i: number, k: number): string => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${(i & 255) ^ k}`;
const ipv6 = (i: number): string => `2001:db8::${(i >>> 16).toString(16)}:${(i & 0xffff).toString(16)}`;

/** The non-apex record sets of a zone of about `n` sets (rounded down to a multiple of 5, at least 5). */
export const benchSets = (domain: string, n: number): RecordSet[] => {
  const units = Math.max(1, Math.floor(n / 5));
  const sets: RecordSet[] = [];
  for (let u = 0; u < units; u++) {
    const h = `h${u}.${domain}`;
    sets.push(
      { name: h, type: 'A', ttl: 300, values: u % 3 === 0 ? [ipv4(u, 1), ipv4(u, 2)] : [ipv4(u, 1)] },
      { name: h, type: 'AAAA', ttl: 300, values: [ipv6(u)] },
      { name: h, type: 'TXT', ttl: 300, values: [`bench host ${u} verification=${(u * 2654435761) >>> 0}`] },
      { name: `m${u}.${domain}`, type: 'MX', ttl: 3600, values: [`10 ${h}.`] },
      { name: `c${u}.${domain}`, type: 'CNAME', ttl: 300, values: [`${h}.`] },
    );
  }
  return sets;
};

export const apexSets = (domain: string, serial: number): RecordSet[] => [
  { name: domain, type: 'SOA', ttl: 3600, values: [soaValue(serial)] },
  { name: domain, type: 'NS', ttl: 3600, values: SERVICE_NAMESERVERS.map((s) => `${s}.`) },
];

/** The whole zone (apex SOA and NS plus `benchSets`), optionally with extra sets. */
export const benchZone = (domain: string, n: number, serial = BENCH_SERIAL, extra: readonly RecordSet[] = []): Zone => ({
  domain,
  serial,
  recordSets: [...apexSets(domain, serial), ...benchSets(domain, n), ...extra],
});
