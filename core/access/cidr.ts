import ipaddr from 'ipaddr.js';
import { DomainError } from '../kernel/errors.js';

/** IPv4 CIDR handling (seed 2.3: "an IPv4 network in CIDR notation"). */
export interface Cidr {
  readonly text: string;
  readonly prefix: number;
}

/** Parses and normalises to the network address ("203.0.113.7/24" → "203.0.113.0/24"). */
export const parseCidr = (text: string): Cidr => {
  // Leading zeros are refused: ipaddr.js would read "010" as octal 8 (CVE-2021-29921 in other stacks).
  if (!/^(?:0|[1-9]\d{0,2})(?:\.(?:0|[1-9]\d{0,2})){3}\/(?:0|[1-9]\d?)$/.test(text) || !ipaddr.IPv4.isValidCIDR(text)) {
    throw new DomainError('validation_failed', {}, [{ field: '/conditions/cidr', rule: 'cidr', value: text }]);
  }
  const [addr, prefix] = ipaddr.IPv4.parseCIDR(text);
  const bytes = addr.toByteArray();
  const mask = ipaddr.IPv4.subnetMaskFromPrefixLength(prefix).toByteArray();
  const net = bytes.map((b, i) => b & mask[i]!).join('.');
  return { text: `${net}/${prefix}`, prefix };
};

/** Whether an address (IPv4, or IPv4-mapped IPv6 such as ::ffff:127.0.0.1) is inside the network. */
export const cidrContains = (cidr: string, address: string): boolean => {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.process(address);
  } catch {
    return false;
  }
  if (parsed.kind() !== 'ipv4') return false;
  return (parsed as ipaddr.IPv4).match(ipaddr.IPv4.parseCIDR(cidr));
};
