import type { RecordSet, RecordType } from '../../core/dns/zone/record-set.js';
import { SERVICE_NAMESERVERS, soaValue } from '../../core/dns/zone/record-set.js';

export const ORIGIN = 'example.com';

export const rs = (name: string, type: RecordType, values: string[], ttl = 300): RecordSet => ({
  name: name === '@' ? ORIGIN : name.endsWith(ORIGIN) ? name : `${name}.${ORIGIN}`,
  type,
  ttl,
  values,
});

/** The service's apex SOA and NS, as every stored zone has them. */
export const apex = (serial = 1): RecordSet[] => [
  { name: ORIGIN, type: 'SOA', ttl: 3600, values: [soaValue(serial)] },
  { name: ORIGIN, type: 'NS', ttl: 3600, values: SERVICE_NAMESERVERS.map((n) => `${n}.`) },
];

/** A zone of n record sets (plus apex) of mixed types, each valid and free of warnings. */
export const bigZoneRecords = (n: number): Array<{ name: string; type: string; ttl: number; values: string[] }> =>
  Array.from({ length: n }, (_, i) => {
    const k = i % 10;
    const name = `h${i}`;
    if (k < 6) return { name, type: 'A', ttl: 300, values: [`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`] };
    if (k === 6) return { name, type: 'AAAA', ttl: 300, values: [`2001:db8:${(i >> 16).toString(16)}::${(i & 0xffff).toString(16)}`] };
    if (k === 7) return { name, type: 'CNAME', ttl: 300, values: [`h${i - 1}`] };
    if (k === 8) return { name, type: 'MX', ttl: 300, values: [`10 h${i - 2}.${ORIGIN}.`] };
    return { name, type: 'TXT', ttl: 300, values: [`v=spf1 include:_spf.example.net -all ${i}`] };
  });
