import { SERVICE_NAMESERVERS, soaValue, type RecordSet } from '../../../core/dns/zone/record-set.js';
import type { Zone } from '../../../core/dns/zone/zone.js';

/** Text of `n` octets, for long TXT values and oversized RRsets. */
export const text = (n: number, seed = 'x'): string => seed.repeat(Math.ceil(n / seed.length)).slice(0, n);

export const LONG_TXT = `v=DKIM1; k=rsa; p=${text(580, 'MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8A')}`;

const apex = (domain: string, serial: number): RecordSet[] => [
  { name: domain, type: 'SOA', ttl: 3600, values: [soaValue(serial)] },
  { name: domain, type: 'NS', ttl: 3600, values: SERVICE_NAMESERVERS.map((n) => `${n}.`) },
];

/** The zone the server suite queries: one record set per behaviour of issue 4's server section. */
export const exampleZone = (serial = 2026112100, extra: readonly RecordSet[] = []): Zone => {
  const d = 'example.test';
  return {
    domain: d,
    serial,
    recordSets: [
      ...apex(d, serial),
      { name: d, type: 'MX', ttl: 300, values: ['10 mail.example.test.', '20 mx2.example.net.'] },
      { name: d, type: 'TXT', ttl: 300, values: ['v=spf1 mx -all'] },
      { name: d, type: 'CAA', ttl: 300, values: ['0 issue "letsencrypt.org"', '0 iodef "mailto:security@example.test"'] },
      { name: 'www.example.test', type: 'A', ttl: 300, values: ['192.0.2.1', '192.0.2.2'] },
      { name: 'www.example.test', type: 'AAAA', ttl: 300, values: ['2001:db8::1'] },
      { name: 'mail.example.test', type: 'A', ttl: 300, values: ['192.0.2.25'] },
      { name: 'long.example.test', type: 'TXT', ttl: 300, values: [LONG_TXT] },
      { name: '_sip._tcp.example.test', type: 'SRV', ttl: 300, values: ['10 60 5060 sip.example.test.'] },
      { name: '_acme-challenge.example.test', type: 'TXT', ttl: 60, values: [text(43, 'a'), text(43, 'b')] },
      // RFC 4592: a wildcard, and an empty non-terminal (b.wild) that shields the names below it.
      { name: '*.wild.example.test', type: 'A', ttl: 300, values: ['192.0.2.50'] },
      { name: '*.wild.example.test', type: 'TXT', ttl: 300, values: ['from the wildcard'] },
      { name: 'a.b.wild.example.test', type: 'A', ttl: 300, values: ['192.0.2.51'] },
      { name: '*.alias.example.test', type: 'CNAME', ttl: 300, values: ['www.example.test.'] },
      // CNAME chains: in the zone, to a loop, out of the zone, to a missing name.
      { name: 'c1.example.test', type: 'CNAME', ttl: 300, values: ['c2.example.test.'] },
      { name: 'c2.example.test', type: 'CNAME', ttl: 300, values: ['www.example.test.'] },
      { name: 'loop1.example.test', type: 'CNAME', ttl: 300, values: ['loop2.example.test.'] },
      { name: 'loop2.example.test', type: 'CNAME', ttl: 300, values: ['loop1.example.test.'] },
      { name: 'out.example.test', type: 'CNAME', ttl: 300, values: ['www.example.net.'] },
      { name: 'dangling.example.test', type: 'CNAME', ttl: 300, values: ['nowhere.example.test.'] },
      // A delegation with in-domain glue, and one to the child zone we also serve.
      { name: 'sub.example.test', type: 'NS', ttl: 3600, values: ['ns1.sub.example.test.', 'ns.example.net.'] },
      { name: 'ns1.sub.example.test', type: 'A', ttl: 3600, values: ['192.0.2.53'] },
      { name: 'ns1.sub.example.test', type: 'AAAA', ttl: 3600, values: ['2001:db8::53'] },
      { name: 'child.example.test', type: 'NS', ttl: 3600, values: SERVICE_NAMESERVERS.map((n) => `${n}.`) },
      // DNAME (RFC 6672).
      { name: 'old.example.test', type: 'DNAME', ttl: 300, values: ['example.test.'] },
      // Sizes: `medium` fits 1232 but not 512; `large` (about 2 KB) is over 1232 but under 4096; `big` fits only TCP.
      { name: 'medium.example.test', type: 'TXT', ttl: 300, values: Array.from({ length: 6 }, (_, i) => text(100, String(i))) },
      { name: 'large.example.test', type: 'TXT', ttl: 300, values: Array.from({ length: 10 }, (_, i) => text(200, String(i))) },
      {
        name: 'big.example.test',
        type: 'TXT',
        ttl: 300,
        values: Array.from({ length: 30 }, (_, i) => text(200, String.fromCharCode(97 + (i % 26)) + i)),
      },
      ...extra,
    ],
  };
};

/** A child zone of example.test that we serve too: queries below it go to it (longest match). */
export const childZone = (serial = 2026112100): Zone => ({
  domain: 'child.example.test',
  serial,
  recordSets: [...apex('child.example.test', serial), { name: 'www.child.example.test', type: 'A', ttl: 300, values: ['192.0.2.77'] }],
});
