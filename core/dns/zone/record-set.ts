/**
 * DNS record sets as the API and the store see them (DESIGN: Wire formats). Names are absolute,
 * lower case, in A-label form, without the trailing dot (the apex is the zone's own name). Values are
 * zone-file presentation text ("10 mail.example.net." for MX), except TXT (and SPF), whose values are
 * the plain text: long text is split into ≤ 255-octet strings when encoded, not refused.
 */
export const RECORD_TYPES = ['A', 'AAAA', 'CNAME', 'MX', 'NS', 'TXT', 'SRV', 'CAA', 'SOA', 'DNAME', 'PTR', 'SPF'] as const;
export type RecordType = (typeof RECORD_TYPES)[number];
export const isRecordType = (v: unknown): v is RecordType => typeof v === 'string' && (RECORD_TYPES as readonly string[]).includes(v);

export interface RecordSet {
  readonly name: string;
  readonly type: RecordType;
  readonly ttl: number;
  readonly values: readonly string[];
}

export const rrsetKey = (name: string, type: string): string => `${name}\u0000${type}`;

/** Zone apex SOA and NS belong to the service (DESIGN): plans cannot change them. */
export const SERVICE_NAMESERVERS = ['ns1.domivka.net', 'ns2.domivka.net'];
export const SOA_DEFAULTS = {
  mname: 'ns1.domivka.net',
  rname: 'hostmaster.domivka.net',
  refresh: 3600,
  retry: 600,
  expire: 1209600,
  minimum: 300,
};
export const soaValue = (serial: number): string =>
  `${SOA_DEFAULTS.mname}. ${SOA_DEFAULTS.rname}. ${serial} ${SOA_DEFAULTS.refresh} ${SOA_DEFAULTS.retry} ${SOA_DEFAULTS.expire} ${SOA_DEFAULTS.minimum}`;
